// The usage and exit codes of every command: printed by --help, appended to usage errors, mirrored in the README.

const SOURCE = `The ledger: --issue N (the state folder's issue-N.md; the state folder is VERI_STATE_DIR, else .tdd/ at
the repository root), --ledger FILE, else stdin (cat .tdd/issue-7.md | leap-ledger current).`;

const Q = 'Queries (the ledger from --issue N, --ledger FILE or stdin)';
const C = 'Changes (committed or written atomically; each appends a tick event to the event log)';

type Command = [group: string, summary: string, usage: string];

const query = (name: string, summary: string): Command => [
  Q,
  summary,
  `Usage: leap-ledger ${name} [--issue N | --ledger FILE] [--json]

Print ${summary}.
${SOURCE}
  --json   print the step as a JSON line {"state","title","line","criterion"}
Exit: 0 found (its title printed), 1 nothing left (nothing printed), 2 usage or malformed ledger,
3 an interrupted tick could not be recovered yet (its processes still run), 5 internal error.`,
];

const change = (name: string, summary: string, what: string): Command => [
  C,
  `--step TITLE: ${summary}`,
  `Usage: leap-ledger ${name} [N] [--issue N | --ledger FILE] --step TITLE
       [-m MESSAGE] [--no-verify] [--allow-empty] [--json]

${what}
The ledger is the state folder's issue-N.md (N from the argument, --issue, or VERI_ISSUE), or --ledger FILE.
  --step TITLE      the step, matched exactly (one argv element; never passed through a shell)
  -m, --message M   the commit message (default "${name === 'tick' ? 'green' : 'refactor'}: TITLE")
  --no-verify       skip the pre-commit and commit-msg hooks, as git commit --no-verify
  --allow-empty     commit even when only the ledger line changes
  --json            print {"action","commit","title","ledger"} instead of the commit
Exit: 0 committed (the commit printed), 2 usage, malformed ledger, unknown title or a step in the wrong
state, 3 another ledger command is running, 4 git refused (a hook failed, nothing staged, unmerged paths,
index.lock held, HEAD moved): nothing was changed, 5 internal error.`,
];

const LIST = `Usage: leap-ledger list [--issue N | --ledger FILE] [--json]

Print every step, one "STATE<TAB>TITLE" line each (STATE: todo, refactor-pending, done).
${SOURCE}
  --json   JSON lines {"state","title","line","criterion"} (line numbers from 1)
Exit: 0 printed (even an empty list), 2 usage or malformed ledger, 5 internal error.`;

const VALIDATE = `Usage: leap-ledger validate [--issue N | --ledger FILE] [--json]

Print every problem of a ledger, one "FILE:LINE: message" line each (--json: {"file","line","message"}).
${SOURCE}
Exit: 0 valid, 1 problems found, 2 usage or unreadable input, 5 internal error.`;

const TICK = `Mark the step done and refactor-pending, in ONE commit with the staged work (git commit runs the hooks).
A refused commit changes nothing; a crash at any point is finished or undone by the next ledger command.`;

const CRITERION = `Usage: leap-ledger tick-criterion [N] K [--body FILE | --issue N]
       leap-ledger tick-criterion [N] --match TEXT [--body FILE | --issue N]

Tick acceptance criterion K (from 1), or the one whose first line is TEXT exactly, of the "## Acceptance
criteria" section of an issue body: FILE, or the local tracker's .tdd/issues/N.md, replaced atomically.
Exit: 0 ticked, 2 usage, no such section or criterion, already ticked, 3 another ledger command is running,
5 internal error.`;

const PRESERVE = `Usage: leap-ledger preserve-attempt [N] [--issue N | --ledger FILE] --step TITLE [--json]

Keep the half-done step's uncommitted work outside the state folder (tracked changes, staged new files,
untracked files .gitignore does not ignore) as a commit under refs/leap/attempts/issue-N/, then restore
those files to HEAD. Prints the ref, nothing when nothing was uncommitted (leap-ledger attempts apply REF).
  --json   print {"ref","commit","paths"}
Exit: 0 kept (or nothing to keep), 2 usage, unknown or done step, 3 another ledger command is running,
4 unmerged paths, 5 internal error.`;

const ATTEMPTS = `Usage: leap-ledger attempts list [--issue N] [--json]
       leap-ledger attempts apply REF

list: the kept attempts, oldest first, "REF<TAB>DATE<TAB>TITLE" (--json: {"ref","commit","date","issue","title"}).
apply: apply one to the working tree (3-way when it no longer applies cleanly); REF whole or after refs/leap/attempts/.
Exit: 0 done, 1 no attempt kept (list), 2 usage or no such attempt, 3 another ledger command is running,
4 the attempt does not apply (conflicts), 5 internal error.`;

const INIT = `Usage: leap-ledger init [N] [--issue N | --ledger FILE] [--plan FILE] [--force]

Write a new ledger from a plan (--plan FILE, else stdin): a title line, then one step a line, optionally
"- [ ] " before it and "(criterion K)" after it. Refuses to replace a ledger without --force. Prints its path.
Exit: 0 written, 2 usage, malformed plan or existing ledger (nothing written), 3 another ledger command
is running, 5 internal error.`;

const CLEAR = "Remove the step's refactor-pending marker in ONE commit with the refactor's staged work, like tick.";

/** Each command: its group and line in `leap-ledger --help`, and its own usage. */
export const COMMANDS: Record<string, Command> = {
  list: [Q, 'every step: STATE<TAB>TITLE', LIST],
  current: query('current', 'the step in flight: the first refactor-pending step, else the first unchecked one'),
  'current-or-last-done': query('current-or-last-done', 'the step in flight, else the last done step'),
  'next-unchecked': query('next-unchecked', 'the first unchecked step'),
  'next-pending-refactor': query('next-pending-refactor', 'the first refactor-pending step'),
  validate: [Q, 'every problem of a ledger, with its line', VALIDATE],
  tick: change('tick', 'done + refactor-pending, in ONE commit with the staged work', TICK),
  'clear-refactor-pending': change('clear-refactor-pending', 'marker off, in ONE commit with the refactor', CLEAR),
  'tick-criterion': [C, 'K: tick acceptance criterion K of an issue body', CRITERION],
  'preserve-attempt': [C, '--step TITLE: keep the uncommitted work under refs/leap/attempts/, restore HEAD', PRESERVE],
  attempts: [C, 'list | apply REF: the kept attempts', ATTEMPTS],
  init: [C, 'a new ledger from a plan', INIT],
};

export const usageOf = (command: string): string => (COMMANDS[command] as Command)[2];

export const FOOTER = [
  'leap-ledger COMMAND --help tells more.',
  'Exit codes: 0 done or found; 1 nothing found (queries), problems found (validate); 2 usage or bad input;',
  '3 busy (another ledger command runs); 4 git refused the change (nothing changed); 5 internal error.',
];

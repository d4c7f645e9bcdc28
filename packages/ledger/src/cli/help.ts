// Usage and exit codes of every subcommand: printed by --help, appended to usage errors, and mirrored in the README.

const SOURCE = `The ledger: --issue N (the state folder's issue-N.md; the state folder is VERI_STATE_DIR, else .tdd/ at
the repository root), --ledger FILE, else stdin (cat .tdd/issue-7.md | leap-ledger current).`;

const QUERY_EXITS = `Exit: 0 found (its title printed), 1 nothing left (nothing printed), 2 usage or malformed ledger,
3 an interrupted tick could not be recovered yet (its processes still run), 5 internal error.`;

const CHANGE_EXITS = `Exit: 0 committed (the commit printed), 2 usage, malformed ledger, unknown title or a step in the wrong
state, 3 another ledger command is running, 4 git refused (a hook failed, nothing staged, unmerged paths,
index.lock held, HEAD moved): nothing was changed, 5 internal error.`;

const query = (name: string, what: string): string => `Usage: leap-ledger ${name} [--issue N | --ledger FILE] [--json]

${what}
${SOURCE}
  --json   print the step as a JSON line {"state","title","line","criterion"}
${QUERY_EXITS}`;

const change = (name: string, what: string, message: string): string => `Usage: leap-ledger ${name} [N] [--issue N | --ledger FILE] --step TITLE [-m MESSAGE] [--no-verify] [--allow-empty] [--json]

${what}
The ledger is the state folder's issue-N.md (N from the argument, --issue, or VERI_ISSUE), or --ledger FILE.
  --step TITLE      the step, matched exactly (one argv element; never passed through a shell)
  -m, --message M   the commit message (default "${message}: TITLE")
  --no-verify       skip the pre-commit and commit-msg hooks, as git commit --no-verify
  --allow-empty     commit even when only the ledger line changes
  --json            print {"action","commit","title","ledger"} instead of the commit
${CHANGE_EXITS}`;

/** Usage of each subcommand. */
export const USAGE: Record<string, string> = {
  list: `Usage: leap-ledger list [--issue N | --ledger FILE] [--json]

Print every step, one "STATE<TAB>TITLE" line each (STATE: todo, refactor-pending, done).
${SOURCE}
  --json   JSON lines {"state","title","line","criterion"} (line numbers from 1)
Exit: 0 printed (even an empty list), 2 usage or malformed ledger, 5 internal error.`,
  current: query('current', 'Print the step in flight: the first refactor-pending step, else the first unchecked one.'),
  'current-or-last-done': query('current-or-last-done', 'As current; when every step is done, the last done step.'),
  'next-unchecked': query('next-unchecked', 'Print the first unchecked step.'),
  'next-pending-refactor': query('next-pending-refactor', 'Print the first refactor-pending step.'),
  tick: change(
    'tick',
    `Mark the step done and refactor-pending, and commit that ledger line together with the staged work
in ONE commit (the repository's hooks run). A refused commit changes nothing; a crash at any point is
finished or undone by the next ledger command.`,
    'green',
  ),
  'clear-refactor-pending': change('clear-refactor-pending', `Remove the step's refactor-pending marker, committed with the refactor's staged work, like tick.`, 'refactor'),
  'tick-criterion': `Usage: leap-ledger tick-criterion [N] K [--body FILE | --issue N]
       leap-ledger tick-criterion [N] --match TEXT [--body FILE | --issue N]

Tick acceptance criterion K (from 1) of the "## Acceptance criteria" section of an issue body. The body is
FILE, or the local tracker's .tdd/issues/N.md. With --match TEXT instead of K, the criterion whose first
line is TEXT exactly. The file is replaced atomically.
Exit: 0 ticked, 2 usage, no such section or criterion, already ticked, 3 another ledger command is running,
5 internal error.`,
  'preserve-attempt': `Usage: leap-ledger preserve-attempt [N] [--issue N | --ledger FILE] --step TITLE [--json]

Keep the half-done step's uncommitted work (untracked files included) as a commit under
refs/leap/attempts/issue-N/, then restore the files it touched to HEAD. "Touched" is everything
uncommitted outside the state folder: tracked changes, staged new files, and untracked files that
.gitignore does not ignore (ignored files are never touched). Prints the ref (nothing when nothing
was uncommitted). Re-apply with: leap-ledger attempts apply REF.
  --json   print {"ref","commit","paths"}
Exit: 0 kept (or nothing to keep), 2 usage, unknown or done step, 3 another ledger command is running,
4 unmerged paths, 5 internal error.`,
  attempts: `Usage: leap-ledger attempts list [--issue N] [--json]
       leap-ledger attempts apply REF

list: the kept attempts, oldest first, one "REF<TAB>DATE<TAB>TITLE" line each (--json: JSON lines
{"ref","commit","date","issue","title"}). apply: apply the attempt's changes to the working tree (a
3-way merge when they no longer apply cleanly); REF is the full ref or the part after refs/leap/attempts/.
Exit: 0 done, 1 no attempt kept (list), 2 usage or no such attempt, 3 another ledger command is running,
4 the attempt does not apply (conflicts), 5 internal error.`,
  init: `Usage: leap-ledger init [N] [--issue N | --ledger FILE] [--plan FILE] [--force]

Write a new ledger from a plan (--plan FILE, else stdin): its first line is the ledger's title, then one
step a line, optionally "- [ ] " before it and "(criterion K)" or "<!-- criterion: K -->" after it.
Refuses to replace an existing ledger without --force. Prints the ledger's path.
Exit: 0 written, 2 usage, malformed plan or existing ledger (nothing written), 3 another ledger command
is running, 5 internal error.`,
  validate: `Usage: leap-ledger validate [--issue N | --ledger FILE] [--json]

Check a ledger and print every problem, one "FILE:LINE: message" line each (--json: JSON lines
{"file","line","message"}).
${SOURCE}
Exit: 0 valid, 1 problems found, 2 usage or unreadable input, 5 internal error.`,
};

const QUERIES = 'Queries (the ledger from --issue N, --ledger FILE or stdin)';
const CHANGES = 'Changes (committed or written atomically; each appends a tick event to the event log)';

/** Each command's line in `leap-ledger --help`, under its heading, in help order. */
export const SUMMARIES: Readonly<Record<string, { summary: string; group: string }>> = {
  list: { summary: 'every step: STATE<TAB>TITLE', group: QUERIES },
  current: { summary: 'the step in flight', group: QUERIES },
  'current-or-last-done': { summary: 'the step in flight, else the last done step', group: QUERIES },
  'next-unchecked': { summary: 'the first unchecked step', group: QUERIES },
  'next-pending-refactor': { summary: 'the first refactor-pending step', group: QUERIES },
  validate: { summary: 'every problem of a ledger, with its line', group: QUERIES },
  tick: { summary: '--step TITLE: done + refactor-pending, in ONE commit with the staged work', group: CHANGES },
  'clear-refactor-pending': { summary: '--step TITLE: marker removed, in ONE commit with the staged refactor', group: CHANGES },
  'tick-criterion': { summary: 'K: tick acceptance criterion K of an issue body', group: CHANGES },
  'preserve-attempt': { summary: '--step TITLE: keep the uncommitted work under refs/leap/attempts/, restore HEAD', group: CHANGES },
  attempts: { summary: 'list | apply REF: the kept attempts', group: CHANGES },
  init: { summary: 'a new ledger from a plan', group: CHANGES },
};

/** What `leap-ledger --help` ends with. */
export const MAIN_FOOTER = [
  'leap-ledger COMMAND --help tells more.',
  'Exit codes: 0 done or found; 1 nothing found (queries), problems found (validate); 2 usage or bad input;',
  '3 busy (another ledger command runs); 4 git refused the change (nothing changed); 5 internal error.',
];

/** The subcommands, in help order. */
export const COMMANDS = Object.keys(USAGE);

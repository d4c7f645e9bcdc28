// `leap tdd run|status|stop` (CONTRACT sections 9, 12): exit codes decided here; only `run` loads the conductor.
import {
  UsageError,
  appendEvent,
  dispatcher,
  checkIssue,
  createEvent,
  isProcessAlive,
  parseCli,
  readEventContext,
  readLockHolder,
  requestStop,
  clearStop,
  dirOption,
  resolveStateDir,
  STOP_MODES,
  statePaths,
  type Subcommand,
  type SubcommandIo,
} from '@leap/core';
import { lockedError, repoRootOf } from './run-files.js';

const RUN_HELP = `Usage: leap tdd run --issue N [options]

Drives issue N end to end with no person in the loop, on branch leap/issue-N: preflight (clean tree,
test command, green baseline, pinned revision, timeout file), the plan, then for each step red, blind
verification, green, verification, tick with the green commit, refactor, verification, clear with the
refactor commit and the criterion ticked; every phase and verdict narrated on the issue's thread; a
draft pull request at the end. Running it again resumes where a run ended, stopped, bailed or was killed.

Options:
  --issue N          the issue (required)
  --test-cmd CMD     the test command (else VERI_TEST_CMD, else detected)
  --plan FILE        the steps, in the plan format of leap-ledger init, instead of a planning leaf
  --developer NAME   the developer agent (default claude); NAME,NAME...: tried in order when a vendor runs dry
  --verifier NAME    the verifier agent (default: a built-in of another family than the developer); a list too
  --allow-same-family  allow a verifier of the developer's model family (else bad input, exit 2)
  --planner NAME     the planner agent (default: the developer); a list too
  --agents FILE      an agents file (else VERI_AGENTS); its "roles" may list each role's agents
  --revisions N      revision leaves a phase may have after a REJECT (default 2)
  --timeout DURATION       each leaf's time limit (else VERI_TIMEOUT, else .tdd/issue-N-timeout, 900 s)
  --idle-timeout DURATION  a leaf with no output and no CPU progress this long is killed-stuck
                     (else VERI_IDLE_TIMEOUT; default 300s, 0 is off); DURATION is 90, 90s, 15m, 1h
  --tests GLOB       files that hold tests, beside the built-in conventions (repeatable), e.g. 'src/**/*.rs':
                     green may change none of them that the red commit has
  --max-cost USD     bail cost-budget once the leaves' reported cost passes USD
  --tracker NAME     local (default: .tdd/issues/N.md) or github (through gh)
  --notify CMD       on done, bail, stop and cost-budget, run CMD (split on spaces, no shell) with the
                     event as JSON on stdin, supervised (60 s); its failure is narrated, never fatal
  --sandbox on|off   every leaf and suite run in a bubblewrap sandbox (default: leap.config.json's
                     sandbox, else LEAP_SANDBOX, else on); without bwrap: exit 2 (apt-get install bubblewrap)
  --detach           start the run in a session of its own, supervised with no time limit of its own
                     (its leaves keep theirs), and return once it holds its lock: one line with its
                     pid and where to poll (leap tdd status --issue N; its output in
                     .tdd/detached/issue-N/run.out and run.err); a run that ends at once (bad input,
                     another run of the issue) is reported with its own error and exit code
  --json             print the result as JSON on stdout (progress goes to stderr); with --detach, the
                     started run as {"pid","supervisor","issue","status","out","err","wait"}

leap.config.json at the repository root (its JSON Schema: @leap/conductor/schemas/leap-config.schema.json)
holds testCommand, testFiles, agents, developer, verifier, planner, timeout, idleTimeout, sandbox,
testNetwork, notify; options win over it, and an unknown key is an error.

The first start records its options in .tdd/issue-N-run.json: "leap tdd run --issue N" alone resumes
with them, and an option given again replaces the recorded one (the narration says so).

Exit codes: 0 done (every step and criterion ticked, draft pull request open); 1 bailed (last line
"bail: CAUSE (CLASS)"); 2 bad input (nothing touched; a resume by a toolchain at another revision than the
run's pin is refused so, unless VERI_NEW_SKILL=1 moves the pin); 3 stopped by request (resume by running again).
With --detach: 0 started; 1 it could not be started (the reason said); else the run's own code when it ended
at once; 2 also another conductor of the issue running (its pid named).
`;

const STATUS_HELP = `Usage: leap tdd status [--issue N] [--dir DIR] [--json]

Where each run of the repository stands (DIR, default the current one): the step in flight, its phase
and attempt, the conductor, the leaves running now and for how long, the last verdict, a pending stop,
and how the run ended when it bailed or stopped. Exit codes: 0; 2 bad input.
`;

const STOP_WORDS = [...STOP_MODES, 'clear'];

const usage = (help: string): string => help.split('\n')[0] as string;

const STOP_HELP = `Usage: leap tdd stop MODE

Asks the running conductor to stop: at-ledger finishes the step in flight; at-leaf stops before the
next leaf; now also ends the running leaf. "clear" withdraws a request. The conductor reads the
request before every launch, exits 3 and says where it stopped; running it again resumes.
Exit codes: 0 written; 2 bad input.
`;

const valued = <K extends string>(...names: K[]) =>
  Object.fromEntries(names.map((name) => [name, { type: 'string' }])) as { [N in K]: { type: 'string' } };

const RUN_OPTIONS = {
  ...valued('issue', 'test-cmd', 'plan', 'developer', 'verifier', 'planner', 'agents', 'revisions', 'max-cost'),
  ...valued('tracker', 'notify', 'timeout', 'idle-timeout', 'sandbox'),
  tests: { type: 'string', multiple: true },
  'allow-same-family': { type: 'boolean' },
  json: { type: 'boolean' },
  detach: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const tddMain: Subcommand = dispatcher(
  'leap tdd',
  {
    run: {
      summary: 'drive issue N end to end, test-first, with agents (resumes where a run ended)',
      load: async () => runCommand,
    },
    status: {
      summary: 'where each run of this repository stands, from its files (--json)',
      load: async () => statusCommand,
    },
    stop: {
      summary: 'ask the running conductor to stop: at-ledger, at-leaf, now; or clear',
      load: async () => stopCommand,
    },
  },
  {
    footer: [
      'leap tdd ACTION --help tells more.',
      'Exit codes (leap tdd run): 0 done; 1 bailed; 2 bad input; 3 stopped by request.',
    ],
  },
);

function count(name: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const ok = integer ? /^[0-9]+$/.test(value) : /^[0-9]+(\.[0-9]+)?$/.test(value);
  const what = `a non-negative ${integer ? 'integer' : 'number'}`;
  if (!ok) throw new UsageError(`Expected --${name} to be ${what}, got ${JSON.stringify(value)}`);
  return Number(value);
}

async function runCommand(argv: string[], io: SubcommandIo): Promise<number> {
  const { values } = parseCli(argv, RUN_OPTIONS, usage(RUN_HELP), { allowPositionals: false });
  if (values.help === true) return (io.stdout(RUN_HELP), 0);
  if (values.issue === undefined) throw new UsageError(`expected --issue N\n${usage(RUN_HELP)}`);
  const issue = checkIssue(values.issue, '--issue');
  const trackerName = values.tracker;
  if (trackerName !== undefined && trackerName !== 'local' && trackerName !== 'github')
    throw new UsageError(`Expected --tracker to be local or github, got ${JSON.stringify(trackerName)}`);
  const json = values.json === true;
  if (values.detach === true) {
    count('revisions', values.revisions, true);
    count('max-cost', values['max-cost'], false);
    // As an element of its own, `--detach` is never an option's value (parseArgs refuses `--opt --detach`).
    const args = argv.filter((a) => a !== '--detach');
    return detachTdd(issue, args, json, io);
  }
  const notify = values.notify === undefined ? undefined : (await import('@leap/supervise')).splitNotify(values.notify);
  const [{ runTdd }, { sandboxFlag }] = await Promise.all([import('./run-tdd.js'), import('@leap/verify')]);
  const result = await runTdd({
    cwd: io.cwd,
    env: io.env,
    issue,
    testCmd: values['test-cmd'],
    planFile: values.plan,
    developer: values.developer,
    verifier: values.verifier,
    planner: values.planner,
    agentsFile: values.agents,
    revisions: count('revisions', values.revisions, true),
    maxCost: count('max-cost', values['max-cost'], false),
    trackerName,
    timeout: values.timeout,
    idleTimeout: values['idle-timeout'],
    tests: values.tests,
    allowSameFamily: values['allow-same-family'] === true ? true : undefined,
    notify,
    progress: (line: string) => (json ? io.stderr(`${line}\n`) : io.stdout(`${line}\n`)),
    warn: (line: string) => io.stderr(`${line}\n`),
    sandbox: sandboxFlag(values.sandbox),
  });
  if (json) io.stdout(`${JSON.stringify(result)}\n`);
  else if (result.outcome === 'stopped') io.stdout(`stopped: ${result.stoppedAt}\n`);
  return result.code;
}

async function statusCommand(argv: string[], io: SubcommandIo): Promise<number> {
  const options = { ...valued('issue', 'dir'), json: RUN_OPTIONS.json, help: RUN_OPTIONS.help };
  const { values } = parseCli(argv, options, usage(STATUS_HELP), { allowPositionals: false });
  if (values.help === true) return (io.stdout(STATUS_HELP), 0);
  const issue = values.issue === undefined ? undefined : checkIssue(values.issue, '--issue');
  const { readTddStatus, formatTddStatus } = await import('./status.js');
  const statuses = readTddStatus({ cwd: dirOption(io.cwd, values.dir), env: io.env, issue });
  const json = issue === undefined ? statuses : statuses[0];
  io.stdout(values.json === true ? `${JSON.stringify(json)}\n` : formatTddStatus(statuses));
  return 0;
}

async function stopCommand(argv: string[], io: SubcommandIo): Promise<number> {
  const { values, positionals } = parseCli(argv, { help: { type: 'boolean', short: 'h' } }, usage(STOP_HELP));
  if (values.help === true) return (io.stdout(STOP_HELP), 0);
  const mode = positionals[0] ?? '';
  if (positionals.length !== 1 || !STOP_WORDS.includes(mode)) {
    const got = positionals.length === 1 ? JSON.stringify(mode) : `${positionals.length} arguments`;
    throw new UsageError(`expected one MODE, one of ${STOP_WORDS.join(', ')}; got ${got}\n${usage(STOP_HELP)}`);
  }
  const paths = statePaths(resolveStateDir(io.env, io.cwd));
  const context = readEventContext(paths.dir, io.env);
  const written = mode === 'clear' ? null : requestStop(paths.stop, mode);
  if (written === null) clearStop(paths.stop);
  const action = written === null ? 'cleared' : 'requested';
  appendEvent(paths.events, createEvent('stop', { mode: written, action }, context));
  io.stdout(written === null ? 'stop request cleared\n' : `stop requested: ${written}\n`);
  return 0;
}

// `--detach` through @leap/supervise's detachRun, its files in `<state>/detached/issue-N/`: prints where to poll, or,
// when the run ended at once, what it said, and returns its exit code.
async function detachTdd(issue: number, args: string[], json: boolean, io: SubcommandIo): Promise<number> {
  const stateDir = resolveStateDir(io.env, repoRootOf(io.cwd));
  const lockFile = statePaths(stateDir).conductorLock(issue);
  const holder = () => {
    const h = readLockHolder(lockFile);
    return h !== null && isProcessAlive(h) ? h.pid : null;
  };
  const running = holder();
  if (running !== null) throw lockedError(issue, running, lockFile);
  const { detachRun } = await import('@leap/supervise');
  const run = await detachRun({
    stateDir,
    name: `issue-${issue}`,
    args: ['tdd', 'run', ...args],
    cwd: io.cwd,
    env: io.env,
    lockHolder: holder,
  });
  const status = `leap tdd status --issue ${issue}`;
  if (!run.started) {
    io.stdout(run.stdout);
    io.stderr(run.stderr);
    return run.code;
  }
  const { pid, supervisor, out, err, wait } = run;
  io.stdout(
    json
      ? `${JSON.stringify({ pid, supervisor, issue, status, out, err, wait })}\n`
      : `issue ${issue}: run started detached, pid ${pid} (supervisor ${supervisor}); poll: ${status}; ` +
          `output: ${out} and ${err}\n`,
  );
  return 0;
}

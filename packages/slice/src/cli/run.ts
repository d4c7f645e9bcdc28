import { resolve } from 'node:path';
import { UsageError, findRepoRoot, isProcessAlive, readLockHolder, resolveStateDir, shellWord } from '@leap/core';
import { showValue, type Subcommand, type SubcommandIo } from '@leap/core';
import { liveEngine, sliceBusy, sliceLockFile } from '../slice-lock.js';
import { oneFile, parseWithRunner } from './_file-command.js';

const USAGE = `\
Usage: leap slice run FILE [--jobs N] [--agents FILE] [--builder A,B] [--reviewers A,B] [--alternates X,Y] \
[--max-cost USD] [--notify CMD] [--runner NAME [its options]] [--sandbox on|off] [--detach] [--json]
Runs the slice's balls in waves, in dependency order, at most N at once (default the machine's
parallelism, capped by the balls), each in its own git
worktree on branch leap/SLICE/BALL: at most four rounds of a supervised builder leaf build-BALL-N; after each,
the engine runs the proof, lists the changed paths (an edit outside the scope is -1), hashes the candidate,
keeps or reverts it against the champion (a tie loses), convenes the blind jury, runs the proof again and
re-hashes. Passed balls merge onto leap/SLICE/spine; the aggregate jury judges the whole change; only a
passed slice gets .leap/SLICE/record.json. Running it again resumes: what passed is not rebuilt.
Options:
  --jobs N           balls built at once (default os.availableParallelism(), at most the slice's balls)
  --agents FILE      an agents file (default VERI_AGENTS)
  --builder LIST     the builders, in order (default the agents file's roles.builder, else claude): the first
                     builds; when its vendor runs dry (quota, rate limit, overload) the round is built again
                     by the next, not counted, and the dry one is skipped for the rest of the run
  --reviewers LIST   comma-separated jury (default claude,codex,gemini; the family of the round's builder is
                     refused, and the jury must be able to sit for every builder of the list)
  --alternates LIST  seated in place of reviewers that never answered
  --max-cost USD     stop spending past this: the balls not yet done are held
  --notify CMD       at the end (done, bail, stop, cost-budget), run CMD (split on spaces, no shell) with
                     the event as JSON on stdin, supervised (60 s); its failure is said, never fatal
                     (default: leap.config.json's "notify", an argv)
  --runner NAME      where balls are built: local (default: worktrees on this machine), or a runner plugin
                     found by name (bullmq is @leap/runner-bullmq: leap worker processes on other machines,
                     through a BullMQ queue on Redis; a package name names any other). A runner adds its
                     own options: leap slice run --runner bullmq --help lists them
  --sandbox on|off   builders write only their ball's worktree, jurors read a throwaway copy, in a bubblewrap
                     sandbox (default LEAP_SANDBOX, else on); without bwrap: exit 2 (apt-get install bubblewrap)
  --detach           start the run in a session of its own, supervised with no time limit of its own (its
                     leaves and proofs keep theirs), and return once it holds the slice's lock: one line with
                     its pid and where to poll (leap slice status FILE; its output in
                     .tdd/detached/slice-ID/run.out and run.err); a run that ends at once (bad input, the
                     slice run by another engine) is reported with its own error and exit code
  --json             print the summary as one JSON object; with --detach, the started run as
                     {"pid","supervisor","slice","status","out","err","wait"}
Exit codes: 0 the slice passed; 1 refused (a ball or the aggregate returned -1); 3 held (some ball 0: run
again to resume); 2 bad input (nothing run, nothing left on disk or in git: an unknown runner, or one whose
options it refuses: with --runner bullmq, no queue secret or a short one, Redis not reachable, a --remote
the repository does not have). With --detach: 0 started, else the run's own code when it ended at once; 1 it
could not be started (the reason said); 2 also a slice another engine (or a detached run) is running.`;

const OPTIONS = {
  jobs: { type: 'string', short: 'j' },
  agents: { type: 'string' },
  builder: { type: 'string' },
  reviewers: { type: 'string' },
  alternates: { type: 'string' },
  'max-cost': { type: 'string' },
  notify: { type: 'string' },
  sandbox: { type: 'string' },
  json: { type: 'boolean' },
  detach: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function configNotify(cwd: string): Promise<string[] | undefined> {
  const root = findRepoRoot(cwd);
  if (root === null) return undefined;
  const { readProjectConfig } = await import('@leap/core/schemas');
  return readProjectConfig(root)?.config.notify;
}

const list = (value: string | undefined) => value?.split(',').flatMap((v) => v.trim() || []);

export const runCommand: Subcommand = async (argv, io) => {
  const { runner, usage, values, positionals, runnerValues } = await parseWithRunner(argv, OPTIONS, USAGE, io.cwd);
  if (values.help === true) return (io.stdout(`${usage}\n`), 0);
  const file = oneFile(positionals, usage);
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1))
    throw new UsageError(`Expected --jobs to be a positive integer, got ${showValue(values.jobs)}`);
  const cost = values['max-cost'];
  const maxCost = cost === undefined ? undefined : Number(cost);
  if (cost !== undefined && !(/^[0-9.]+$/.test(cost) && Number.isFinite(maxCost)))
    throw new UsageError(`Expected --max-cost to be a non-negative number of US dollars, got ${showValue(cost)}`);
  // Detached, the run itself checks the rest (the runner's options too), and its error is said as its own.
  const rest = argv.filter((a) => a !== '--detach');
  if (values.detach === true) return detachSlice(file, rest, values.json === true, io);
  // The runner checks its options before the lock or any record: bad input leaves nothing behind.
  const createRunner = runner === null ? undefined : await runner.prepare(runnerValues, { cwd: io.cwd, env: io.env });
  // A bad leap.config.json is bad input (core's one reader of the project file).
  const notify =
    values.notify !== undefined
      ? (await import('@leap/supervise')).splitNotify(values.notify)
      : await configNotify(io.cwd);
  const [run, { sandboxFlag }] = await Promise.all([import('../engine/run-slice.js'), import('@leap/verify')]);
  const place = { file, cwd: io.cwd, env: io.env, jobs, agentsFile: values.agents, maxCostUsd: maxCost };
  const who = { builder: values.builder, reviewers: list(values.reviewers), alternates: list(values.alternates) };
  const progress = (line: string) => io.stderr(`leap slice: ${line}\n`);
  const sandbox = sandboxFlag(values.sandbox);
  const summary = await run.runSlice({ ...place, ...who, progress, createRunner, notify, sandbox });
  const code = run.sliceExitCode(summary.receipt);
  io.stdout(values.json === true ? `${JSON.stringify({ ...summary, exitCode: code })}\n` : run.renderSummary(summary));
  return code;
};

// `--detach` (supervise's detach-run.ts): prints where to poll, or what a run that ended at once said.
async function detachSlice(file: string, args: string[], json: boolean, io: SubcommandIo): Promise<number> {
  // Bad input is exit 2 before anything starts; the slice's id names the lock and the files.
  const slice = (await import('../definition/read-slice.js')).readSlice(resolve(io.cwd, file));
  const root = findRepoRoot(resolve(io.cwd));
  if (root === null) throw new UsageError(`${file}: leap slice run works in a git repository; ${io.cwd} is not in one`);
  const lockFile = sliceLockFile(root, slice.id);
  const running = liveEngine(root, slice.id);
  if (running !== null) throw sliceBusy(slice.id, running, lockFile);
  const holder = () => {
    const h = readLockHolder(lockFile);
    return h !== null && isProcessAlive(h) ? h.pid : null;
  };
  const where = { stateDir: resolveStateDir(io.env, root), cwd: io.cwd, env: io.env, lockHolder: holder };
  const { detachRun } = await import('@leap/supervise');
  const run = await detachRun({ ...where, name: `slice-${slice.id}`, args: ['slice', 'run', ...args] });
  const status = `leap slice status ${shellWord(file)}`;
  if (!run.started) return (io.stdout(run.stdout), io.stderr(run.stderr), run.code);
  const { pid, supervisor, out, err, wait } = run;
  const said =
    `slice ${slice.id}: run started detached, pid ${pid} (supervisor ${supervisor}); ` +
    `poll: ${status}; output: ${out} and ${err}`;
  io.stdout(`${json ? JSON.stringify({ pid, supervisor, slice: slice.id, status, out, err, wait }) : said}\n`);
  return 0;
}

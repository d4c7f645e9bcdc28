// `leap slice run FILE`: build, prove, judge and merge every ball; progress on stderr, the summary on stdout.
import { resolve } from 'node:path';
import { UsageError, parseCli, showValue, type Subcommand } from '@leap/core';

const USAGE = `Usage: leap slice run FILE [--jobs N] [--agents FILE] [--builder NAME] [--reviewers A,B] [--alternates X,Y] [--max-cost USD] [--runner local|bullmq --redis URL [--remote R] [--secret-file FILE]] [--sandbox on|off] [--json]
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
  --builder NAME     the builder agent (default claude)
  --reviewers LIST   comma-separated jury (default claude,codex,gemini; the builder's family is refused)
  --alternates LIST  seated in place of reviewers that never answered
  --max-cost USD     stop spending past this: the balls not yet done are held
  --sandbox on|off   builders write only their ball's worktree, jurors read a throwaway copy, in a bubblewrap
                     sandbox (default LEAP_SANDBOX, else on); without bwrap: exit 2 (apt-get install bubblewrap)
  --runner NAME      where balls are built: local (default: worktrees on this machine) or bullmq (leap
                     worker processes on other machines, through a BullMQ queue on Redis)
  --redis URL        the Redis server of the bullmq runner (redis://HOST:PORT; default LEAP_REDIS_URL)
  --remote R         the bullmq runner's shared remote, a remote name, path or git URL every worker
                     clones (default origin); each round's commit is pushed there, each result fetched back
  --secret-file FILE the bullmq runner's queue secret, shared with every worker (default
                     LEAP_QUEUE_SECRET; at least 16 characters, never on the command line)
  --json             print the summary as one JSON object
Exit codes: 0 the slice passed; 1 refused (a ball or the aggregate returned -1); 3 held (some ball 0: run
again to resume); 2 bad input (nothing run, nothing left on disk or in git: with --runner bullmq, no
queue secret or a short one, Redis not reachable, a --remote the repository does not have).`;

const list = (value: string | undefined) => value?.split(',').map((v) => v.trim()).filter((v) => v !== '');

export const runCommand: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, {
    jobs: { type: 'string', short: 'j' }, agents: { type: 'string' }, builder: { type: 'string' }, reviewers: { type: 'string' },
    alternates: { type: 'string' }, 'max-cost': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    runner: { type: 'string' }, redis: { type: 'string' }, sandbox: { type: 'string' }, remote: { type: 'string' }, 'secret-file': { type: 'string' },
  }, USAGE);
  if (values.help === true) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`expected one slice FILE, got ${positionals.length}\n${USAGE}`);
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1)) throw new UsageError(`Expected --jobs to be a positive integer, got ${showValue(values.jobs)}`);
  const maxCost = values['max-cost'] === undefined ? undefined : Number(values['max-cost']);
  if (maxCost !== undefined && !(Number.isFinite(maxCost) && maxCost >= 0 && /^[0-9.]+$/.test(values['max-cost'] as string))) {
    throw new UsageError(`Expected --max-cost to be a non-negative number of US dollars, got ${showValue(values['max-cost'])}`);
  }
  const createRunner = await chooseRunner(values.runner, { redis: values.redis, remote: values.remote, secretFile: values['secret-file'] }, io.cwd, io.env);
  const [{ runSlice }, { sandboxFlag }] = await Promise.all([import('../engine/run-slice.js'), import('@leap/verify')]);
  const { renderSummary } = await import('../engine/summary.js');
  const summary = await runSlice({
    file: positionals[0] as string, cwd: io.cwd, env: io.env, jobs, agentsFile: values.agents, builder: values.builder,
    reviewers: list(values.reviewers), alternates: list(values.alternates), maxCostUsd: maxCost,
    progress: (line) => io.stderr(`leap slice: ${line}\n`), createRunner, sandbox: sandboxFlag(values.sandbox),
  });
  io.stdout(values.json === true ? `${JSON.stringify(summary)}\n` : renderSummary(summary));
  return summary.exitCode;
};

type CreateRunner = NonNullable<import('../engine/run-slice.js').RunSliceOptions['createRunner']>;

// The runner by name: the local one, or a runner plugin loaded only when asked for (so @leap/slice starts
// fast and installs without BullMQ). The queue secret, the remote and Redis are checked before anything
// runs: before the slice's lock is taken or a record written, so bad input leaves nothing behind.
async function chooseRunner(name: string | undefined, given: { redis?: string; remote?: string; secretFile?: string }, cwd: string, env: NodeJS.ProcessEnv): Promise<CreateRunner | undefined> {
  const { redis, remote, secretFile } = given;
  if (name === undefined || name === 'local') {
    if (redis !== undefined || remote !== undefined || secretFile !== undefined) throw new UsageError(`--redis, --remote and --secret-file are options of --runner bullmq; the runner is ${name ?? 'local'}`);
    return undefined;
  }
  if (name !== 'bullmq') throw new UsageError(`Expected --runner to be local or bullmq, got ${showValue(name)}`);
  const plugin = '@leap/runner-bullmq';
  let loaded: {
    checkRedisUrl(url: string | undefined, option?: string, env?: NodeJS.ProcessEnv): string;
    readQueueSecret(env: NodeJS.ProcessEnv, file?: string): Buffer;
    checkRemote(cwd: string, remote: string, env: NodeJS.ProcessEnv): Promise<void>;
    ping(url: string): Promise<void>;
    createBullmqRunner(options: object): import('../engine/round-types.js').SliceRunner;
  };
  try {
    loaded = await import(plugin) as typeof loaded;
  } catch (error) {
    throw new UsageError(`--runner bullmq needs the package ${plugin}, which did not load: ${(error as Error).message}`);
  }
  const url = loaded.checkRedisUrl(redis, '--redis', env);
  const secret = loaded.readQueueSecret(env, secretFile === undefined ? undefined : resolve(cwd, secretFile));
  await loaded.checkRemote(cwd, remote ?? 'origin', env);
  await loaded.ping(url);
  return (context) => loaded.createBullmqRunner({ redis: url, remote, secret, repoRoot: context.repoRoot, stateDir: context.stateDir, env: context.env });
}

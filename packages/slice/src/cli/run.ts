// `leap slice run FILE`: build, prove, judge and merge every ball; progress on stderr, the summary on stdout.
import { UsageError, parseCli, showValue, type Subcommand } from '@leap/core';

const USAGE = `Usage: leap slice run FILE [--jobs N] [--agents FILE] [--builder NAME] [--reviewers A,B] [--alternates X,Y] [--max-cost USD] [--runner local|bullmq --redis URL [--remote R]] [--json]
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
  --runner NAME      where balls are built: local (default: worktrees on this machine) or bullmq (leap
                     worker processes on other machines, through a BullMQ queue on Redis)
  --redis URL        the Redis server of the bullmq runner (redis://HOST:PORT)
  --remote R         the bullmq runner's shared remote, a remote name or git URL every worker clones
                     (default origin); each round's commit is pushed there, each result fetched back
  --json             print the summary as one JSON object
Exit codes: 0 the slice passed; 1 refused (a ball or the aggregate returned -1); 3 held (some ball 0: run
again to resume); 2 bad input (nothing run, nothing left on disk or in git).`;

const list = (value: string | undefined) => value?.split(',').map((v) => v.trim()).filter((v) => v !== '');

export const runCommand: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, {
    jobs: { type: 'string', short: 'j' }, agents: { type: 'string' }, builder: { type: 'string' }, reviewers: { type: 'string' },
    alternates: { type: 'string' }, 'max-cost': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    runner: { type: 'string' }, redis: { type: 'string' }, remote: { type: 'string' },
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
  const createRunner = await chooseRunner(values.runner, values.redis, values.remote);
  const { runSlice } = await import('../engine/run-slice.js');
  const { renderSummary } = await import('../engine/summary.js');
  const summary = await runSlice({
    file: positionals[0] as string, cwd: io.cwd, env: io.env, jobs, agentsFile: values.agents, builder: values.builder,
    reviewers: list(values.reviewers), alternates: list(values.alternates), maxCostUsd: maxCost,
    progress: (line) => io.stderr(`leap slice: ${line}\n`), createRunner,
  });
  io.stdout(values.json === true ? `${JSON.stringify(summary)}\n` : renderSummary(summary));
  return summary.exitCode;
};

type CreateRunner = NonNullable<import('../engine/run-slice.js').RunSliceOptions['createRunner']>;

// The runner by name: the local one, or a runner plugin loaded only when asked for (so @leap/slice starts
// fast and installs without BullMQ); Redis is checked before anything runs.
async function chooseRunner(name: string | undefined, redis: string | undefined, remote: string | undefined): Promise<CreateRunner | undefined> {
  if (name === undefined || name === 'local') {
    if (redis !== undefined || remote !== undefined) throw new UsageError(`--redis and --remote are options of --runner bullmq; the runner is ${name ?? 'local'}`);
    return undefined;
  }
  if (name !== 'bullmq') throw new UsageError(`Expected --runner to be local or bullmq, got ${showValue(name)}`);
  const plugin = '@leap/runner-bullmq';
  let loaded: { checkRedisUrl(url: string | undefined): string; ping(url: string): Promise<void>; createBullmqRunner(options: object): import('../engine/round-types.js').SliceRunner };
  try {
    loaded = await import(plugin) as typeof loaded;
  } catch (error) {
    throw new UsageError(`--runner bullmq needs the package ${plugin}, which did not load: ${(error as Error).message}`);
  }
  const url = loaded.checkRedisUrl(redis);
  await loaded.ping(url);
  return (context) => loaded.createBullmqRunner({ redis: url, remote, repoRoot: context.repoRoot, stateDir: context.stateDir, env: context.env });
}

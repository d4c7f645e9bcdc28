// `leap worker` (CONTRACT sections 11 and 12): builds the rounds of LEAP balls taken from the queue.
import { resolve } from 'node:path';
import { UsageError, parseCli, parseDuration, showValue, type Subcommand } from '@leap/core';
import type { RunningWorker } from './worker.js';

export const USAGE = `\
Usage: leap worker --redis URL --repo GIT_URL [--agents FILE] [--secret-file FILE] [--jobs N] [--dir DIR] [--name NAME]
                   [--label FAMILY]... [--max-leaf DURATION]
Takes rounds of LEAP balls from the BullMQ queue on Redis (queued by \`leap slice run --runner bullmq\`),
checks each job against its schema (a bad one is refused, nothing run), builds it in a worktree of its own clone \
of GIT_URL at the round's commit (the ball's base plus its
dependencies' merged work, plus its earlier rounds), runs the round as the local runner does (the builder
leaf, the proof, the jury) with this machine's own agents file, pushes leap/SLICE/BALL to GIT_URL and returns \
the receipt and the candidate.
One line per job on stderr. TERM or INT: takes no more jobs, finishes the rounds in flight, or hands back
those whose leaf the signal ended (another worker builds them), exits 0; with Redis not answering it does
not wait for it and exits 0 at once. A worker killed outright loses at most its rounds in flight: BullMQ's
stalled check gives them to another worker.
A remote it cannot clone is said at start; a remote it cannot reach: the job goes back to the queue and the
worker steps aside for a while.
Options:
  --redis URL    the Redis server (redis://HOST:PORT; default LEAP_REDIS_URL, which keeps a password out of ps)
  --repo GIT_URL the shared remote: a bare repository path, file://, ssh
  --agents FILE  this machine's agents file, the only one its rounds use (jobs carry none; default the
                 built-in agents and VERI_AGENTS)
  --secret-file FILE  the queue secret shared with the engines (default LEAP_QUEUE_SECRET; at least 16
                 characters, never on the command line): unsigned or wrongly signed jobs are refused
  --jobs N       rounds built at once (default 1)
  --dir DIR      this machine's folder for the clone, worktrees and leaves (default .leap-worker)
  --name NAME    the worker's name in the records and in leap workers (default HOST:PID)
  --label FAMILY an agent family this worker runs (repeatable; claude reads as anthropic): it takes only rounds
                 whose builder's and reviewers' families are all among its labels, and hands the others back
                 (no attempt spent); each one must be the family of an agent installed here. None: every round
  --max-leaf DURATION  this worker's own cap on each leaf's time limit (the builder, each proof, each
                 reviewer: 90, 30s, 10m, 1h), whatever the job says; default the job's
A drain (leap workers drain NAME|--all): finishes the rounds in hand, takes no more, exits 0.
Environment: LEAP_BULLMQ_LOCK_MS (a job's lock, default 30000), LEAP_BULLMQ_STALLED_MS (the stalled
check, default the lock), LEAP_BULLMQ_RETRY_MS (how long a worker steps aside after a remote failure, 5000),
LEAP_BULLMQ_HEARTBEAT_MS (its heartbeat in Redis, 5000; dead past three of them),
GIT_SSH_COMMAND (how git reaches an ssh remote; default ssh -o BatchMode=yes: git never prompts).
No password, token or secret is printed: URLs are shown with *** in their place.
Exit codes: 0 stopped by TERM or INT, or drained; 2 bad input (an option missing or malformed, no queue
secret or a short one, a --label no installed agent has, Redis not reachable).`;

const t = { type: 'string' } as const;
const OPTIONS = { redis: t, repo: t, agents: t, 'secret-file': t, jobs: { ...t, short: 'j' } } as const;
const MORE = { dir: t, name: t, label: { ...t, multiple: true }, 'max-leaf': t } as const;

export const workerCommand: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, { ...OPTIONS, ...MORE, help: { type: 'boolean', short: 'h' } }, USAGE);
  if (values.help === true) return (io.stdout(`${USAGE}\n`), 0);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${showValue(positionals[0])}\n${USAGE}`);
  const { checkRedisUrl, ping } = await import('./redis.js');
  const redis = checkRedisUrl(values.redis, '--redis', io.env);
  if (values.repo === undefined || values.repo === '')
    throw new UsageError('--repo GIT_URL is required (the shared remote every machine reaches)');
  const jobs = values.jobs === undefined ? 1 : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new UsageError(`Expected --jobs to be a positive integer, got ${showValue(values.jobs)}`);
  const named = 'a non-empty name without control characters';
  if (values.name === '' || (values.name !== undefined && /\p{Cc}/u.test(values.name)))
    throw new UsageError(`Expected --name to be ${named}, got ${showValue(values.name)}`);
  const agents = values.agents === undefined ? undefined : resolve(io.cwd, values.agents);
  if (agents !== undefined) {
    const { loadAgentRegistry } = await import('@leap/verify');
    try {
      loadAgentRegistry(agents, io.env);
    } catch (error) {
      throw new UsageError(`--agents ${showValue(values.agents)}: ${(error as Error).message}`);
    }
  }
  const maxLeafMs = values['max-leaf'] === undefined ? 0 : parseDuration('--max-leaf', values['max-leaf']);
  const { checkLabels } = await import('./labels.js');
  const labels = await checkLabels(values.label ?? [], agents, io.env, io.cwd);
  const { readQueueSecret } = await import('./sign.js');
  const secretFile = values['secret-file'];
  const secret = readQueueSecret(io.env, secretFile === undefined ? undefined : resolve(io.cwd, secretFile));
  await ping(redis);
  const { startWorker } = await import('./worker.js');
  const say = (line: string) => io.stderr(`leap worker: ${line}\n`);
  const dir = resolve(io.cwd, values.dir ?? '.leap-worker');
  const options = { redis, repo: values.repo, secret, agents, jobs, dir, name: values.name, labels, maxLeafMs };
  const worker = await startWorker({ ...options, env: io.env, log: say });
  const drained = await stopOrDrain(worker, say);
  await worker.close({ drain: drained });
  if (drained) say(`${worker.name}: drained: the rounds in hand are finished, no more taken`);
  say(`${worker.name}: stopped`);
  return 0;
};

/** True once drained, false on TERM or INT. */
function stopOrDrain(worker: RunningWorker, say: (line: string) => void): Promise<boolean> {
  return new Promise<boolean>((done) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop).off('SIGINT', stop);
      say(`${signal}: taking no more jobs; the rounds in flight are finished, or handed back if their leaf was ended`);
      done(false);
    };
    process.on('SIGTERM', stop).on('SIGINT', stop);
    void worker.drained.then(() => {
      process.off('SIGTERM', stop).off('SIGINT', stop);
      // TERM or INT while draining ends the running leaves (their supervisors'): rounds handed back, closing goes on.
      const late = (signal: NodeJS.Signals) => {
        say(`${signal} while draining: the rounds whose leaf was ended are handed back`);
        worker.signalled();
      };
      process.once('SIGTERM', late).once('SIGINT', late);
      done(true);
    });
  });
}

export { workersCommand } from './workers-cli.js';

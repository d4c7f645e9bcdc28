// Options checked before the slice's lock is taken, so bad input leaves nothing behind (CONTRACT section 8).
import { resolve } from 'node:path';
import { UsageError, showValue, type RunnerModule } from '@leap/core';
import type { SliceRunner } from '@leap/slice';
import { git } from './git.js';
import { checkRedisUrl, ping, withQueue } from './redis.js';
import { checkRemote, remoteKey, sliceJob } from './remote.js';
import { MAX_PRIORITY, createBullmqRunner } from './runner.js';
import { readQueueSecret } from './sign.js';
import { redactUrl } from './text.js';

const REMOTE =
  "the shared remote every worker clones, a remote name, path or git URL (default origin); each round's commit is " +
  'pushed there, each result fetched back';
const SECRET =
  'the queue secret, shared with every worker (default LEAP_QUEUE_SECRET; at least 16 characters, ' +
  'never on the command line)';
const PRIORITY =
  `this slice's rounds before those of slices of a lower priority (0 to ${MAX_PRIORITY}, default 0; ` +
  "BullMQ's job priority)";

export const runner: RunnerModule<SliceRunner> = {
  name: 'bullmq',
  options: {
    redis: { type: 'string', value: 'URL', help: 'the Redis server (redis://HOST:PORT; default LEAP_REDIS_URL)' },
    remote: { type: 'string', value: 'R', help: REMOTE },
    'secret-file': { type: 'string', value: 'FILE', help: SECRET },
    priority: { type: 'string', value: 'N', help: PRIORITY },
  },
  async prepare(values, place) {
    const priority = checkPriority(values.priority);
    const { url, secret, remote } = await checked(values, place);
    const say = (line: string) => process.stderr.write(`leap slice: ${line}\n`);
    return ({ repoRoot, stateDir, env }) =>
      createBullmqRunner({ redis: url, remote, secret, priority, say, repoRoot, stateDir, env });
  },
  // The slice's branches on the remote, then its jobs but active ones (signed, naming the slice and this remote).
  async clean(slice, values, { cwd, env }) {
    const checks = await checked(values, { cwd, env });
    const remote = checks.remote ?? 'origin';
    const lines: string[] = [];
    const heads = (await git(cwd, ['ls-remote', '--heads', '--', remote, `refs/heads/leap/${slice}/*`], env))
      .split('\n')
      .map((line) => line.split('\t')[1])
      .filter((ref): ref is string => ref?.startsWith(`refs/heads/leap/${slice}/`) === true);
    if (heads.length > 0) {
      await git(cwd, ['push', '--quiet', '--', remote, ...heads.map((ref) => `:${ref}`)], env);
      for (const ref of heads)
        lines.push(`deleted the branch ${ref.slice('refs/heads/'.length)} on the remote ${redactUrl(remote)}`);
    }
    const key = await remoteKey(cwd, remote, env);
    await withQueue(checks.url, async (_connection, queue) => {
      for (const job of await queue.getJobs(['completed', 'failed', 'waiting', 'delayed', 'prioritized'])) {
        if (job === undefined || sliceJob(checks.secret, job, slice, key) === undefined) continue;
        const state = await job.getState();
        if (state === 'active') continue;
        await job.remove();
        lines.push(`removed the ${state} job ${job.id}`);
      }
    });
    return lines;
  },
};

// The options of both: Redis's URL, the queue secret, the remote, then Redis answering.
async function checked(values: Record<string, unknown>, { cwd, env }: { cwd: string; env: NodeJS.ProcessEnv }) {
  const given = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  const url = checkRedisUrl(given('redis'), '--redis', env);
  const secretFile = given('secret-file');
  const secret = readQueueSecret(env, secretFile === undefined ? undefined : resolve(cwd, secretFile));
  const remote = given('remote');
  await checkRemote(cwd, remote ?? 'origin', env);
  await ping(url);
  return { url, secret, remote };
}

function checkPriority(given: string | boolean | undefined): number {
  if (given === undefined) return 0;
  const n = typeof given === 'string' && /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (!Number.isInteger(n) || n > MAX_PRIORITY)
    throw new UsageError(`Expected --priority to be an integer from 0 to ${MAX_PRIORITY}, got ${showValue(given)}`);
  return n;
}

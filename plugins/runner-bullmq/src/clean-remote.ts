// A job is the slice's only when signed with the queue secret, naming the slice and this remote; an active one stays.
import { PREFIX, QUEUE, type RoundJob } from './protocol.js';
import { remoteKey } from './remote.js';
import { connect } from './redis.js';
import { git } from './git.js';
import { unseal } from './sign.js';
import { redactUrl } from './text.js';

/** The job's body when it is signed with `secret` and names `slice` and the remote `key`; else undefined. */
export function sliceJob(secret: Buffer, job: { id?: string; data: unknown }, slice: string, key: string) {
  try {
    const data = unseal(secret, 'job', String(job?.id), job?.data) as RoundJob | undefined;
    return data?.request?.slice === slice && data.remote === key ? data : undefined;
  } catch {
    return undefined;
  }
}

type Clean = { cwd: string; slice: string; redis: string; remote: string; secret: Buffer; env: NodeJS.ProcessEnv };

/** What was removed, a line each. */
export async function cleanRemote(options: Clean): Promise<string[]> {
  const { cwd, slice, remote, env } = options;
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
  const { Queue } = await import('bullmq');
  const connection = await connect(options.redis);
  const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
  try {
    for (const job of await queue.getJobs(['completed', 'failed', 'waiting', 'delayed', 'prioritized'])) {
      if (job === undefined || sliceJob(options.secret, job, slice, key) === undefined) continue;
      const state = await job.getState();
      if (state === 'active') continue;
      await job.remove();
      lines.push(`removed the ${state} job ${job.id}`);
    }
  } finally {
    await queue.close();
    connection.disconnect();
  }
  return lines;
}

// `leap workers` (CONTRACT sections 11, 12): the queue's workers, a drain, dead records forgotten, a queue pause.
import { resolve } from 'node:path';
import { UsageError, parseCli, showValue, type Subcommand } from '@leap/core';

const WORKERS_USAGE = `Usage: leap workers [--redis URL] [--secret-file FILE] [--json]
       leap workers drain NAME... | --all [--redis URL] [--secret-file FILE]
       leap workers forget NAME... | --dead [--redis URL] [--secret-file FILE] [--json]
       leap workers pause | resume [--redis URL]
Lists the leap workers of the BullMQ queue on Redis: each one's name, state (live, draining, or dead: no
heartbeat within three of its periods, or its connection gone from BullMQ's registry), host, labels, the
rounds in hand (slice/ball, round, its phase, job) and for how long, and its last heartbeat; \
then the queue's job counts.
Each record is signed with the queue secret over the worker's name: one that is not (written by anyone
with Redis access, or copied from another worker's name) is listed as forged and nothing of it is shown.
A worker stopped by TERM or INT removes its record; a killed one's stays a day, marked dead, until forgotten.
  drain NAME...  the named workers finish the rounds in hand, take no more, and exit 0 (--all: every live one)
  forget NAME... the named dead (or forged) records are removed from the list (--dead: every dead and forged
                 one); a live or draining worker is not forgotten (drain or stop it first)
  pause          no worker takes a round until resume (BullMQ's Queue.pause); rounds in hand go on
  resume         workers take rounds again
Options:
  --redis URL    the Redis server (redis://HOST:PORT; default LEAP_REDIS_URL, which keeps a password out of ps)
  --secret-file FILE  the queue secret the workers sign with (default LEAP_QUEUE_SECRET; never on the
                 command line): the list, drain and forget need it
  --json         the list as JSON ({"queue": {...}, "workers": [...]}); with forget, {"forgotten": [...]}
  --all          with drain: every live worker
  --dead         with forget: every dead or forged record
What a worker wrote to Redis is untrusted text: it is printed with control characters escaped, URLs without
their passwords or tokens, cut to 200 characters. No password, token or secret is printed.
Exit codes: 0 done; 2 bad input (an unknown action or option, drain without NAME or --all, forget without
NAME or --dead, a NAME no worker has a record of, forget of a live or draining worker, no queue secret or a
short one, Redis not reachable).`;

const [t, b] = [{ type: 'string' }, { type: 'boolean' }] as const;
const OPTIONS = { redis: t, 'secret-file': t, json: b, all: b, dead: b, help: { ...b, short: 'h' } } as const;

export const workersCommand: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, OPTIONS, WORKERS_USAGE);
  if (values.help === true) return (io.stdout(`${WORKERS_USAGE}\n`), 0);
  const [action = 'list', ...names] = positionals;
  if (!['list', 'drain', 'forget', 'pause', 'resume'].includes(action))
    throw new UsageError(
      `unknown action ${showValue(action)}: expected drain, forget, pause or resume\n${WORKERS_USAGE}`,
    );
  if (action !== 'drain' && action !== 'forget' && names.length > 0)
    throw new UsageError(`unexpected argument ${showValue(names[0])}\n${WORKERS_USAGE}`);
  if (action === 'drain' && (names.length === 0) === (values.all !== true))
    throw new UsageError(`leap workers drain takes worker names or --all (one of them)\n${WORKERS_USAGE}`);
  if (action === 'forget' && (names.length === 0) === (values.dead !== true))
    throw new UsageError(`leap workers forget takes worker names or --dead (one of them)\n${WORKERS_USAGE}`);
  if (action !== 'drain' && values.all === true) throw new UsageError('--all goes with drain');
  if (action !== 'forget' && values.dead === true) throw new UsageError('--dead goes with forget');
  if (action !== 'list' && action !== 'forget' && values.json === true)
    throw new UsageError('--json goes with the list (leap workers --json) or forget');
  if ((action === 'pause' || action === 'resume') && values['secret-file'] !== undefined)
    throw new UsageError(`--secret-file goes with the list, drain and forget (${action} reads no record)`);
  const { checkRedisUrl, ping } = await import('./redis.js');
  const redis = checkRedisUrl(values.redis, '--redis', io.env);
  // The records are judged by their signatures: no secret, no judgement (pause and resume read none).
  const { readQueueSecret } = await import('./sign.js');
  const secretFile = values['secret-file'] === undefined ? undefined : resolve(io.cwd, values['secret-file']);
  const secret = action === 'pause' || action === 'resume' ? null : readQueueSecret(io.env, secretFile);
  await ping(redis);
  const workers = await import('./workers.js');
  if (secret === null) {
    await workers.pauseQueue(redis, action === 'pause');
    const paused = 'the queue is paused: no worker takes a round until `leap workers resume`; the rounds in hand go on';
    io.stdout(`leap workers: ${action === 'pause' ? paused : 'the queue is resumed: workers take rounds again'}\n`);
    return 0;
  }
  if (action === 'drain') {
    const asked = await workers.drainWorkers(redis, secret, values.all === true ? { all: true } : { names });
    if (asked.length === 0) io.stdout('leap workers: no live worker to drain\n');
    const drains = 'drain asked: it finishes the rounds in hand, takes no more, and exits';
    for (const name of asked) io.stdout(`leap workers: ${workers.safeText(name)}: ${drains}\n`);
    return 0;
  }
  if (action === 'forget') {
    const forgotten = await workers.forgetWorkers(redis, secret, values.dead === true ? { dead: true } : { names });
    if (values.json === true) return (io.stdout(`${JSON.stringify({ forgotten }, null, 2)}\n`), 0);
    if (forgotten.length === 0) io.stdout('leap workers: no dead or forged record to forget\n');
    for (const f of forgotten) {
      const beat = f.heartbeatAgeMs === null ? 'unknown' : `${seconds(f.heartbeatAgeMs)} ago`;
      const what = f.state === 'forged' ? 'a forged record' : `dead, last heartbeat ${beat}`;
      io.stdout(`leap workers: ${f.name}: forgotten (${what})\n`);
    }
    return 0;
  }
  const view = await workers.listWorkers(redis, secret);
  io.stdout(values.json === true ? `${JSON.stringify(view, null, 2)}\n` : renderWorkers(view));
  return 0;
};

const seconds = (ms: number | null) =>
  ms === null ? '?' : ms < 100_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;

function renderWorkers(view: import('./workers.js').WorkersView): string {
  const c = view.queue.counts;
  const waiting = `${(c.waiting ?? 0) + (c.prioritized ?? 0)} waiting, ${c.delayed ?? 0} delayed`;
  const counts = `${waiting}, ${c.active ?? 0} active, ${c.completed ?? 0} completed, ${c.failed ?? 0} failed`;
  const out = [`queue ${view.queue.name}${view.queue.paused ? ' (paused)' : ''}: ${counts}`];
  if (view.workers.length === 0) out.push('no worker has a record: none has started, or all stopped');
  for (const w of view.workers) {
    if (w.state === 'forged') {
      out.push(`${w.name}  forged record (${w.forged}): ignored`);
      continue;
    }
    const labels = w.labels.length === 0 ? 'every family' : w.labels.join(',');
    const beat = w.heartbeat === null ? 'no heartbeat' : `heartbeat ${seconds(w.heartbeatAgeMs)} ago`;
    const host = w.host === '' ? '?' : w.host;
    const hand = `${w.inHand.length}/${w.jobs ?? '?'} in hand`;
    out.push(`${w.name}  ${w.state}  host ${host}  labels ${labels}  ${hand}  ${beat}`);
    for (const h of w.inHand) {
      const phase = h.phase === null ? '' : ` ${h.phase}`;
      out.push(`  ${h.slice}/${h.ball} round ${h.round ?? '?'}${phase} for ${seconds(h.forMs)} (job ${h.job})`);
    }
  }
  return `${out.join('\n')}\n`;
}

// `leap workers` (CONTRACT sections 11 and 12): the workers on the queue, a drain, a pause of the queue.
import { UsageError, parseCli, showValue, type Subcommand } from '@leap/core';

const WORKERS_USAGE = `Usage: leap workers [--redis URL] [--json]
       leap workers drain NAME... | --all [--redis URL]
       leap workers pause | resume [--redis URL]
Lists the leap workers of the BullMQ queue on Redis: each one's name, state (live, draining, or dead: no
heartbeat within three of its periods, or its connection gone from BullMQ's registry), host, labels, the
rounds in hand (slice/ball, round, job) and for how long, and its last heartbeat; then the queue's job counts.
A worker stopped by TERM or INT removes its record; a killed one's stays a day, marked dead.
  drain NAME...  the named workers finish the rounds in hand, take no more, and exit 0 (--all: every live one)
  pause          no worker takes a round until resume (BullMQ's Queue.pause); rounds in hand go on
  resume         workers take rounds again
Options:
  --redis URL    the Redis server (redis://HOST:PORT; default LEAP_REDIS_URL, which keeps a password out of ps)
  --json         the list as JSON ({"queue": {...}, "workers": [...]})
  --all          with drain: every live worker
What a worker wrote to Redis is untrusted text: it is printed with control characters escaped, URLs without
their passwords or tokens, cut to 200 characters. No password, token or secret is printed.
Exit codes: 0 done; 2 bad input (an unknown action or option, drain without NAME or --all, a NAME no
worker has, Redis not reachable).`;

/** `leap workers [drain NAME|--all | pause | resume] [--redis URL] [--json]`. */
export const workersCommand: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, { redis: { type: 'string' }, json: { type: 'boolean' }, all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, WORKERS_USAGE);
  if (values.help === true) {
    io.stdout(`${WORKERS_USAGE}\n`);
    return 0;
  }
  const [action = 'list', ...names] = positionals;
  if (!['list', 'drain', 'pause', 'resume'].includes(action)) throw new UsageError(`unknown action ${showValue(action)}: expected drain, pause or resume\n${WORKERS_USAGE}`);
  if (action !== 'drain' && names.length > 0) throw new UsageError(`unexpected argument ${showValue(names[0])}\n${WORKERS_USAGE}`);
  if (action === 'drain' && (names.length === 0) === (values.all !== true)) throw new UsageError(`leap workers drain takes worker names or --all (one of them)\n${WORKERS_USAGE}`);
  if (action !== 'drain' && values.all === true) throw new UsageError('--all goes with drain');
  if (action !== 'list' && values.json === true) throw new UsageError('--json goes with the list (leap workers --json)');
  const { checkRedisUrl, ping } = await import('./redis.js');
  const redis = checkRedisUrl(values.redis, '--redis', io.env);
  await ping(redis);
  const workers = await import('./workers.js');
  if (action === 'pause' || action === 'resume') {
    await workers.pauseQueue(redis, action === 'pause');
    io.stdout(
      action === 'pause'
        ? 'leap workers: the queue is paused: no worker takes a round until `leap workers resume`; the rounds in hand go on\n'
        : 'leap workers: the queue is resumed: workers take rounds again\n',
    );
    return 0;
  }
  if (action === 'drain') {
    const asked = await workers.drainWorkers(redis, values.all === true ? { all: true } : { names });
    if (asked.length === 0) io.stdout('leap workers: no live worker to drain\n');
    for (const name of asked) io.stdout(`leap workers: ${workers.safeText(name)}: drain asked: it finishes the rounds in hand, takes no more, and exits\n`);
    return 0;
  }
  const view = await workers.listWorkers(redis);
  io.stdout(values.json === true ? `${JSON.stringify(view, null, 2)}\n` : renderWorkers(view));
  return 0;
};

const seconds = (ms: number | null) => (ms === null ? '?' : ms < 100_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`);

/** The list as text: one line per worker, one more per round in hand. */
function renderWorkers(view: import('./workers.js').WorkersView): string {
  const c = view.queue.counts;
  const out = [
    `queue ${view.queue.name}${view.queue.paused ? ' (paused)' : ''}: ${(c.waiting ?? 0) + (c.prioritized ?? 0)} waiting, ${c.delayed ?? 0} delayed, ${c.active ?? 0} active, ${c.completed ?? 0} completed, ${c.failed ?? 0} failed`,
  ];
  if (view.workers.length === 0) out.push('no worker has a record: none has started, or all stopped');
  for (const w of view.workers) {
    if (w.unreadable !== undefined) {
      out.push(`${w.name}  unreadable record (${w.unreadable})`);
      continue;
    }
    const labels = w.labels.length === 0 ? 'every family' : w.labels.join(',');
    const beat = w.heartbeat === null ? 'no heartbeat' : `heartbeat ${seconds(w.heartbeatAgeMs)} ago`;
    out.push(`${w.name}  ${w.state}  host ${w.host === '' ? '?' : w.host}  labels ${labels}  ${w.inHand.length}/${w.jobs ?? '?'} in hand  ${beat}`);
    for (const h of w.inHand) out.push(`  ${h.slice}/${h.ball} round ${h.round ?? '?'} for ${seconds(h.forMs)} (job ${h.job})`);
  }
  return `${out.join('\n')}\n`;
}

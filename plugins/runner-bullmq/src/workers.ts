// `leap workers` as a library (CONTRACT section 11): the workers' heartbeat records read back and judged live or
// dead, BullMQ's own registry of connected workers and its job counts beside them; a drain asked of workers; the
// queue paused or resumed. Every record is untrusted (anyone with Redis access can write one): its text comes
// back escaped, URLs masked, known secrets replaced, and a record that is not one is listed as unreadable.
import { LeapError } from '@leap/core';
import type { Redis } from 'ioredis';
import { DRAIN_PREFIX, HEART_PREFIX, RECORD_KEEP_MS, clientSafeName } from './heartbeat.js';
import { PREFIX, QUEUE } from './protocol.js';
import { connect } from './redis.js';
import { redact, redactUrl, secretsOf, showText } from './text.js';

/** One worker as `leap workers` shows it. */
export interface WorkerView {
  name: string;
  /**
   * live: a fresh heartbeat and connected; draining: a drain asked (or it is stopping), its heartbeat fresh; dead: no
   * heartbeat within its TTL, or (not draining) gone from BullMQ's registry.
   */
  state: 'live' | 'draining' | 'dead';
  host: string;
  pid: number | null;
  labels: string[];
  jobs: number | null;
  /** The last heartbeat (ISO time) and its age in ms when read. */
  heartbeat: string | null;
  heartbeatAgeMs: number | null;
  /** Whether BullMQ lists a connection of this worker (null: Redis would not list its clients, so the heartbeat alone judges). */
  connected: boolean | null;
  inHand: { job: string; slice: string; ball: string; round: number | null; since: string | null; forMs: number | null }[];
  /** Why the record could not be read as a worker's (then everything but the name is empty). */
  unreadable?: string;
}

/** What `leap workers` shows. */
export interface WorkersView {
  queue: { name: string; paused: boolean; counts: Record<string, number> };
  workers: WorkerView[];
}

/** Everything `leap workers` prints of a record, made safe: URLs masked, `secrets` replaced, control characters escaped, cut to 200 characters. */
export function safeText(value: unknown, secrets: readonly string[] = []): string {
  const text = typeof value === 'string' ? value : '';
  const masked = text.replace(/[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>\u0000-\u001f\u007f-\u009f]*/g, (url) => {
    const shown = redactUrl(url);
    // Not a URL node can read (`redis://:pw@`): a user part with a colon is masked anyway.
    return shown === url ? url.replace(/\/\/([^/@\s]*:)[^/@\s]*@/, '//$1***@') : shown;
  });
  const shown = showText(redact(masked, secrets));
  return shown.length > 200 ? `${shown.slice(0, 199)}…` : shown;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The records and the queue, as `leap workers` lists them. `secrets`: what must never be printed (the Redis URL's password). */
export async function listWorkers(redis: string, secrets: readonly string[] = secretsOf(redis), now = Date.now): Promise<WorkersView> {
  return withQueue(redis, async (connection, queue) => {
    const keys = await scanKeys(connection, `${HEART_PREFIX}*`);
    const values = keys.length === 0 ? [] : await connection.mget(...keys);
    const drains = new Set((await scanKeys(connection, `${DRAIN_PREFIX}*`)).map((k) => k.slice(DRAIN_PREFIX.length)));
    // A Redis that refuses CLIENT LIST (an ACL, a managed service) leaves the heartbeats alone to judge.
    const clients = await queue.getWorkers().catch(() => null);
    const connected = clients === null || clients.some((c) => (c as { rawname?: unknown }).rawname === undefined) ? null : new Set(clients.map((c) => String((c as { rawname?: unknown }).rawname)));
    const clientPrefix = `${PREFIX}:${Buffer.from(QUEUE).toString('base64')}:w:`;
    const at = now();
    const workers = keys.map((key, i) => readRecord(key.slice(HEART_PREFIX.length), values[i] ?? null, { at, drains, connected, clientPrefix, secrets }));
    workers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const paused = await queue.isPaused();
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed');
    return { queue: { name: QUEUE, paused, counts }, workers };
  });
}

function readRecord(key: string, raw: string | null, seen: { at: number; drains: Set<string>; connected: Set<string> | null; clientPrefix: string; secrets: readonly string[] }): WorkerView {
  const safe = (v: unknown) => safeText(v, seen.secrets);
  const empty: WorkerView = { name: safe(key), state: 'dead', host: '', pid: null, labels: [], jobs: null, heartbeat: null, heartbeatAgeMs: null, connected: false, inHand: [] };
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw ?? '');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    record = parsed as Record<string, unknown>;
  } catch {
    return { ...empty, unreadable: 'not a JSON object' };
  }
  // The key names the worker (its drain flag and BullMQ's connection use that name); a record saying another is not it.
  if (record.name !== key) return { ...empty, unreadable: 'its name is not its key' };
  const beat = num(record.beat);
  const ttl = num(record.ttlMs);
  const ttlMs = ttl !== null && ttl > 0 && ttl <= RECORD_KEEP_MS ? ttl : 15_000;
  const age = beat === null ? null : Math.max(0, seen.at - beat);
  // BullMQ's list names each worker's connection after it (clientSafeName: Redis takes no space or byte past ~ there).
  const connected = seen.connected === null ? null : seen.connected.has(seen.clientPrefix + clientSafeName(key));
  const fresh = age !== null && age <= ttlMs;
  const inHand = (Array.isArray(record.inHand) ? record.inHand : []).slice(0, 64).map((h: unknown) => {
    const r = (h !== null && typeof h === 'object' ? h : {}) as Record<string, unknown>;
    const since = num(r.since);
    return {
      job: safe(r.job),
      slice: safe(r.slice),
      ball: safe(r.ball),
      round: num(r.round),
      since: since === null ? null : safeIso(since),
      forMs: since === null ? null : Math.max(0, seen.at - since),
    };
  });
  const draining = record.draining === true || seen.drains.has(key);
  return {
    name: safe(key),
    // A draining worker has closed its BullMQ connections (it takes no more): its heartbeat alone says it lives.
    state: !fresh || (connected === false && !draining) ? 'dead' : draining ? 'draining' : 'live',
    host: safe(record.host),
    pid: num(record.pid),
    labels: (Array.isArray(record.labels) ? record.labels : []).slice(0, 32).map(safe),
    jobs: num(record.jobs),
    heartbeat: beat === null ? null : safeIso(beat),
    heartbeatAgeMs: age,
    connected,
    inHand,
  };
}

const safeIso = (ms: number) => {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
};

/** Ask `names` (every live worker with `all`) to drain: finish the rounds in hand, take no more. Returns who was asked. */
export async function drainWorkers(redis: string, target: { names: string[] } | { all: true }): Promise<string[]> {
  const view = await listWorkers(redis);
  const raw = await withQueue(redis, (connection) => scanKeys(connection, `${HEART_PREFIX}*`)).then((keys) => keys.map((k) => k.slice(HEART_PREFIX.length)));
  let names: string[];
  if ('all' in target) {
    // The raw names of the live workers (the view's are escaped for printing).
    names = raw.filter((n) => view.workers.some((w) => w.name === safeText(n) && w.state !== 'dead'));
  } else {
    for (const name of target.names) {
      if (!raw.includes(name)) {
        const known = view.workers.map((w) => w.name).join(', ');
        throw new LeapError(`no worker named ${JSON.stringify(safeText(name))}${known === '' ? ' (no worker has a record)' : ` (the workers: ${known})`}`, { exitCode: 2 });
      }
    }
    names = target.names;
  }
  await withQueue(redis, async (connection) => {
    for (const name of names) await connection.set(DRAIN_PREFIX + name, JSON.stringify({ at: Date.now() }), 'PX', RECORD_KEEP_MS);
  });
  return names;
}

/** Pause (or resume) the whole queue: no worker takes a round while it is paused; the rounds in hand go on. */
export async function pauseQueue(redis: string, pause: boolean): Promise<void> {
  await withQueue(redis, (_connection, queue) => (pause ? queue.pause() : queue.resume()));
}

async function withQueue<T>(redis: string, act: (connection: Redis, queue: import('bullmq').Queue) => Promise<T>): Promise<T> {
  const { Queue } = await import('bullmq');
  const connection = await connect(redis);
  const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
  queue.on('error', () => {});
  try {
    return await act(connection, queue);
  } finally {
    await queue.close().catch(() => undefined);
    connection.disconnect();
  }
}

async function scanKeys(connection: Redis, match: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await connection.scan(cursor, 'MATCH', match, 'COUNT', 200);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0' && keys.length < 10_000);
  return [...new Set(keys)].sort();
}

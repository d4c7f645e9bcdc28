// Every record is untrusted: one not signed for its name is forged, none of it believed; a signed one's text escaped.
import { LeapError, showText } from '@leap/core';
import type { Redis } from 'ioredis';
import { DRAIN_PREFIX, HEART_PREFIX, RECORD_KEEP_MS, clientSafeName, readDrain, sealDrain } from './heartbeat.js';
import { PHASES, type Phase } from './progress.js';
import { PREFIX, QUEUE } from './protocol.js';
import { connect } from './redis.js';
import { unseal } from './sign.js';
import { redact, redactUrl, secretsOf } from './text.js';

export interface WorkerView {
  name: string;
  /** dead: no heartbeat within its TTL, or (not draining) not in BullMQ's registry; forged: not signed for its name. */
  state: 'live' | 'draining' | 'dead' | 'forged';
  host: string;
  pid: number | null;
  labels: string[];
  jobs: number | null;
  /** The last heartbeat (ISO time) and its age in ms when read. */
  heartbeat: string | null;
  heartbeatAgeMs: number | null;
  /** Whether BullMQ lists a connection of this worker (null: Redis would not list clients; the heartbeat judges). */
  connected: boolean | null;
  /** Where the round is on the worker (taken, fetching, building, proving, reviewing, pushing); null: not said. */
  inHand: {
    job: string;
    slice: string;
    ball: string;
    round: number | null;
    phase: Phase | null;
    since: string | null;
    forMs: number | null;
  }[];
  /** With state forged: why the record is not a worker's (unsigned, wrongly signed, ...). */
  forged?: string;
}

export interface WorkersView {
  queue: { name: string; paused: boolean; counts: Record<string, number> };
  workers: WorkerView[];
}

/** What `leap workers` prints of a record, made safe: URLs masked, `secrets` replaced, controls escaped, 200 chars. */
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

/** `leap workers`' records and queue. `secret` signs the records; `secrets`: never printed (the Redis password). */
export async function listWorkers(
  redis: string,
  secret: Buffer,
  secrets: readonly string[] = secretsOf(redis),
  now = Date.now,
): Promise<WorkersView> {
  return withQueue(redis, async (connection, queue) => {
    const judged = await judgeWorkers(connection, queue, secret, secrets, now());
    const paused = await queue.isPaused();
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed');
    return { queue: { name: QUEUE, paused, counts }, workers: judged.map((j) => j.view) };
  });
}

/** Each record's raw name (its key) and its view, sorted by name. */
async function judgeWorkers(
  connection: Redis,
  queue: import('bullmq').Queue,
  secret: Buffer,
  secrets: readonly string[],
  at: number,
): Promise<{ key: string; view: WorkerView }[]> {
  const keys = await scanKeys(connection, `${HEART_PREFIX}*`);
  const values = keys.length === 0 ? [] : await connection.mget(...keys);
  // A drain flag counts only when it is signed for its worker (a forged one drains nobody: the worker ignores it too).
  const drainKeys = await scanKeys(connection, `${DRAIN_PREFIX}*`);
  const drainValues = drainKeys.length === 0 ? [] : await connection.mget(...drainKeys);
  const drains = new Set(
    drainKeys
      .map((k) => k.slice(DRAIN_PREFIX.length))
      .filter((name, i) => readDrain(secret, name, drainValues[i] ?? null) === 'asked'),
  );
  // A Redis that refuses CLIENT LIST (an ACL, a managed service) leaves the heartbeats alone to judge.
  const clients = await queue.getWorkers().catch(() => null);
  const connected =
    clients === null || clients.some((c) => (c as { rawname?: unknown }).rawname === undefined)
      ? null
      : new Set(clients.map((c) => String((c as { rawname?: unknown }).rawname)));
  const clientPrefix = `${PREFIX}:${Buffer.from(QUEUE).toString('base64')}:w:`;
  const judged = keys.map((key, i) => {
    const name = key.slice(HEART_PREFIX.length);
    return {
      key: name,
      view: readRecord(name, values[i] ?? null, { at, secret, drains, connected, clientPrefix, secrets }),
    };
  });
  return judged.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function readRecord(
  key: string,
  raw: string | null,
  seen: {
    at: number;
    secret: Buffer;
    drains: Set<string>;
    connected: Set<string> | null;
    clientPrefix: string;
    secrets: readonly string[];
  },
): WorkerView {
  const safe = (v: unknown) => safeText(v, seen.secrets);
  const forged = (why: string): WorkerView => ({
    name: safe(key),
    state: 'forged',
    host: '',
    pid: null,
    labels: [],
    jobs: null,
    heartbeat: null,
    heartbeatAgeMs: null,
    connected: null,
    inHand: [],
    forged: why,
  });
  let record: Record<string, unknown>;
  try {
    // Signed over the key's name: a record copied to another name, changed, or unsigned by the secret is no worker's.
    const parsed: unknown = unseal(seen.secret, 'heartbeat', key, JSON.parse(raw ?? ''));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return forged('its signed body is not a JSON object');
    record = parsed as Record<string, unknown>;
  } catch (error) {
    return forged(error instanceof SyntaxError ? 'not JSON, so unsigned' : (error as Error).message);
  }
  // The key names the worker (its drain flag and BullMQ's connection use that name); a record saying another is not it.
  if (record.name !== key) return forged('its name is not its key');
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
      phase: PHASES.includes(r.phase as Phase) ? (r.phase as Phase) : null,
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

/** `names` checked against the records (a name with none, or only a forged one, is exit 2, naming the workers). */
function known(judged: { key: string; view: WorkerView }[], names: string[]): { key: string; view: WorkerView }[] {
  return names.map((name) => {
    const found = judged.find((j) => j.key === name);
    if (found !== undefined && found.view.state !== 'forged') return found;
    const workers = judged.filter((j) => j.view.state !== 'forged').map((j) => j.view.name);
    const there = workers.length === 0 ? 'no worker has a record' : `the workers: ${workers.join(', ')}`;
    const why =
      found === undefined ? '' : ` (its record is forged: ${found.view.forged}; leap workers forget --dead removes it)`;
    throw new LeapError(`no worker named "${safeText(name)}"${why} (${there})`, { exitCode: 2 });
  });
}

/** Ask `names` (all live workers with `all`) to drain: finish rounds in hand, take no more. Returns who (raw names). */
export async function drainWorkers(
  redis: string,
  secret: Buffer,
  target: { names: string[] } | { all: true },
): Promise<string[]> {
  return withQueue(redis, async (connection, queue) => {
    const judged = await judgeWorkers(connection, queue, secret, secretsOf(redis), Date.now());
    const names =
      'all' in target
        ? judged.filter((j) => j.view.state === 'live' || j.view.state === 'draining').map((j) => j.key)
        : known(judged, target.names).map((j) => j.key);
    // Signed, as the worker checks it: a flag written without the secret drains nobody.
    for (const name of names)
      await connection.set(DRAIN_PREFIX + name, sealDrain(secret, name, Date.now()), 'PX', RECORD_KEEP_MS);
    return names;
  });
}

/** A record `leap workers forget` removed: the worker's name (escaped) and what it was. */
export interface Forgotten {
  name: string;
  state: 'dead' | 'forged';
  heartbeatAgeMs: number | null;
}

/** A live or draining worker is not forgotten (exit 2: it writes its record again at its next heartbeat). */
export async function forgetWorkers(
  redis: string,
  secret: Buffer,
  target: { names: string[] } | { dead: true },
): Promise<Forgotten[]> {
  return withQueue(redis, async (connection, queue) => {
    const judged = await judgeWorkers(connection, queue, secret, secretsOf(redis), Date.now());
    const gone = (j: { view: WorkerView }) => j.view.state === 'dead' || j.view.state === 'forged';
    let chosen: { key: string; view: WorkerView }[];
    if ('dead' in target) chosen = judged.filter(gone);
    else {
      chosen = target.names.map((name) => {
        const found = judged.find((j) => j.key === name);
        // A forged record may be forgotten by its name as well.
        if (found?.view.state === 'forged') return found;
        return known(judged, [name])[0] as { key: string; view: WorkerView };
      });
      const alive = chosen.find((j) => !gone(j));
      if (alive !== undefined)
        throw new LeapError(
          `cannot forget "${alive.view.name}": it is ${alive.view.state} ` +
            `(heartbeat ${Math.round((alive.view.heartbeatAgeMs ?? 0) / 100) / 10} s ago), ` +
            'and a live worker writes its record again at its next heartbeat: ' +
            `drain it (leap workers drain ${alive.view.name}) or stop it first`,
          { exitCode: 2 },
        );
    }
    for (const j of chosen) await connection.del(HEART_PREFIX + j.key, DRAIN_PREFIX + j.key);
    return chosen.map((j) => ({
      name: j.view.name,
      state: j.view.state as Forgotten['state'],
      heartbeatAgeMs: j.view.heartbeatAgeMs,
    }));
  });
}

/** Pause (or resume) the whole queue: no worker takes a round while it is paused; the rounds in hand go on. */
export async function pauseQueue(redis: string, pause: boolean): Promise<void> {
  await withQueue(redis, (_connection, queue) => (pause ? queue.pause() : queue.resume()));
}

async function withQueue<T>(
  redis: string,
  act: (connection: Redis, queue: import('bullmq').Queue) => Promise<T>,
): Promise<T> {
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

// Every record is untrusted: one not signed for its name is forged, none of it believed; a signed one's text escaped.
import { LeapError, ROUND_PHASES as PHASES, isJsonObject, showText, type RoundPhase as Phase } from '@leap/core';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { DRAIN_PREFIX, HEART_PREFIX, RECORD_KEEP_MS, clientSafeName, readDrain, sealDrain } from './heartbeat.js';
import { PREFIX, QUEUE } from './protocol.js';
import { withQueue } from './redis.js';
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

export async function listWorkers(redis: string, secret: Buffer): Promise<WorkersView> {
  return withQueue(redis, async (connection, queue) => {
    const judged = await judgeWorkers(connection, queue, secret, redis);
    const paused = await queue.isPaused();
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed');
    return { queue: { name: QUEUE, paused, counts }, workers: judged.map((j) => j.view) };
  });
}

type Judged = { key: string; view: WorkerView };

/** Each record's raw name (its key) and its view, sorted by name; the Redis password is never shown. */
async function judgeWorkers(connection: Redis, queue: Queue, secret: Buffer, redis: string) {
  const at = Date.now();
  const records = await scanValues(connection, HEART_PREFIX);
  // A drain flag counts only when it is signed for its worker (a forged one drains nobody: the worker ignores it too).
  const flags = await scanValues(connection, DRAIN_PREFIX);
  const drains = new Set(flags.filter(([name, raw]) => readDrain(secret, name, raw) === 'asked').map(([name]) => name));
  // A Redis that refuses CLIENT LIST (an ACL, a managed service) leaves the heartbeats alone to judge.
  const clients = (await queue.getWorkers().catch(() => null)) as { rawname?: unknown }[] | null;
  const names = clients?.map((c) => c.rawname);
  const connected = names === undefined || names.includes(undefined) ? null : new Set(names.map(String));
  const seen = { at, secret, drains, connected, secrets: secretsOf(redis) };
  return records.map(([key, raw]): Judged => ({ key, view: readRecord(key, raw, seen) }));
}

const NONE = { host: '', pid: null, labels: [], jobs: null, heartbeat: null, heartbeatAgeMs: null, connected: null };
const asForged = (name: string, forged: string): WorkerView => ({ name, state: 'forged', ...NONE, inHand: [], forged });
// BullMQ's name of a worker's connection: this prefix, then clientSafeName of the worker's name.
const CLIENT_PREFIX = `${PREFIX}:${Buffer.from(QUEUE).toString('base64')}:w:`;

function readRecord(
  key: string,
  raw: string | null,
  seen: { at: number; secret: Buffer; drains: Set<string>; connected: Set<string> | null; secrets: readonly string[] },
): WorkerView {
  const safe = (v: unknown) => safeText(v, seen.secrets);
  const forged = (why: string) => asForged(safe(key), why);
  let record: unknown;
  try {
    // Signed over the key's name: a record copied to another name, changed, or unsigned by the secret is no worker's.
    record = unseal(seen.secret, 'heartbeat', key, JSON.parse(raw ?? ''));
  } catch (error) {
    return forged(error instanceof SyntaxError ? 'not JSON, so unsigned' : (error as Error).message);
  }
  if (!isJsonObject(record)) return forged('its signed body is not a JSON object');
  // The key names the worker (its drain flag and BullMQ's connection use that name); a record saying another is not it.
  if (record.name !== key) return forged('its name is not its key');
  const beat = num(record.beat);
  const ttl = num(record.ttlMs);
  const ttlMs = ttl !== null && ttl > 0 && ttl <= RECORD_KEEP_MS ? ttl : 15_000;
  const age = beat === null ? null : Math.max(0, seen.at - beat);
  const connected = seen.connected === null ? null : seen.connected.has(CLIENT_PREFIX + clientSafeName(key));
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

const safeIso = (ms: number) => (Number.isNaN(new Date(ms).getTime()) ? null : new Date(ms).toISOString());

/** `names` checked against the records (a name with none, or only a forged one unless `forged`, is exit 2). */
function known(judged: Judged[], names: string[], forged = false): Judged[] {
  return names.map((name) => {
    const found = judged.find((j) => j.key === name);
    if (found !== undefined && (forged || found.view.state !== 'forged')) return found;
    const workers = judged.filter((j) => j.view.state !== 'forged').map((j) => j.view.name);
    const there = workers.length === 0 ? 'no worker has a record' : `the workers: ${workers.join(', ')}`;
    const why =
      found === undefined ? '' : ` (its record is forged: ${found.view.forged}; leap workers forget --dead removes it)`;
    throw new LeapError(`no worker named "${safeText(name)}"${why} (${there})`, { exitCode: 2 });
  });
}

/** Ask `names` (all live workers with `all`) to drain: finish rounds in hand, take no more. Returns who (raw names). */
export async function drainWorkers(redis: string, secret: Buffer, target: { names: string[] } | { all: true }) {
  return withQueue(redis, async (connection, queue) => {
    const judged = await judgeWorkers(connection, queue, secret, redis);
    const live = (j: Judged) => j.view.state === 'live' || j.view.state === 'draining';
    const names = ('all' in target ? judged.filter(live) : known(judged, target.names)).map((j) => j.key);
    // Signed, as the worker checks it: a flag written without the secret drains nobody.
    for (const name of names)
      await connection.set(DRAIN_PREFIX + name, sealDrain(secret, name, Date.now()), 'PX', RECORD_KEEP_MS);
    return names;
  });
}

export type Forgotten = { name: string; state: 'dead' | 'forged'; heartbeatAgeMs: number | null };

/** A live or draining worker is not forgotten (exit 2: it writes its record again at its next heartbeat). */
export async function forgetWorkers(redis: string, secret: Buffer, target: { names: string[] } | { dead: true }) {
  return withQueue(redis, async (connection, queue) => {
    const judged = await judgeWorkers(connection, queue, secret, redis);
    const gone = (j: { view: WorkerView }) => j.view.state === 'dead' || j.view.state === 'forged';
    // A forged record may be forgotten by its name as well.
    const chosen = 'dead' in target ? judged.filter(gone) : known(judged, target.names, true);
    const alive = chosen.find((j) => !gone(j))?.view;
    if (alive !== undefined) {
      const { name, state, heartbeatAgeMs: ms } = alive;
      const again = 'a live worker writes its record again at its next heartbeat';
      const how = `drain it (leap workers drain ${name}) or stop it first`;
      const why = `it is ${state} (heartbeat ${Math.round((ms ?? 0) / 100) / 10} s ago), and ${again}: ${how}`;
      throw new LeapError(`cannot forget "${name}": ${why}`, { exitCode: 2 });
    }
    for (const j of chosen) await connection.del(HEART_PREFIX + j.key, DRAIN_PREFIX + j.key);
    const out = ({ view: { name, state, heartbeatAgeMs } }: Judged) => ({ name, state, heartbeatAgeMs }) as Forgotten;
    return chosen.map(out);
  });
}

/** Pause (or resume) the whole queue: no worker takes a round while it is paused; the rounds in hand go on. */
export async function pauseQueue(redis: string, pause: boolean): Promise<void> {
  await withQueue(redis, (_connection, queue) => (pause ? queue.pause() : queue.resume()));
}

/** The names (past `prefix`) and values of the keys under `prefix`, sorted by name. */
async function scanValues(connection: Redis, prefix: string): Promise<[string, string | null][]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await connection.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 200);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0' && found.length < 10_000);
  const keys = [...new Set(found)].sort();
  const values = keys.length === 0 ? [] : await connection.mget(...keys);
  return keys.map((key, i) => [key.slice(prefix.length), values[i] ?? null]);
}

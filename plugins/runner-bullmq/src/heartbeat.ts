// Records and drain flags are signed over the worker's name (sign.ts): a forged one is shown as forged and ignored.
import type { Redis } from 'ioredis';
import { msFromEnv } from './protocol.js';
import { seal, unseal } from './sign.js';

/** Where a worker's record lies (outside BullMQ's `leap:` keys, so no job id can name it). */
export const HEART_PREFIX = 'leap-workers:';
export const DRAIN_PREFIX = 'leap-workers-drain:';
/** How long a dead worker's record stays visible (a SIGKILLed worker cannot remove it). */
export const RECORD_KEEP_MS = 86_400_000;

export interface InHand {
  job: string;
  slice: string;
  ball: string;
  round: number;
  /** When it was taken (ms since the epoch). */
  since: number;
  /** Where the round is on this worker (progress.ts: taken, fetching, building, proving, reviewing, pushing). */
  phase?: string;
}

/** Read back by `leap workers` as untrusted text: anyone with Redis access can forge one. */
export interface HeartbeatRecord {
  v: 1;
  name: string;
  host: string;
  pid: number;
  labels: string[];
  jobs: number;
  started: number;
  beat: number;
  /** Past this age (ms) without a new beat the worker is dead. */
  ttlMs: number;
  draining: boolean;
  inHand: InHand[];
}

/** The heartbeat's period (LEAP_BULLMQ_HEARTBEAT_MS, default 5000) and the age making a worker dead (three periods). */
export function heartbeatTimings(env: NodeJS.ProcessEnv): { beatMs: number; ttlMs: number } {
  const beatMs = msFromEnv(env, 'LEAP_BULLMQ_HEARTBEAT_MS', 5000);
  return { beatMs, ttlMs: 3 * beatMs };
}

const sealRecord = (secret: Buffer, record: HeartbeatRecord) =>
  JSON.stringify(seal(secret, 'heartbeat', record.name, record));

export const sealDrain = (secret: Buffer, name: string, at: number) =>
  JSON.stringify(seal(secret, 'drain', name, { at }));

/** `asked` only when signed with the queue secret for this name; anything else is `forged` (ignored). */
export function readDrain(secret: Buffer, name: string, raw: string | null): 'none' | 'asked' | 'forged' {
  if (raw === null) return 'none';
  try {
    unseal(secret, 'drain', name, JSON.parse(raw));
    return 'asked';
  } catch {
    return 'forged';
  }
}

/** `onDrain` is called once when a drain is asked; `onForgedDrain` once when an unsigned flag is found (ignored). */
export function startHeartbeat(
  connection: Redis,
  secret: Buffer,
  record: () => HeartbeatRecord,
  beatMs: number,
  onDrain: () => void,
  onForgedDrain: () => void = () => {},
) {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let drained = false;
  let toldForged = false;
  const name = () => record().name;
  const drainFlag = async (who: string) => {
    const state = readDrain(secret, who, await connection.get(DRAIN_PREFIX + who));
    if (state === 'forged' && !toldForged) {
      toldForged = true;
      onForgedDrain();
    }
    return state === 'asked';
  };
  const beat = async () => {
    const now = record();
    await connection.set(HEART_PREFIX + now.name, sealRecord(secret, now), 'PX', RECORD_KEEP_MS);
    if (!drained && (await drainFlag(now.name))) {
      drained = true;
      onDrain();
    }
  };
  const loop = () => {
    if (stopped) return;
    // One beat at a time: a Redis that does not answer holds the next one back rather than piling them up.
    void beat()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, beatMs).unref();
      });
  };
  return {
    /** The first beat (its drain flag, left by a worker of the same name before, cleared), then every `beatMs`. */
    async start() {
      await connection.del(DRAIN_PREFIX + name());
      await beat();
      timer = setTimeout(loop, beatMs).unref();
    },
    /** Written now (a round taken or ended shows at once). */
    beatNow: () => void beat().catch(() => undefined),
    /** Whether this worker is asked to drain now (read before each job: one taken after the drain is handed back). */
    async drainAsked(): Promise<boolean> {
      if (drained) return true;
      return drainFlag(name()).catch(() => false);
    },
    /** No more beats; the record and the drain flag removed (a worker stopped cleanly is not listed as dead). */
    async stop(removeRecord: boolean) {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      if (removeRecord) await connection.del(HEART_PREFIX + name(), DRAIN_PREFIX + name()).catch(() => undefined);
    },
  };
}

/** A worker's name as BullMQ's connection name (Redis: printable ASCII, no space): other bytes and % as %XX. */
export function clientSafeName(name: string): string {
  return name.replace(/[^!-$&-~]/gu, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

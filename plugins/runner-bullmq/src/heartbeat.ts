// Records and drain flags are signed over the worker's name (sign.ts): a forged one is shown as forged and ignored.
import type { Redis } from 'ioredis';
import { seal, unseal } from './sign.js';

/** Where a worker's record lies (outside BullMQ's `leap:` keys, so no job id can name it). */
export const HEART_PREFIX = 'leap-workers:';
export const DRAIN_PREFIX = 'leap-workers-drain:';
/** How long a dead worker's record stays visible (a SIGKILLed worker cannot remove it). */
export const RECORD_KEEP_MS = 86_400_000;

/** A round in hand: `since` when it was taken (ms since the epoch), `phase` where it is (progress.ts). */
export type InHand = { job: string; slice: string; ball: string; round: number; since: number; phase?: string };

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

type Hooks = { record: () => { name: string }; beatMs: number; onDrain: () => void; onForgedDrain: () => void };

/** `onDrain` is called once when a drain is asked; `onForgedDrain` once when an unsigned flag is found (ignored). */
export function startHeartbeat(connection: Redis, secret: Buffer, { record, beatMs, onDrain, onForgedDrain }: Hooks) {
  let timer: NodeJS.Timeout | undefined;
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
    const sealed = JSON.stringify(seal(secret, 'heartbeat', now.name, now));
    await connection.set(HEART_PREFIX + now.name, sealed, 'PX', RECORD_KEEP_MS);
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
    async start() {
      await connection.del(DRAIN_PREFIX + name());
      await beat();
      timer = setTimeout(loop, beatMs).unref();
    },
    beatNow: () => void beat().catch(() => undefined),
    /** Whether this worker is asked to drain now (read before each job: one taken after the drain is handed back). */
    drainAsked: async () => drained || drainFlag(name()).catch(() => false),
    async stop(removeRecord: boolean) {
      stopped = true;
      clearTimeout(timer);
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

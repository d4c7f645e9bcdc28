// Records and drain flags are signed over the worker's name (sign.ts): a forged one is shown as forged and ignored.
import { hostname } from 'node:os';
import { orElse } from '@leap/core';
import type { Redis } from 'ioredis';
import { msFromEnv } from './protocol.js';
import { seal, unseal } from './sign.js';

/** Where a worker's record lies (outside BullMQ's `leap:` keys, so no job id can name it). */
export const HEART_PREFIX = 'leap-workers:';
export const DRAIN_PREFIX = 'leap-workers-drain:';
/** How long a dead worker's record stays visible (a SIGKILLed worker cannot remove it). */
export const RECORD_KEEP_MS = 86_400_000;

/** A round in hand: `since` when it was taken (ms since the epoch), `phase` where it is (progress.ts). */
export type InHand = { job: string; slice: string; ball: string; round: number; since: number; phase?: string };
type Beating = { name: string; labels: string[]; jobs: number; draining: boolean; inHand: Map<string, InHand> } & {
  secret: Buffer;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
};

export const sealDrain = (secret: Buffer, name: string, at: number) =>
  JSON.stringify(seal(secret, 'drain', name, { at }));

/** `asked` only when signed with the queue secret for this name; anything else is `forged` (ignored). */
export function readDrain(secret: Buffer, name: string, raw: string | null): 'none' | 'asked' | 'forged' {
  if (raw === null) return 'none';
  return orElse(() => (unseal(secret, 'drain', name, JSON.parse(raw)), 'asked' as const), 'forged' as const);
}

/** The worker's signed record every LEAP_BULLMQ_HEARTBEAT_MS (dead past three); `drained` once a drain is asked. */
export function startHeartbeat(redis: Redis, started: number, w: () => Beating, drained: () => void) {
  const beatMs = () => msFromEnv(w().env, 'LEAP_BULLMQ_HEARTBEAT_MS', 5000);
  const host = hostname();
  const record = () => {
    const { name, labels, jobs, draining, inHand } = w();
    const now = { beat: Date.now(), ttlMs: 3 * beatMs(), draining, inHand: [...inHand.values()] };
    return { v: 1 as const, name, host, pid: process.pid, labels, jobs, started, ...now };
  };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let asked = false;
  let toldForged = false;
  const name = () => w().name;
  const drainFlag = async (who: string) => {
    const state = readDrain(w().secret, who, await redis.get(DRAIN_PREFIX + who));
    if (state === 'forged' && !toldForged) {
      toldForged = true;
      const why = 'anyone with Redis access can write one; leap workers drain signs its own';
      w().log(`a drain flag for ${w().name} in Redis is not signed with the queue secret: ignored (${why})`);
    }
    return state === 'asked';
  };
  const beat = async () => {
    const now = record();
    const sealed = JSON.stringify(seal(w().secret, 'heartbeat', now.name, now));
    await redis.set(HEART_PREFIX + now.name, sealed, 'PX', RECORD_KEEP_MS);
    if (!asked && (await drainFlag(now.name))) {
      asked = true;
      w().draining = true;
      w().log(`drain asked: finishing the ${w().inHand.size} round(s) in hand, taking no more`);
      void beat().catch(() => undefined);
      drained();
    }
  };
  const loop = () => {
    if (stopped) return;
    // One beat at a time: a Redis that does not answer holds the next one back rather than piling them up.
    void beat()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, beatMs()).unref();
      });
  };
  return {
    async start() {
      await redis.del(DRAIN_PREFIX + name());
      await beat();
      timer = setTimeout(loop, beatMs()).unref();
    },
    beatNow: () => void beat().catch(() => undefined),
    /** Whether this worker is asked to drain now (read before each job: one taken after the drain is handed back). */
    drainAsked: async () => asked || drainFlag(name()).catch(() => false),
    async stop(removeRecord: boolean) {
      stopped = true;
      clearTimeout(timer);
      if (removeRecord) await redis.del(HEART_PREFIX + name(), DRAIN_PREFIX + name()).catch(() => undefined);
    },
  };
}

/** A worker's name as BullMQ's connection name (Redis: printable ASCII, no space): other bytes and % as %XX. */
export function clientSafeName(name: string): string {
  return name.replace(/[^!-$&-~]/gu, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

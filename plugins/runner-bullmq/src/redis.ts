// Redis connections for BullMQ (loaded lazily: `leap slice --help` and `leap worker --help` load none of it).
import { LeapError, UsageError, showValue } from '@leap/core';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { PREFIX, QUEUE } from './protocol.js';
import { redact, redactUrl, secretsOf } from './text.js';

/** Check a `--redis` value (absent: LEAP_REDIS_URL, keeping a password out of `ps`): a redis:// or rediss:// URL. */
export function checkRedisUrl(given: string | undefined, option = '--redis', env = process.env): string {
  const url = given ?? env.LEAP_REDIS_URL;
  const server = 'a redis:// URL of the Redis server every worker reaches';
  if (url === undefined || url === '') throw new UsageError(`${option} URL is required, or LEAP_REDIS_URL (${server})`);
  // Not a URL, so its password cannot be told apart: one with an @ is not echoed.
  const shown = url.includes('@') ? 'a value with an @ (not shown: it may hold a password)' : showValue(url);
  if (!URL.canParse(url)) throw new UsageError(`Expected ${option} to be a redis:// URL, got ${shown}`);
  const { protocol } = new URL(url);
  if (protocol !== 'redis:' && protocol !== 'rediss:')
    throw new UsageError(`Expected ${option} to be a redis:// or rediss:// URL, got ${showValue(redactUrl(url))}`);
  return url;
}

const retryIn = (times: number) => Math.min(times * 100, 1000);

/** A connection BullMQ can block on (no retry limit per command: commands wait through a Redis restart). */
export async function connect(url: string): Promise<Redis> {
  const { Redis: IORedis } = await import('ioredis');
  const redis = new IORedis(url, { maxRetriesPerRequest: null, lazyConnect: true, retryStrategy: retryIn });
  // Connection errors are retried by ioredis; without a listener they would end the process.
  redis.on('error', () => {});
  return redis;
}

export async function ping(url: string, timeoutMs = 3000): Promise<void> {
  const { Redis: IORedis } = await import('ioredis');
  const once = { maxRetriesPerRequest: 0, lazyConnect: true, connectTimeout: timeoutMs, enableOfflineQueue: false };
  const redis = new IORedis(url, { ...once, retryStrategy: () => null });
  let last: Error | null = null;
  redis.on('error', (e: Error) => (last = e));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const why = redact((last ?? (error as Error)).message, secretsOf(url));
    throw new LeapError(`cannot reach Redis at ${redactUrl(url)}: ${why}`, { exitCode: 2 });
  } finally {
    redis.disconnect();
  }
}

export async function withQueue<T>(redis: string, act: (connection: Redis, queue: Queue) => Promise<T>): Promise<T> {
  const { Queue: BullQueue } = await import('bullmq');
  const connection = await connect(redis);
  const queue = new BullQueue(QUEUE, { connection, prefix: PREFIX });
  queue.on('error', () => {});
  try {
    return await act(connection, queue);
  } finally {
    await queue.close().catch(() => undefined);
    connection.disconnect();
  }
}

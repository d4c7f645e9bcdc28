// Redis connections for BullMQ (loaded lazily: `leap slice --help` and `leap worker --help` load none of it).
import { LeapError, UsageError, showValue } from '@leap/core';
import type { Redis } from 'ioredis';
import { redact, redactUrl, secretsOf } from './text.js';

/** Check a `--redis` value (absent: LEAP_REDIS_URL, keeping a password out of `ps`): a redis:// or rediss:// URL. */
export function checkRedisUrl(
  given: string | undefined,
  option = '--redis',
  env: NodeJS.ProcessEnv = process.env,
): string {
  const url = given ?? env.LEAP_REDIS_URL;
  if (url === undefined || url === '')
    throw new UsageError(
      `${option} URL is required, or LEAP_REDIS_URL (a redis:// URL of the Redis server every worker reaches)`,
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL, so its password cannot be told apart: one with an @ is not echoed.
    throw new UsageError(
      `Expected ${option} to be a redis:// URL, got ` +
        (url.includes('@') ? 'a value with an @ (not shown: it may hold a password)' : showValue(url)),
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new UsageError(`Expected ${option} to be a redis:// or rediss:// URL, got ${showValue(redactUrl(url))}`);
  return url;
}

/** A connection BullMQ can block on (no retry limit per command: commands wait through a Redis restart). */
export async function connect(url: string): Promise<Redis> {
  const { Redis: IORedis } = await import('ioredis');
  const redis = new IORedis(url, {
    maxRetriesPerRequest: null,
    lazyConnect: true,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  // Connection errors are retried by ioredis; without a listener they would end the process.
  redis.on('error', () => {});
  return redis;
}

/** Fail fast with a clear error when Redis is not there (before anything is queued). */
export async function ping(url: string, timeoutMs = 3000): Promise<void> {
  const { Redis: IORedis } = await import('ioredis');
  const redis = new IORedis(url, {
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let last: Error | null = null;
  redis.on('error', (e: Error) => {
    last = e;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new LeapError(
      `cannot reach Redis at ${redactUrl(url)}: ${redact((last ?? (error as Error)).message, secretsOf(url))}`,
      { exitCode: 2 },
    );
  } finally {
    redis.disconnect();
  }
}

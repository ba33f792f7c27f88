import { randomUUID } from 'node:crypto';
import { connectRedis, waitForRedis, type Redis } from '../../src/platform/redis';
import { silentLogger } from '../../src/platform/logger';

/** The private test redis-server started by global-setup.ts (never the machine's shared one). */
export function redisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error('TEST_REDIS_URL is not set: run through jest (test/support/global-setup.ts)');
  return url;
}

/** A connection to the private test Redis, made the way the BFF makes its own. */
export async function testRedis(keyPrefix?: string): Promise<Redis> {
  const redis = connectRedis(redisUrl(), silentLogger, { keyPrefix });
  await waitForRedis(redis, 5000);
  return redis;
}

/** Deletes every key under `prefix` (a test's own keys only). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** A fresh key prefix per test, so tests sharing the server never see each other's keys. */
export function uniquePrefix(kind: string): string {
  return `test:${kind}:${randomUUID().slice(0, 8)}:`;
}

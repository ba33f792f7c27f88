import type { RedisClient } from '../../platform/redis';
import { MemoryIdempotencyStore } from './memory-store';
import { RedisIdempotencyStore } from './redis-store';
import type { IdempotencyStore } from './types';

export * from './types';
export { MemoryIdempotencyStore } from './memory-store';
export { RedisIdempotencyStore } from './redis-store';
export { canonicalJson, requestFingerprint } from './fingerprint';
export { keepsResponse, keyOutcome } from '../money/till-outcome';
export { idempotency, IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY, REPLAYED_HEADER, type Idempotency, type IdempotencyOptions } from './middleware';

/** The Redis store when a connection is given, the in-process one otherwise. */
export function createIdempotencyStore(opts: { redis?: RedisClient; prefix: string }): IdempotencyStore {
  return opts.redis ? new RedisIdempotencyStore(opts.redis, opts.prefix) : new MemoryIdempotencyStore();
}

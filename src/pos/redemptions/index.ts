import type { RedisClient } from '../../platform/redis';
import { MemoryRedemptionStore } from './memory-store';
import type { RetentionPolicy } from './record';
import { RedisRedemptionStore } from './redis-store';
import type { RedemptionStore } from './types';

export * from './types';
export { MemoryRedemptionStore } from './memory-store';
export { RedisRedemptionStore, type RedisRedemptionStoreOptions } from './redis-store';
export { HoldSweeper, type HoldSweeperOptions, type ExpiryVia } from './sweeper';
export { DEFAULT_RETENTION, isClaimed, isEnding, type RetentionPolicy } from './record';

/** The Redis store when a connection is given, the in-process one otherwise (one instance, nothing survives a restart). */
export function createRedemptionStore(
  opts: { redis?: RedisClient; prefix: string; recheckMs?: number; askBeforeEnding?: boolean } & Partial<RetentionPolicy>,
): RedemptionStore {
  const { redis, ...rest } = opts;
  return redis ? new RedisRedemptionStore(redis, rest) : new MemoryRedemptionStore(rest);
}

import type { RedisClient } from '../../../platform/redis';
import { MemoryCouponLockStore } from './memory-store';
import { RedisCouponLockStore } from './redis-store';
import type { CouponLockStore } from './types';

export * from './types';
export { MemoryCouponLockStore } from './memory-store';
export { RedisCouponLockStore } from './redis-store';
export { CouponLockSweeper, type CouponLockSweeperOptions } from './sweeper';

export function createCouponLockStore(opts: { redis?: RedisClient; prefix: string; usedKeepMs?: number }): CouponLockStore {
  return opts.redis
    ? new RedisCouponLockStore(opts.redis, { prefix: opts.prefix, usedKeepMs: opts.usedKeepMs })
    : new MemoryCouponLockStore(undefined, opts.usedKeepMs);
}

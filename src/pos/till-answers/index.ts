import type { RedisClient } from '../../platform/redis';
import { MemoryTillAnswerStore } from './memory-store';
import { RedisTillAnswerStore } from './redis-store';
import type { TillAnswerStore } from './types';

export * from './types';
export { MemoryTillAnswerStore } from './memory-store';
export { RedisTillAnswerStore } from './redis-store';

/** The Redis store when a connection is given, the in-process one otherwise. */
export function createTillAnswerStore(opts: { redis?: RedisClient; prefix: string; clock?: () => number }): TillAnswerStore {
  return opts.redis ? new RedisTillAnswerStore(opts.redis, opts.prefix) : new MemoryTillAnswerStore(opts.clock);
}

import type { RedisClient } from '../../platform/redis';
import { MemoryOutboxStore } from './memory-store';
import { RedisOutboxStore } from './redis-store';
import type { OutboxStore, OutboxStoreOptions } from './types';

export * from './types';
export { MemoryOutboxStore } from './memory-store';
export { RedisOutboxStore, type RedisOutboxStoreOptions } from './redis-store';
export { OutboxWorker, type OutboxWorkerOptions } from './worker';
export { judgeFailure, send, type RetryPolicy } from './deliver';
export { isQueued, newOutboxId, queueWork, sendOrQueue, shouldQueue, statusFor, type QueuedView } from './forward';

/** The Redis store when a connection is given, the in-process one otherwise (one instance, nothing survives a restart). */
export function createOutboxStore(opts: { redis?: RedisClient; prefix: string } & OutboxStoreOptions): OutboxStore {
  const { redis, ...rest } = opts;
  return redis ? new RedisOutboxStore(redis, rest) : new MemoryOutboxStore(rest);
}

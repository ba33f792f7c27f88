import type { RedisClient } from '../../platform/redis';
import { MemoryAuditStore } from './memory-store';
import { RedisAuditStore } from './redis-store';
import type { AuditStore } from './types';

export { AuditTrail } from './trail';
export type { AuditAction, AuditEntry, AuditOutcome, AuditStore, NewAuditEntry } from './types';

/** A stream per store in Redis when a connection is given, process memory otherwise. */
export function createAuditStore(opts: { redis?: RedisClient; prefix: string; retentionDays: number }): AuditStore {
  const retentionMs = opts.retentionDays * 86_400_000;
  return opts.redis ? new RedisAuditStore(opts.redis, { prefix: opts.prefix, retentionMs }) : new MemoryAuditStore(retentionMs);
}

import { redisUnavailable, type RedisClient } from '../../platform/redis';
import type { AuditScan, AuditScanned, AuditStore, NewAuditEntry } from './types';

/**
 * The trail in Redis: one stream per store, `<prefix>audit:<storeId>`, so a
 * store's entries are read without touching another's (and spread over a
 * cluster's masters; every command names one key). Each entry is one field
 * holding its JSON, under an id Redis gives it (its own clock, so instances
 * whose clocks differ never refuse each other's entries). XADD trims what is
 * older than the retention (MINID ~, whole stream nodes at a time). The
 * connection belongs to the caller.
 */
export class RedisAuditStore implements AuditStore {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: { prefix: string; retentionMs: number },
  ) {}

  private key(storeId: string): string {
    return `${this.opts.prefix}audit:${storeId}`;
  }

  async append(entry: NewAuditEntry, now: number): Promise<void> {
    const oldest = Math.max(0, now - this.opts.retentionMs);
    try {
      await this.redis.xadd(this.key(entry.storeId), 'MINID', '~', String(oldest), '*', 'e', JSON.stringify(entry));
    } catch (err) {
      throw redisUnavailable(err, 'audit trail');
    }
  }

  async scan(storeId: string, range: AuditScan): Promise<AuditScanned> {
    const start = range.afterId !== undefined ? `(${range.afterId}` : String(range.fromMs);
    let rows: [string, string[]][];
    try {
      rows = await this.redis.xrange(this.key(storeId), start, String(range.untilMs), 'COUNT', range.count);
    } catch (err) {
      throw redisUnavailable(err, 'audit trail');
    }
    const entries = rows.flatMap(([id, fields]) => {
      try {
        return [{ ...(JSON.parse(fields[fields.indexOf('e') + 1]) as NewAuditEntry), id }];
      } catch {
        // Not written by this trail: skipped, the scan carries on after it.
        return [];
      }
    });
    return { entries, lastId: rows.at(-1)?.[0], done: rows.length < range.count };
  }

  async close(): Promise<void> {}
}

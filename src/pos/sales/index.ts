import type { RedisClient } from '../../platform/redis';
import { redisUnavailable } from '../../platform/redis';

/**
 * Which store made each sale and each refund. Refunds and voids of a sale stay
 * in its store (unless RETURNS_AT_ANY_BRANCH), and reading a sale or refund
 * back is scoped to it. The first store to name an id keeps it.
 */
export interface SaleEntry {
  kind: 'payment' | 'refund';
  id: string;
  storeId: string;
  customerId: string;
  /** The sale itself (for a refund: the sale it refunds). */
  paymentId: string;
}

export interface SaleRecords {
  /** Keeps the entry unless its id is already taken; a Redis failure is 503 `redis_unavailable`. */
  remember(entry: SaleEntry): Promise<void>;
  /** The entry, or null for an id this BFF never took (or one past SALE_RECORD_DAYS). */
  get(kind: SaleEntry['kind'], id: string): Promise<SaleEntry | null>;
}

/** One key per sale or refund, `<prefix>sale:<kind>:<id>`, set only if absent, with a TTL. */
export class RedisSaleRecords implements SaleRecords {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async remember(entry: SaleEntry): Promise<void> {
    try {
      await this.redis.set(`${this.prefix}sale:${entry.kind}:${entry.id}`, JSON.stringify(entry), 'EX', this.ttlSeconds, 'NX');
    } catch (err) {
      throw redisUnavailable(err, 'sale records');
    }
  }

  async get(kind: SaleEntry['kind'], id: string): Promise<SaleEntry | null> {
    try {
      const json = await this.redis.get(`${this.prefix}sale:${kind}:${id}`);
      return json ? (JSON.parse(json) as SaleEntry) : null;
    } catch (err) {
      throw redisUnavailable(err, 'sale records');
    }
  }
}

/** One instance without Redis: kept in this process, the oldest forgotten past `max` entries. */
export class MemorySaleRecords implements SaleRecords {
  private readonly entries = new Map<string, { entry: SaleEntry; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
    private readonly max = 1_000_000,
  ) {}

  async remember(entry: SaleEntry): Promise<void> {
    if (await this.get(entry.kind, entry.id)) return;
    this.entries.set(`${entry.kind}:${entry.id}`, { entry: { ...entry }, until: this.clock() + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  async get(kind: SaleEntry['kind'], id: string): Promise<SaleEntry | null> {
    const key = `${kind}:${id}`;
    const found = this.entries.get(key);
    if (!found) return null;
    if (found.until <= this.clock()) {
      this.entries.delete(key);
      return null;
    }
    return { ...found.entry };
  }
}

export function createSaleRecords(opts: { redis?: RedisClient; prefix: string; ttlDays: number; clock?: () => number }): SaleRecords {
  return opts.redis ? new RedisSaleRecords(opts.redis, opts.prefix, opts.ttlDays * 86_400) : new MemorySaleRecords(opts.ttlDays * 86_400_000, opts.clock);
}

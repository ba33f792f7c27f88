import { defineScripts, type RedisClient } from '../../platform/redis';
import { problem } from '../../platform/problem';
import { redisUnavailable } from '../../platform/redis';
import { SALE_MACHINE, transitionRefusal, type SaleState } from '../money/machines';

/**
 * Which store made each sale, refund and batch-uploaded order. An id is
 * claimed (`recording`) before its write goes upstream and belongs to the
 * store once the upstream accepted it (`recorded`); a refused write deletes its
 * claim, so it leaves nothing that blocks or reveals the id. Refunds and voids
 * of a sale stay in its store (unless RETURNS_AT_ANY_BRANCH), and reading a
 * sale or refund back is scoped to it. States: SALE_MACHINE.
 */
export interface SaleEntry {
  kind: 'payment' | 'refund';
  id: string;
  storeId: string;
  customerId: string;
  /** The sale itself (for a refund: the sale it refunds). */
  paymentId: string;
  /** Absent in entries written before states existed: those were recorded. */
  state?: SaleState;
  /** The refund id of the void under way or done (`voiding`, `voided`). */
  voidRefundId?: string;
  /** A sale's total paid: how its record upstream is told from another sale's under the same id. */
  totalPaid?: number;
  /** A refund's amount, when one was asked (absent: the whole sale). */
  refundAmount?: number;
}

export const stateOf = (e: SaleEntry): SaleState => e.state ?? 'recorded';

export type SaleChange = { ok: true; entry: SaleEntry } | { ok: false; entry: SaleEntry | null; detail: string };

export interface SaleRecords {
  /** Claims the id (`recording`) unless it is taken; answers the entry that holds it when it is. */
  claim(entry: SaleEntry): Promise<{ ok: true; entry: SaleEntry } | { ok: false; entry: SaleEntry }>;
  /** Compare-and-set: `change` returns the next entry or why not; SALE_MACHINE is enforced. */
  change(kind: SaleEntry['kind'], id: string, change: (current: SaleEntry) => SaleEntry | string): Promise<SaleChange>;
  /** Deletes the claim if it is still this store's `recording` one (a refused write). */
  free(kind: SaleEntry['kind'], id: string, storeId: string): Promise<void>;
  /** The entry, or null for an id this BFF never took (or one past SALE_RECORD_DAYS). */
  get(kind: SaleEntry['kind'], id: string): Promise<SaleEntry | null>;
}

/** The next entry a change proposes, or why the state machine refuses it. */
function next(current: SaleEntry, proposed: SaleEntry): SaleEntry | string {
  const refusal = transitionRefusal(SALE_MACHINE, `${current.kind} ${current.id}`, stateOf(current), stateOf(proposed));
  return refusal ?? { ...proposed, kind: current.kind, id: current.id };
}

/** Writes ARGV[2] only if the stored value is still ARGV[1] (the whole value: any write changes it). */
const SWAP = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1`;
/** Deletes the key only if it is still ARGV[1]. */
const DROP = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;

type SaleScripts = { saleSwap(key: string, old: string, next: string): Promise<number>; saleDrop(key: string, old: string): Promise<number> };

/** One key per sale or refund, `<prefix>sale:<kind>:<id>`, with a TTL. */
export class RedisSaleRecords implements SaleRecords {
  private readonly redis: RedisClient & SaleScripts;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {
    this.redis = defineScripts<SaleScripts>(redis, { saleSwap: { keys: 1, lua: SWAP }, saleDrop: { keys: 1, lua: DROP } });
  }

  private key(kind: SaleEntry['kind'], id: string) {
    return `${this.prefix}sale:${kind}:${id}`;
  }

  async claim(entry: SaleEntry): Promise<{ ok: true; entry: SaleEntry } | { ok: false; entry: SaleEntry }> {
    const claimed: SaleEntry = { ...entry, state: 'recording' };
    for (let attempt = 1; ; attempt++) {
      const set = await this.call(() => this.redis.set(this.key(entry.kind, entry.id), JSON.stringify(claimed), 'EX', this.ttlSeconds, 'NX'));
      if (set === 'OK') return { ok: true as const, entry: claimed };
      const held = await this.get(entry.kind, entry.id);
      if (held) return { ok: false as const, entry: held };
      // Gone between the two commands (its TTL, or a refusal freed it): try again, a few times.
      if (attempt >= 3) throw problem('sale_busy', `Sale id ${entry.id} is being claimed and freed by other requests right now; try again`);
    }
  }

  async change(kind: SaleEntry['kind'], id: string, change: (current: SaleEntry) => SaleEntry | string): Promise<SaleChange> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const raw = await this.call(() => this.redis.get(this.key(kind, id)));
      if (!raw) return { ok: false, entry: null, detail: 'not found' };
      const current = JSON.parse(raw) as SaleEntry;
      const proposed = change(structuredClone(current));
      const entry = typeof proposed === 'string' ? proposed : next(current, proposed);
      if (typeof entry === 'string') return { ok: false, entry: current, detail: entry };
      if ((await this.call(() => this.redis.saleSwap(this.key(kind, id), raw, JSON.stringify(entry)))) === 1) return { ok: true, entry };
    }
    return { ok: false, entry: await this.get(kind, id), detail: 'busy' };
  }

  async free(kind: SaleEntry['kind'], id: string, storeId: string) {
    const raw = await this.call(() => this.redis.get(this.key(kind, id)));
    if (!raw) return;
    const e = JSON.parse(raw) as SaleEntry;
    if (e.state === 'recording' && e.storeId === storeId) await this.call(() => this.redis.saleDrop(this.key(kind, id), raw));
  }

  async get(kind: SaleEntry['kind'], id: string): Promise<SaleEntry | null> {
    const json = await this.call(() => this.redis.get(this.key(kind, id)));
    return json ? (JSON.parse(json) as SaleEntry) : null;
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
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

  async claim(entry: SaleEntry) {
    const held = this.read(entry.kind, entry.id);
    if (held) return { ok: false as const, entry: held };
    const claimed: SaleEntry = { ...entry, state: 'recording' };
    this.entries.set(`${entry.kind}:${entry.id}`, { entry: claimed, until: this.clock() + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    return { ok: true as const, entry: { ...claimed } };
  }

  async change(kind: SaleEntry['kind'], id: string, change: (current: SaleEntry) => SaleEntry | string): Promise<SaleChange> {
    const current = this.read(kind, id);
    if (!current) return { ok: false, entry: null, detail: 'not found' };
    const proposed = change(structuredClone(current));
    const entry = typeof proposed === 'string' ? proposed : next(current, proposed);
    if (typeof entry === 'string') return { ok: false, entry: current, detail: entry };
    const slot = this.entries.get(`${kind}:${id}`);
    if (slot) slot.entry = { ...entry };
    return { ok: true, entry };
  }

  async free(kind: SaleEntry['kind'], id: string, storeId: string) {
    const e = this.read(kind, id);
    if (e?.state === 'recording' && e.storeId === storeId) this.entries.delete(`${kind}:${id}`);
  }

  async get(kind: SaleEntry['kind'], id: string): Promise<SaleEntry | null> {
    return this.read(kind, id);
  }

  /** Synchronous, so each step reads and writes with no await between: a compare-and-set, as the Redis store's scripts are. */
  private read(kind: SaleEntry['kind'], id: string): SaleEntry | null {
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

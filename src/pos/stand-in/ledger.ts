/**
 * What stand-in redemption keeps between calls: each customer's last
 * known balance from a lookup at the till ("seen"), customers whose hold's
 * outcome is unknown (no stand-in for them until it lapses), and the floor-limit
 * counters, taken atomically if the points fit (Redis: one Lua script; memory
 * without Redis). Fleet-wide with Redis: every instance counts in the same keys.
 */
import type { RedisClient } from '../../platform/redis';
import { localDate } from '../audit/store-day';

export interface Seen {
  available: number;
  at: number;
}

/** One take from the two floor-limit counters: the customer's store day, the store's hour. */
export interface LimitTake {
  customerKey: string;
  customerMax: number;
  storeKey: string;
  storeMax: number;
  points: number;
}

export type TakeResult = { ok: true } | { ok: false; limit: 'customer' | 'store'; used: number; max: number };

export interface StandInLedger {
  seen(customerId: string, available: number, now: number, ttlMs: number): Promise<void>;
  lastSeen(customerId: string): Promise<Seen | null>;
  /** A hold of this customer's whose outcome is unknown: no stand-in for them for `ttlMs` (until it lapses upstream). */
  markUnsettled(customerId: string, ttlMs: number): Promise<void>;
  unsettled(customerId: string): Promise<boolean>;
  /** Adds `points` to both counters if both stay within their max; else changes nothing and names the limit. */
  take(t: LimitTake): Promise<TakeResult>;
  giveBack(customerKey: string, storeKey: string, points: number): Promise<void>;
  /** The redemption waiting for approval for one ask (store, terminal, customer, points), so the cashier's retry finds it. */
  setPending(ask: string, redemptionId: string, ttlMs: number): Promise<void>;
  pendingFor(ask: string): Promise<string | null>;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The counters' keys: the customer's store day (in the stores' time zone) and the store's clock hour. */
export function limitKeys(customerId: string, storeId: string, now: number, timeZone = 'UTC'): { customerKey: string; storeKey: string } {
  return { customerKey: `c:${customerId}:${localDate(now, timeZone)}`, storeKey: `s:${storeId}:${Math.floor(now / HOUR_MS)}` };
}

export class MemoryStandInLedger implements StandInLedger {
  private readonly seenBy = new Map<string, Seen & { until: number }>();
  private readonly unsettledUntil = new Map<string, number>();
  private readonly counters = new Map<string, number>();
  private readonly pending = new Map<string, { id: string; until: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  async seen(customerId: string, available: number, now: number, ttlMs: number) {
    this.seenBy.set(customerId, { available, at: now, until: now + ttlMs });
  }

  async lastSeen(customerId: string) {
    const s = this.seenBy.get(customerId);
    if (!s || s.until <= this.clock()) return null;
    return { available: s.available, at: s.at };
  }

  async markUnsettled(customerId: string, ttlMs: number) {
    this.unsettledUntil.set(customerId, this.clock() + ttlMs);
  }

  async unsettled(customerId: string) {
    return (this.unsettledUntil.get(customerId) ?? 0) > this.clock();
  }

  async take(t: LimitTake): Promise<TakeResult> {
    const c = this.counters.get(t.customerKey) ?? 0;
    const s = this.counters.get(t.storeKey) ?? 0;
    if (c + t.points > t.customerMax) return { ok: false, limit: 'customer', used: c, max: t.customerMax };
    if (s + t.points > t.storeMax) return { ok: false, limit: 'store', used: s, max: t.storeMax };
    this.counters.set(t.customerKey, c + t.points);
    this.counters.set(t.storeKey, s + t.points);
    return { ok: true };
  }

  async setPending(ask: string, redemptionId: string, ttlMs: number) {
    this.pending.set(ask, { id: redemptionId, until: this.clock() + ttlMs });
  }

  async pendingFor(ask: string) {
    const p = this.pending.get(ask);
    return p && p.until > this.clock() ? p.id : null;
  }

  async giveBack(customerKey: string, storeKey: string, points: number) {
    for (const k of [customerKey, storeKey]) this.counters.set(k, Math.max(0, (this.counters.get(k) ?? 0) - points));
  }
}

/** KEYS: customer counter, store counter. ARGV: points, customer max, store max, customer ttl ms, store ttl ms. */
const TAKE_LUA = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
local s = tonumber(redis.call('GET', KEYS[2]) or '0')
local p = tonumber(ARGV[1])
if c + p > tonumber(ARGV[2]) then return {'customer', c} end
if s + p > tonumber(ARGV[3]) then return {'store', s} end
redis.call('INCRBY', KEYS[1], p)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('INCRBY', KEYS[2], p)
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {'ok', 0}
`;

/** KEYS: customer counter, store counter. ARGV: points. Never below zero. */
const GIVE_BACK_LUA = `
for i = 1, 2 do
  local v = tonumber(redis.call('GET', KEYS[i]) or '0')
  if v > 0 then redis.call('SET', KEYS[i], math.max(0, v - tonumber(ARGV[1])), 'KEEPTTL') end
end
return 1
`;

export class RedisStandInLedger implements StandInLedger {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** Both counters of a take share one hash tag, so the script runs on one node of a cluster too. */
  private counter(key: string) {
    return `${this.prefix}stand-in:{limits}:${key}`;
  }

  async seen(customerId: string, available: number, now: number, ttlMs: number) {
    await this.redis.set(`${this.prefix}stand-in:seen:${customerId}`, JSON.stringify({ available, at: now }), 'PX', ttlMs);
  }

  async lastSeen(customerId: string) {
    const raw = await this.redis.get(`${this.prefix}stand-in:seen:${customerId}`);
    return raw ? (JSON.parse(raw) as Seen) : null;
  }

  async markUnsettled(customerId: string, ttlMs: number) {
    await this.redis.set(`${this.prefix}stand-in:unsettled:${customerId}`, '1', 'PX', ttlMs);
  }

  async unsettled(customerId: string) {
    return (await this.redis.exists(`${this.prefix}stand-in:unsettled:${customerId}`)) === 1;
  }

  async take(t: LimitTake): Promise<TakeResult> {
    const [what, used] = (await this.redis.eval(
      TAKE_LUA,
      2,
      this.counter(t.customerKey),
      this.counter(t.storeKey),
      t.points,
      t.customerMax,
      t.storeMax,
      2 * DAY_MS,
      2 * HOUR_MS,
    )) as [string, number];
    if (what === 'ok') return { ok: true };
    return what === 'customer' ? { ok: false, limit: 'customer', used, max: t.customerMax } : { ok: false, limit: 'store', used, max: t.storeMax };
  }

  async setPending(ask: string, redemptionId: string, ttlMs: number) {
    await this.redis.set(`${this.prefix}stand-in:pending:${ask}`, redemptionId, 'PX', ttlMs);
  }

  pendingFor(ask: string) {
    return this.redis.get(`${this.prefix}stand-in:pending:${ask}`);
  }

  async giveBack(customerKey: string, storeKey: string, points: number) {
    await this.redis.eval(GIVE_BACK_LUA, 2, this.counter(customerKey), this.counter(storeKey), points);
  }
}

export function createStandInLedger(o: { redis?: RedisClient; prefix: string; clock: () => number }): StandInLedger {
  return o.redis ? new RedisStandInLedger(o.redis, o.prefix) : new MemoryStandInLedger(o.clock);
}

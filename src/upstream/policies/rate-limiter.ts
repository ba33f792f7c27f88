import type { RedisClient } from '../../platform/redis';
import type { Logger } from 'pino';
import { rateLimited } from '../errors';
import type { CallPolicy, RateGroup } from '../policy';
import { realSleep, Sleep } from '../retry';

/** Calls per second the whole fleet may send, per published limit group; 0 = no limit. */
export type RateLimits = Readonly<Record<RateGroup, number>>;

/** A slot: go after `waitMs`, or (refused) the earliest slot is `retryAfterMs` away. */
export type Reservation = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

/**
 * Paces calls per group with GCRA (a virtual schedule): each call takes the
 * next free slot, slots are 1/limit s apart, and a caller may take a slot at
 * most `maxWaitMs` ahead. So in any one second at most `limit` calls start,
 * with no burst at window edges (which a fixed one-second counter, as in
 * rate-limiter-flexible, allows: up to twice the limit across a boundary).
 * A refused call takes no slot.
 */
export interface FleetRateLimiter {
  readonly kind: 'redis' | 'memory';
  reserve(group: RateGroup, maxWaitMs: number): Promise<Reservation>;
}

/** One process's schedule (no REDIS_URL, or Redis unreachable). */
export class MemoryRateLimiter implements FleetRateLimiter {
  readonly kind = 'memory' as const;
  private readonly next = new Map<RateGroup, number>();

  constructor(
    private readonly limits: RateLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  async reserve(group: RateGroup, maxWaitMs: number): Promise<Reservation> {
    const limit = this.limits[group];
    if (!(limit > 0)) return { ok: true, waitMs: 0 };
    const now = this.clock();
    const slot = Math.max(this.next.get(group) ?? now, now);
    const waitMs = slot - now;
    if (waitMs > maxWaitMs) return { ok: false, retryAfterMs: waitMs - maxWaitMs };
    this.next.set(group, slot + 1000 / limit);
    return { ok: true, waitMs };
  }
}

/*
 * KEYS: the group's schedule (`<prefix>ratelimit:<group>`, one key, so no hash
 * tag is needed on a cluster; each group's key lands on some master).
 * ARGV: interval (µs), max wait (µs).
 * Redis' own clock, so every instance reads the same time. Returns {1, wait µs} or {0, µs until a slot}.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local slot = tonumber(redis.call('GET', KEYS[1]) or '0')
if slot < now then slot = now end
local wait = slot - now
local maxWait = tonumber(ARGV[2])
if wait > maxWait then return {0, wait - maxWait} end
local nxt = slot + tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000) + 1000)
return {1, wait}
`;

type WithReserve = RedisClient & { rlReserve(key: string, intervalUs: string, maxWaitUs: string): Promise<[number, number]> };

/**
 * The fleet's schedule in Redis: every BFF instance reserves from the same
 * keys, so together they stay under the loyalty service's limits. If Redis
 * fails, it falls back to a per-instance schedule (logged once) rather than
 * stopping checkout: the fleet may then exceed the limit by the instance count,
 * and the upstream's 429s (honoured by the client) are the last guard.
 */
export class RedisRateLimiter implements FleetRateLimiter {
  readonly kind = 'redis' as const;
  private readonly redis: WithReserve;
  private readonly fallback: MemoryRateLimiter;
  private degraded = false;

  constructor(
    redis: RedisClient,
    private readonly opts: { prefix: string; limits: RateLimits; logger: Logger; clock?: () => number },
  ) {
    redis.defineCommand('rlReserve', { numberOfKeys: 1, lua: RESERVE });
    this.redis = redis as WithReserve;
    this.fallback = new MemoryRateLimiter(opts.limits, opts.clock);
  }

  async reserve(group: RateGroup, maxWaitMs: number): Promise<Reservation> {
    const limit = this.opts.limits[group];
    if (!(limit > 0)) return { ok: true, waitMs: 0 };
    try {
      const [ok, us] = await this.redis.rlReserve(
        `${this.opts.prefix}ratelimit:${group}`,
        String(Math.ceil(1e6 / limit)),
        String(Math.floor(maxWaitMs * 1000)),
      );
      if (this.degraded) this.opts.logger.info('fleet rate limiter back on Redis');
      this.degraded = false;
      return ok === 1 ? { ok: true, waitMs: Number(us) / 1000 } : { ok: false, retryAfterMs: Number(us) / 1000 };
    } catch (err) {
      if (!this.degraded)
        this.opts.logger.warn({ err: { message: (err as Error).message } }, 'fleet rate limiter cannot reach Redis; limiting per instance until it is back');
      this.degraded = true;
      return this.fallback.reserve(group, maxWaitMs);
    }
  }
}

export function createRateLimiter(opts: { redis?: RedisClient; prefix: string; limits: RateLimits; logger: Logger; clock?: () => number }): FleetRateLimiter {
  return opts.redis ? new RedisRateLimiter(opts.redis, opts) : new MemoryRateLimiter(opts.limits, opts.clock);
}

export interface RateLimitPolicyOptions {
  /** The longest a call waits for its slot; beyond, it is refused with `upstream_rate_limited`. */
  maxWaitMs: number;
  sleep?: Sleep;
}

/**
 * The CallPolicy: waits for the call's slot (up to `maxWaitMs`), or refuses it
 * with `rateLimited` (nothing sent). The client then treats the refusal like a
 * 429: it may wait for the slot and try again (LOYALTY_RETRIES), and in the end
 * a read answers 503 with Retry-After and a write goes to the outbox.
 */
export function rateLimitPolicy(limiter: FleetRateLimiter, opts: RateLimitPolicyOptions): CallPolicy {
  const sleep = opts.sleep ?? realSleep;
  return async (info, next) => {
    const r = await limiter.reserve(info.rateGroup, opts.maxWaitMs);
    if (!r.ok) throw rateLimited(Math.max(0.001, r.retryAfterMs / 1000));
    if (r.waitMs >= 1) await sleep(Math.round(r.waitMs), info.signal);
    return next();
  };
}

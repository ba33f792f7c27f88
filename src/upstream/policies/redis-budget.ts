import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { LimitBucket } from '../../contract';
import { defineScripts, type RedisClient } from '../../platform/redis';
import type { CallPriority } from '../policy';
import { askOf, BudgetRules, MemoryBudget, Reservation, UpstreamBudget } from './budget';

/*
 * One reservation, atomically, for the whole fleet (the same steps as
 * MemoryBudget.reserve, in µs on Redis' own clock).
 * KEYS: the bucket's next free slot, its log of slots taken (a sorted set
 * scored by slot), its pause; one hash tag per bucket, so a cluster runs it.
 * ARGV: interval, window, limit (-1 = no quota), max wait (all µs but the
 * limit), a member tag unique to this call.
 * Returns {1, wait µs} or {0, µs until this priority could go}.
 */
const RESERVE = `
local t0 = redis.call('TIME')
local now = tonumber(t0[1]) * 1000000 + tonumber(t0[2])
local t = now
local slot = tonumber(redis.call('GET', KEYS[1]) or '0')
if slot > t then t = slot end
local paused = tonumber(redis.call('GET', KEYS[3]) or '0')
if paused > t then t = paused end
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
if limit >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now - window))
  local from = '(' .. string.format('%.0f', t - window)
  local n = redis.call('ZCOUNT', KEYS[2], from, '+inf')
  if n >= limit then
    local leaving = redis.call('ZRANGEBYSCORE', KEYS[2], from, '+inf', 'WITHSCORES', 'LIMIT', n - limit, 1)
    t = tonumber(leaving[2]) + window
  end
end
local wait = t - now
if wait > tonumber(ARGV[4]) then return {0, wait} end
local nxt = t + tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000) + 1000)
if limit >= 0 then
  local at = string.format('%.0f', t)
  redis.call('ZADD', KEYS[2], at, at .. ':' .. ARGV[5])
  redis.call('PEXPIRE', KEYS[2], math.ceil((t + window - now) / 1000) + 1000)
end
return {1, wait}
`;

/* KEYS: the bucket's pause. ARGV: its length (µs). Extends the pause, never shortens it. */
const PAUSE = `
local t0 = redis.call('TIME')
local now = tonumber(t0[1]) * 1000000 + tonumber(t0[2])
local untilT = now + tonumber(ARGV[1])
if untilT > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], string.format('%.0f', untilT), 'PX', math.ceil(tonumber(ARGV[1]) / 1000) + 1)
end
return 1
`;

interface BudgetScripts {
  budgetReserve(
    slot: string,
    log: string,
    pause: string,
    intervalUs: string,
    windowUs: string,
    limit: string,
    maxWaitUs: string,
    tag: string,
  ): Promise<[number, number]>;
  budgetPause(pause: string, us: string): Promise<number>;
}

const us = (ms: number) => String(Math.round(ms * 1000));

/**
 * The fleet's budget in Redis: every BFF instance reserves from the same keys,
 * so together they stay inside the loyalty service's published limits. If
 * Redis fails, it falls back to a per-instance budget (logged once) rather
 * than stopping checkout: the fleet may then exceed the limits by the
 * instance count, and the upstream's 429s (which pause the bucket) are the last guard.
 */
export class RedisBudget implements UpstreamBudget {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient & BudgetScripts;
  private readonly fallback: MemoryBudget;
  private readonly tagPrefix = randomBytes(4).toString('hex');
  private calls = 0;
  private degraded = false;

  constructor(
    redis: RedisClient,
    private readonly opts: { prefix: string; rules: BudgetRules; logger: Logger },
  ) {
    this.redis = defineScripts<BudgetScripts>(redis, { budgetReserve: { keys: 3, lua: RESERVE }, budgetPause: { keys: 1, lua: PAUSE } });
    this.fallback = new MemoryBudget(opts.rules);
  }

  async reserve(bucket: LimitBucket, priority: CallPriority): Promise<Reservation> {
    const ask = askOf(this.opts.rules, bucket, priority);
    const key = this.keyOf(bucket);
    try {
      const [ok, wait] = await this.redis.budgetReserve(
        `${key}:slot`,
        `${key}:log`,
        `${key}:pause`,
        us(ask.intervalMs),
        us(ask.windowMs),
        String(ask.limit),
        us(ask.maxWaitMs),
        `${this.tagPrefix}.${(this.calls += 1)}`,
      );
      this.healthy();
      return ok === 1 ? { ok: true, waitMs: Number(wait) / 1000 } : { ok: false, retryAfterMs: Number(wait) / 1000 };
    } catch (err) {
      this.failed(err);
      return this.fallback.reserve(bucket, priority);
    }
  }

  async pause(bucket: LimitBucket, ms: number): Promise<void> {
    // Kept here as well: if Redis fails before the pause ends, this instance still honours it.
    await this.fallback.pause(bucket, ms);
    try {
      await this.redis.budgetPause(`${this.keyOf(bucket)}:pause`, us(ms));
      this.healthy();
    } catch (err) {
      this.failed(err);
    }
  }

  private keyOf(bucket: LimitBucket): string {
    return `${this.opts.prefix}{budget:${bucket}}`;
  }

  private healthy(): void {
    if (this.degraded) this.opts.logger.info('upstream budget back on Redis');
    this.degraded = false;
  }

  private failed(err: unknown): void {
    if (!this.degraded)
      this.opts.logger.warn({ err: { message: (err as Error).message } }, 'upstream budget cannot reach Redis; budgeting per instance until it is back');
    this.degraded = true;
  }
}

export function createBudget(opts: { redis?: RedisClient; prefix: string; rules: BudgetRules; logger: Logger; clock?: () => number }): UpstreamBudget {
  return opts.redis ? new RedisBudget(opts.redis, opts) : new MemoryBudget(opts.rules, opts.clock);
}

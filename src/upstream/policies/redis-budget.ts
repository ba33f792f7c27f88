import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { LimitBucket } from '../../contract';
import { defineScripts, type RedisClient } from '../../platform/redis';
import type { CallPriority } from '../policy';
import { askOf, BudgetRules, MemoryBudget, Reservation, STALE_BOOKING_MS, UpstreamBudget } from './budget';

/*
 * One reservation, atomically, for the whole fleet (the same steps as
 * MemoryBudget.reserve, in µs on Redis' own clock).
 * KEYS: the bucket's next free slot, its log of slots taken (a sorted set
 * scored by slot), its pause, its bookings that may still be moved (scored by
 * slot) and those refused when moved (scored by the slot they were refused);
 * one hash tag per bucket, so a cluster runs it.
 * ARGV: interval, window, limit (-1 = no quota), max wait (all µs but the
 * limit), a tag unique to this call, 1 for a second leg, 1 to only ask
 * whether there is room (nothing taken, no booking moved).
 * A booking is `tag|deadline|limit`: what a second leg needs to move it.
 * Returns {1, wait µs[, booking]} or {0, µs until this priority could go}.
 */
const RESERVE = `
local t0 = redis.call('TIME')
local now = tonumber(t0[1]) * 1000000 + tonumber(t0[2])
local f = function(x) return string.format('%.0f', x) end
local t = now
local slot = tonumber(redis.call('GET', KEYS[1]) or '0')
if slot > t then t = slot end
local paused = tonumber(redis.call('GET', KEYS[3]) or '0')
if paused > t then t = paused end
local interval = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local quotaSlot = function(at, lim)
  local from = '(' .. f(at - window)
  local n = redis.call('ZCOUNT', KEYS[2], from, '+inf')
  if n < lim then return at end
  local leaving = redis.call('ZRANGEBYSCORE', KEYS[2], from, '+inf', 'WITHSCORES', 'LIMIT', n - lim, 1)
  return tonumber(leaving[2]) + window
end
local take = function(at)
  local nxt = at + interval
  redis.call('SET', KEYS[1], f(nxt), 'PX', math.ceil((nxt - now) / 1000) + 1000)
  if limit >= 0 then
    redis.call('ZADD', KEYS[2], at, f(at) .. ':' .. ARGV[5])
    redis.call('PEXPIRE', KEYS[2], math.ceil((at + window - now) / 1000) + 1000)
  end
end
if limit >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', f(now - window))
  t = quotaSlot(t, limit)
end
if ARGV[7] == '1' then
  if t - now > tonumber(ARGV[4]) then return {0, t - now} end
  return {1, t - now}
end
local stale = f(now - ${STALE_BOOKING_MS * 1000})
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', stale)
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', stale)
local keep = ${STALE_BOOKING_MS * 2}
if ARGV[6] == '1' then
  local from = now
  if paused > from then from = paused - 1 end
  local found = redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. f(from), '(' .. f(t), 'WITHSCORES', 'LIMIT', 0, 1)
  if #found > 0 then
    local m = found[1]
    local _, _, deadline, lim = string.find(m, '|([^|]+)|([^|]+)$')
    lim = tonumber(lim)
    redis.call('ZREM', KEYS[4], m)
    if t <= tonumber(deadline) and (lim < 0 or quotaSlot(t, lim) == t) then
      take(t)
      redis.call('ZADD', KEYS[4], t, m)
    else
      redis.call('ZADD', KEYS[5], t, m)
      redis.call('PEXPIRE', KEYS[5], keep)
    end
    return {1, tonumber(found[2]) - now}
  end
end
local wait = t - now
if wait > tonumber(ARGV[4]) then return {0, wait} end
take(t)
if wait <= 0 or ARGV[6] == '1' then return {1, wait} end
local booking = ARGV[5] .. '|' .. f(now + tonumber(ARGV[4])) .. '|' .. ARGV[3]
redis.call('ZADD', KEYS[4], t, booking)
redis.call('PEXPIRE', KEYS[4], keep)
return {1, wait, booking}
`;

/*
 * Before a booked call sends. KEYS: the bucket's bookings that may be moved,
 * those refused. ARGV: the booking. Returns {1, wait µs} (its slot, perhaps
 * moved; it will not move again) or {0, µs until it could go}.
 */
const CONFIRM = `
local t0 = redis.call('TIME')
local now = tonumber(t0[1]) * 1000000 + tonumber(t0[2])
local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if at then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return {1, math.max(0, tonumber(at) - now)}
end
local refused = redis.call('ZSCORE', KEYS[2], ARGV[1])
if refused then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {0, math.max(1000, tonumber(refused) - now)}
end
return {1, 0}
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
    ahead: string,
    refused: string,
    intervalUs: string,
    windowUs: string,
    limit: string,
    maxWaitUs: string,
    tag: string,
    secondLeg: string,
    probe: string,
  ): Promise<[number, number, string?]>;
  budgetConfirm(ahead: string, refused: string, booking: string): Promise<[number, number]>;
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
    this.redis = defineScripts<BudgetScripts>(redis, {
      budgetReserve: { keys: 5, lua: RESERVE },
      budgetConfirm: { keys: 2, lua: CONFIRM },
      budgetPause: { keys: 1, lua: PAUSE },
    });
    this.fallback = new MemoryBudget(opts.rules);
  }

  reserve(bucket: LimitBucket, priority: CallPriority, maxWaitMs?: number): Promise<Reservation> {
    return this.ask(bucket, priority, maxWaitMs, false);
  }

  room(bucket: LimitBucket, priority: CallPriority): Promise<Reservation> {
    return this.ask(bucket, priority, undefined, true);
  }

  private async ask(bucket: LimitBucket, priority: CallPriority, maxWaitMs: number | undefined, probe: boolean): Promise<Reservation> {
    const ask = askOf(this.opts.rules, bucket, priority, maxWaitMs);
    const key = this.keyOf(bucket);
    try {
      const [ok, wait, booking] = await this.redis.budgetReserve(
        `${key}:slot`,
        `${key}:log`,
        `${key}:pause`,
        `${key}:ahead`,
        `${key}:refused`,
        us(ask.intervalMs),
        us(ask.windowMs),
        String(ask.limit),
        us(ask.maxWaitMs),
        `${this.tagPrefix}.${(this.calls += 1)}`,
        priority === 'secondLeg' ? '1' : '0',
        probe ? '1' : '0',
      );
      this.healthy();
      if (ok !== 1) return { ok: false, retryAfterMs: Number(wait) / 1000 };
      return booking ? { ok: true, waitMs: Number(wait) / 1000, booking } : { ok: true, waitMs: Number(wait) / 1000 };
    } catch (err) {
      this.failed(err);
      return probe ? this.fallback.room(bucket, priority) : this.fallback.reserve(bucket, priority, maxWaitMs);
    }
  }

  async confirm(bucket: LimitBucket, booking: string): Promise<Reservation> {
    // A booking made while Redis was away is the fallback's (`memory:…`; the fleet's start with an instance's hex tag).
    if (booking.startsWith('memory:')) return this.fallback.confirm(bucket, booking);
    const key = this.keyOf(bucket);
    try {
      const [ok, wait] = await this.redis.budgetConfirm(`${key}:ahead`, `${key}:refused`, booking);
      this.healthy();
      return ok === 1 ? { ok: true, waitMs: Number(wait) / 1000 } : { ok: false, retryAfterMs: Number(wait) / 1000 };
    } catch (err) {
      // Its slot was booked in the fleet's schedule: it goes at it (a second leg may have taken it: the upstream's 429 is the last guard).
      this.failed(err);
      return { ok: true, waitMs: 0 };
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

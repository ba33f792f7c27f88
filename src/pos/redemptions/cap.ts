/**
 * The redemption cap (REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY, or a store's own
 * `redemptionCapPointsPerCustomerDay`): the most points one customer may
 * redeem in a store day (STORE_TIME_ZONE), counted across every store and
 * instance (Redis; process memory without it).
 *
 * What counts: points are counted when they are **held**, and given back when
 * the redemption is voided or its hold ends unused. Counting only what was
 * redeemed would let a customer hold many times the cap at once (each start
 * sees only the payments before it, none of the holds beside it), and a hold
 * already locks the points it takes; counting holds bounds what can be locked
 * and spent at any moment. A give-back that is lost (a crash between the void
 * and its give-back) leaves points counted: the cap errs on the side of
 * refusing, and the count is gone with its day.
 *
 * Each customer's day is one Redis hash, a field per redemption id with its
 * points: a reservation and its check are one script (two instances starting
 * at once cannot both pass), correcting a reservation to the points actually
 * held is a write of its field, and a give-back is the field's removal, so it
 * may be done twice (the void and the sweep both) without counting twice.
 *
 * `capCheck` is the step a redemption start takes before anything is sent
 * upstream; the stand-in path calls the same function.
 */
import { problem } from '../../platform/problem';
import { defineScripts, redisUnavailable, type RedisClient } from '../../platform/redis';
import { localDate } from '../audit/store-day';
import type { PosSettings } from '../settings';
import { storePolicy } from '../terminals/policy';
import type { Store } from '../terminals/types';
import type { Logger } from 'pino';
import type { ChangeResult, RedemptionStore } from './types';

/** A customer's counted day is forgotten two days after its last write: only today's is ever read. */
const KEEP_MS = 2 * 86_400_000;

export interface CapCounter {
  /** Counts `points` for the redemption unless the day's total would go over `cap` (0: no cap); the total before, and whether counted. */
  reserve(key: string, redemptionId: string, points: number, cap: number): Promise<{ counted: boolean; used: number }>;
  /** Sets what the redemption counts for (the points its hold took), if it is still counted. */
  correct(key: string, redemptionId: string, points: number): Promise<void>;
  /** Stops counting the redemption (its points were given back); doing it again does nothing. */
  giveBack(key: string, redemptionId: string): Promise<void>;
  /** The day's total. */
  used(key: string): Promise<number>;
  /** Drops the day's count (a customer's erasure). */
  forget(key: string): Promise<void>;
}

export class MemoryCapCounter implements CapCounter {
  private readonly days = new Map<string, { at: number; ids: Map<string, number> }>();

  constructor(private readonly clock: () => number = Date.now) {}

  private day(key: string) {
    const now = this.clock();
    for (const [k, d] of this.days) if (now - d.at > KEEP_MS) this.days.delete(k);
    let d = this.days.get(key);
    if (!d) this.days.set(key, (d = { at: now, ids: new Map() }));
    d.at = now;
    return d;
  }

  async reserve(key: string, redemptionId: string, points: number, cap: number) {
    // Read and written with no await between: two starts at once cannot both pass.
    const d = this.day(key);
    const used = [...d.ids.values()].reduce((s, n) => s + n, 0);
    if (cap > 0 && used + points > cap) return { counted: false, used };
    d.ids.set(redemptionId, points);
    return { counted: true, used };
  }

  async correct(key: string, redemptionId: string, points: number) {
    const d = this.days.get(key);
    if (d?.ids.has(redemptionId)) d.ids.set(redemptionId, points);
  }

  async giveBack(key: string, redemptionId: string) {
    this.days.get(key)?.ids.delete(redemptionId);
  }

  async used(key: string) {
    return [...(this.days.get(key)?.ids.values() ?? [])].reduce((s, n) => s + n, 0);
  }

  async forget(key: string) {
    this.days.delete(key);
  }
}

/** Sums the day's fields; counts this one only if the sum plus it stays within the cap (ARGV[3], 0: none). */
const RESERVE = `local vals = redis.call('HVALS', KEYS[1])
local used = 0
for _, v in ipairs(vals) do used = used + tonumber(v) end
local cap = tonumber(ARGV[3])
if cap > 0 and used + tonumber(ARGV[2]) > cap then return {0, used} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, used}`;

/** Sets the field only if it is still there (given back meanwhile: stays given back). */
const CORRECT = `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0`;

interface CapScripts {
  redemptionCapReserve(key: string, id: string, points: string, cap: string, keepMs: string): Promise<[number, number]>;
  redemptionCapCorrect(key: string, id: string, points: string): Promise<number>;
}

export class RedisCapCounter implements CapCounter {
  private readonly redis: RedisClient & CapScripts;
  constructor(redis: RedisClient) {
    this.redis = defineScripts<CapScripts>(redis, {
      redemptionCapReserve: { keys: 1, lua: RESERVE },
      redemptionCapCorrect: { keys: 1, lua: CORRECT },
    });
  }

  async reserve(key: string, redemptionId: string, points: number, cap: number) {
    const [counted, used] = await this.redis.redemptionCapReserve(key, redemptionId, String(points), String(cap), String(KEEP_MS)).catch(unavailable);
    return { counted: counted === 1, used: Number(used) };
  }

  async correct(key: string, redemptionId: string, points: number) {
    await this.redis.redemptionCapCorrect(key, redemptionId, String(points)).catch(unavailable);
  }

  async giveBack(key: string, redemptionId: string) {
    await this.redis.hdel(key, redemptionId).catch(unavailable);
  }

  async used(key: string) {
    const vals = await this.redis.hvals(key).catch(unavailable);
    return vals.reduce((s, v) => s + Number(v), 0);
  }

  async forget(key: string) {
    await this.redis.del(key).catch(unavailable);
  }
}

function unavailable(err: unknown): never {
  throw redisUnavailable(err, 'the redemption cap');
}

/** What a redemption is counted by: its customer, its id, and the store day it started in. */
export interface CappedRedemption {
  id: string;
  customerId: string;
  /** Epoch ms it started: its store day is the one counted. */
  createdAt: number;
}

/** The cap's counter and where its keys live. */
export class RedemptionCap {
  constructor(
    readonly counter: CapCounter,
    private readonly opts: { prefix: string; timeZone: string },
  ) {}

  /** One key per customer and day: the customer's id in braces, so a cluster keeps it on one slot. */
  key(customerId: string, at: number): string {
    return `${this.opts.prefix}redemption-cap:{${customerId}}:${localDate(at, this.opts.timeZone)}`;
  }

  /** The points counted for the customer on the day of `at`. */
  usedOn(customerId: string, at: number): Promise<number> {
    return this.counter.used(this.key(customerId, at));
  }

  /** The points its hold took (an estimate was counted before it was sent). */
  correct(r: CappedRedemption, points: number): Promise<void> {
    return this.counter.correct(this.key(r.customerId, r.createdAt), r.id, points);
  }

  /**
   * A customer's erasure: the counts kept under their id (the days around `now`, all a count lives) are dropped.
   * Their holds are all ended by then (an erasure waits for them), so this only forgets what they redeemed.
   */
  async forget(customerId: string, now: number): Promise<void> {
    for (const day of [-2, -1, 0, 1]) await this.counter.forget(this.key(customerId, now + day * 86_400_000));
  }

  /** Voided, expired, or never held: its points count no more. */
  giveBack(r: CappedRedemption): Promise<void> {
    return this.counter.giveBack(this.key(r.customerId, r.createdAt), r.id);
  }
}

export type CapDeps = {
  /** Absent: nothing is counted (and nothing capped). */
  redemptionCap?: RedemptionCap;
  settings: Pick<PosSettings, 'redemptionCapPointsPerCustomerDay'>;
};

/** The store's cap: its own in the terminals file, else the fleet's setting; 0: none. */
export function capOf(deps: Pick<CapDeps, 'settings'>, store: Store): number {
  return storePolicy(store, { redemptionCapPointsPerCustomerDay: deps.settings.redemptionCapPointsPerCustomerDay ?? 0 }).redemptionCapPointsPerCustomerDay ?? 0;
}

/**
 * Before anything is sent upstream: counts `points` for the redemption (an
 * estimate where only its hold will say, corrected by `correct` then), or
 * refuses with 409 `redemption_cap_reached` when the customer's day would go
 * over the store's cap. `reserve: false` checks without counting (a start that
 * only has a code sent: its points are counted when the code places the hold).
 */
export async function capCheck(deps: CapDeps, store: Store, r: CappedRedemption, points: number, opts: { reserve?: boolean } = {}): Promise<void> {
  const cap = deps.redemptionCap;
  if (!cap) return;
  const limit = capOf(deps, store);
  if (opts.reserve === false) {
    if (limit > 0) refuseOver(limit, await cap.usedOn(r.customerId, r.createdAt), points);
    return;
  }
  const { counted, used } = await cap.counter.reserve(cap.key(r.customerId, r.createdAt), r.id, points, limit);
  if (!counted) refuseOver(limit, used, points);
}

function refuseOver(limit: number, used: number, points: number): void {
  if (used + points <= limit) return;
  const left = Math.max(0, limit - used);
  throw problem(
    'redemption_cap_reached',
    `This customer may redeem at most ${limit} points a day and has ${used} redeemed or held today: ${left} points are left, ${points} were asked for`,
    { extra: { capPoints: limit, usedPoints: used, pointsLeft: left } },
  );
}

/**
 * The redemption store, giving a redemption's points back to the cap whenever
 * a change ends it unused (`voided`, `expired`: the void, the sweep's and the
 * lease's settling). Expiries the store makes by itself (a sweep's claim, a
 * due hold found on read) reach the cap through the sweeper's `onExpired`
 * (giveBackExpired). A Proxy, as instrumentRedemptions is.
 */
export function givingBackOnEnd(store: RedemptionStore, cap: RedemptionCap | undefined, logger: Logger): RedemptionStore {
  if (!cap) return store;
  const ended = async (result: ChangeResult) => {
    if (result.ok && UNUSED_ENDS.has(result.redemption.state)) await giveBack(cap, logger, result.redemption);
    return result;
  };
  // Both: the store under this one may be a proxy whose `apply` is bound to itself, so it would not reach this `change`.
  const change: RedemptionStore['change'] = async (id, now, fn) => ended(await store.change(id, now, fn));
  const apply: RedemptionStore['apply'] = async (id, now, name, opts) => ended(await store.apply(id, now, name, opts));
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'change') return change;
      if (prop === 'apply') return apply;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(receiver) : value;
    },
  });
}

const UNUSED_ENDS = new Set<string>(['voided', 'expired']);

/** For the sweeper's `onExpired`: the expired hold's points back to the cap (never throws; a failure is logged and the points stay counted). */
export function giveBackExpired(cap: RedemptionCap | undefined, logger: Logger): (r: CappedRedemption) => void {
  return (r) => void (cap && giveBack(cap, logger, r));
}

function giveBack(cap: RedemptionCap, logger: Logger, r: CappedRedemption): Promise<void> {
  return cap.giveBack(r).catch((err: unknown) => {
    logger.warn(
      { redemptionId: r.id, err: { message: (err as Error).message } },
      'redemption cap: points of an ended redemption could not be given back; they stay counted today',
    );
  });
}

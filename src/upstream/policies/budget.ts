import type { LimitBucket } from '../../contract';
import type { CallPriority } from '../policy';

/**
 * The fleet's budget of calls to the loyalty service, per published bucket
 * (src/contract/rate-limits.ts): its rate per second and its quota per window
 * (30 s), both at once, with priorities for who gets it when it is short.
 *
 * - Rate: one schedule per bucket (GCRA): each call takes the next free slot,
 *   slots 1/rate s apart, so no second ever starts more than `rate` calls and
 *   there is no burst at window edges.
 * - Quota: a sliding log of the slots taken: a call goes only while fewer than
 *   its priority's limit were taken in the window before its slot; if not,
 *   its slot moves to when enough of them have left the window.
 * - Priorities: a second leg may fill the whole quota; a cashier's call all
 *   but the second legs' reserve; background work all but a larger reserve.
 *   Each may take a slot at most its own wait ahead (background hardly any),
 *   so when the schedule runs ahead the lower priorities are refused first.
 * - Second legs first: a second leg takes the earliest slot booked ahead
 *   (later than now) by a lower priority, and that booking moves to the slot
 *   the second leg would have had at the tail (so the slots and the quota log
 *   are the same as without the swap). A booking with a wait gets an id; its
 *   call confirms it before sending and waits for its new slot, or is refused
 *   when that is past its own max wait or its quota share. A call with no wait
 *   cannot be displaced and sends without confirming.
 * - Pause: an upstream 429 stops the bucket until its Retry-After, for every
 *   priority and every instance.
 *
 * A refused call takes nothing. Times are the budget's own clock (Redis
 * TIME for the fleet), so every instance reads the same schedule.
 */
export interface UpstreamBudget {
  readonly kind: 'redis' | 'memory';
  /** `maxWaitMs`: a shorter wait than the priority's (the till's deadline): past it, refused and nothing taken, and a booking moved past it is refused. */
  reserve(bucket: LimitBucket, priority: CallPriority, maxWaitMs?: number): Promise<Reservation>;
  /**
   * Before sending a call whose reservation named a booking: its slot now
   * (it may have been moved back for a second leg), or refused if moved past
   * what its priority may wait. A confirmed booking is not moved again.
   */
  confirm(bucket: LimitBucket, booking: string): Promise<Reservation>;
  /**
   * Whether a call of `priority` could go in `bucket` within its wait now,
   * taking nothing: for a call that starts a write whose next step needs that
   * bucket (a hold, whose sale is recorded in another bucket).
   */
  room(bucket: LimitBucket, priority: CallPriority): Promise<Reservation>;
  /** No call of `bucket` goes out for `ms` from now (a longer pause already set stands). */
  pause(bucket: LimitBucket, ms: number): Promise<void>;
}

/**
 * Go after `waitMs` (then, if it names a `booking`, confirm it); or refused:
 * budget for this priority is `retryAfterMs` away.
 */
export type Reservation = { ok: true; waitMs: number; booking?: string } | { ok: false; retryAfterMs: number };

/** A bucket's figures; 0 = no limit of that kind. */
export interface BucketLimit {
  /** Calls per second. */
  rate: number;
  /** Calls per quota window. */
  quota: number;
}

export interface PriorityRule {
  /** Per cent of each quota this priority must leave to those above it. */
  reservePercent: number;
  /** Buckets where it leaves another share (instead of `reservePercent`). */
  reservePercentIn?: Partial<Record<LimitBucket, number>>;
  /** The longest this priority waits for its slot before it is refused. */
  maxWaitMs: number;
}

export interface BudgetRules {
  limits: Readonly<Record<LimitBucket, BucketLimit>>;
  windowMs: number;
  priorities: Readonly<Record<CallPriority, PriorityRule>>;
  /**
   * How much later than its slot a call may reach the loyalty service (a
   * timer firing late, the network), which counts from its arrival: each
   * window is counted this much longer (a rate's second, the quota's window),
   * so calls sent at the full rate still arrive inside it. Default 0.
   */
  marginMs?: number;
}

/** What one reservation asks of a bucket's state, the same for the memory and the Redis budget. */
export interface Ask {
  intervalMs: number;
  windowMs: number;
  /** Slots this priority may see taken in the window before its own; -1 = no quota. */
  limit: number;
  maxWaitMs: number;
}

export function askOf(rules: BudgetRules, bucket: LimitBucket, priority: CallPriority, maxWaitMs?: number): Ask {
  const { rate, quota } = rules.limits[bucket];
  const rule = rules.priorities[priority];
  const reserve = rule.reservePercentIn?.[bucket] ?? rule.reservePercent;
  const margin = rules.marginMs ?? 0;
  return {
    intervalMs: rate > 0 ? (1000 + margin) / rate : 0,
    windowMs: rules.windowMs + margin,
    // At least one, so a tiny quota still lets every priority through now and then.
    limit: quota > 0 ? Math.max(1, Math.floor((quota * (100 - reserve)) / 100)) : -1,
    maxWaitMs: maxWaitMs === undefined ? rule.maxWaitMs : Math.max(0, Math.min(rule.maxWaitMs, maxWaitMs)),
  };
}

/** A booking that may still be moved back for a second leg (or was refused when it was). */
interface Booking {
  slot: number;
  /** The latest slot its priority may wait for. */
  deadline: number;
  /** Its priority's quota limit (see Ask). */
  limit: number;
  refused: boolean;
}

interface BucketState {
  /** The next free slot. */
  slot: number;
  /** Slots taken, oldest first (each slot is at or after the ones before it); those before `first` have left every window. */
  taken: number[];
  first: number;
  pausedUntil: number;
  /** Bookings with a wait, not yet confirmed, by id. */
  bookings: Map<string, Booking>;
}

/** The index of the first slot in `taken` (from `from`) later than `t`. */
function firstAfter(taken: readonly number[], from: number, t: number): number {
  let lo = from;
  let hi = taken.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (taken[mid] > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Unconfirmed bookings this old are forgotten (their call was abandoned). */
export const STALE_BOOKING_MS = 60_000;

/** One process's budget (no REDIS_URL, or Redis unreachable): the same rules as the fleet's. */
export class MemoryBudget implements UpstreamBudget {
  readonly kind = 'memory' as const;
  private readonly buckets = new Map<LimitBucket, BucketState>();
  private ids = 0;

  constructor(
    private readonly rules: BudgetRules,
    private readonly clock: () => number = Date.now,
  ) {}

  async reserve(bucket: LimitBucket, priority: CallPriority, maxWaitMs?: number): Promise<Reservation> {
    const ask = askOf(this.rules, bucket, priority, maxWaitMs);
    const now = this.clock();
    const b = this.state(bucket);
    const t = this.earliest(b, ask, now);
    if (priority === 'secondLeg') {
      const swapped = this.displace(b, ask, now, t);
      if (swapped !== undefined) return { ok: true, waitMs: swapped - now };
    }
    const waitMs = t - now;
    if (waitMs > ask.maxWaitMs) return { ok: false, retryAfterMs: waitMs };
    this.take(b, ask, t);
    if (waitMs <= 0 || priority === 'secondLeg') return { ok: true, waitMs };
    const booking = `memory:${(this.ids += 1)}`;
    b.bookings.set(booking, { slot: t, deadline: now + ask.maxWaitMs, limit: ask.limit, refused: false });
    return { ok: true, waitMs, booking };
  }

  async room(bucket: LimitBucket, priority: CallPriority): Promise<Reservation> {
    const ask = askOf(this.rules, bucket, priority);
    const now = this.clock();
    const b = this.state(bucket);
    const t = this.earliest(b, ask, now);
    const waitMs = t - now;
    return waitMs > ask.maxWaitMs ? { ok: false, retryAfterMs: waitMs } : { ok: true, waitMs };
  }

  async confirm(bucket: LimitBucket, booking: string): Promise<Reservation> {
    const b = this.state(bucket);
    const got = b.bookings.get(booking);
    b.bookings.delete(booking);
    const wait = got ? got.slot - this.clock() : 0;
    if (got?.refused) return { ok: false, retryAfterMs: Math.max(1, wait) };
    return { ok: true, waitMs: Math.max(0, wait) };
  }

  async pause(bucket: LimitBucket, ms: number): Promise<void> {
    const b = this.state(bucket);
    b.pausedUntil = Math.max(b.pausedUntil, this.clock() + ms);
  }

  /** The first slot a call of `ask` could take from `now`: the schedule's next, past the pause, inside its quota share. */
  private earliest(b: BucketState, ask: Ask, now: number): number {
    const t = Math.max(now, b.slot, b.pausedUntil);
    if (ask.limit < 0) return t;
    this.forget(b, now - ask.windowMs);
    return this.quotaSlot(b, ask, t, ask.limit);
  }

  /** The slot `t` or later at which fewer than `limit` slots are taken in the window before it. */
  private quotaSlot(b: BucketState, ask: Ask, t: number, limit: number): number {
    const from = firstAfter(b.taken, b.first, t - ask.windowMs);
    const inWindow = b.taken.length - from;
    // Full: the slot moves to when enough of those slots have left the window.
    return inWindow >= limit ? b.taken[from + inWindow - limit] + ask.windowMs : t;
  }

  private take(b: BucketState, ask: Ask, t: number): void {
    b.slot = t + ask.intervalMs;
    if (ask.limit >= 0) b.taken.push(t);
  }

  /**
   * A second leg whose slot would be `tail`: it takes the earliest booking
   * later than now (and the pause) and before `tail`; that booking moves to
   * `tail` if its own wait and quota share allow, else it is refused and
   * `tail` stays free. Returns the slot taken, if any.
   */
  private displace(b: BucketState, ask: Ask, now: number, tail: number): number | undefined {
    let id: string | undefined;
    let found: Booking | undefined;
    for (const [k, v] of b.bookings) {
      if (v.refused || v.slot <= now || v.slot < b.pausedUntil || v.slot >= tail) continue;
      if (!found || v.slot < found.slot) [id, found] = [k, v];
    }
    if (!found || id === undefined) return undefined;
    const slot = found.slot;
    const fits = tail <= found.deadline && (found.limit < 0 || this.quotaSlot(b, ask, tail, found.limit) === tail);
    if (fits) this.take(b, ask, tail);
    b.bookings.set(id, { ...found, slot: tail, refused: !fits });
    return slot;
  }

  private state(bucket: LimitBucket): BucketState {
    let b = this.buckets.get(bucket);
    if (!b) this.buckets.set(bucket, (b = { slot: 0, taken: [], first: 0, pausedUntil: 0, bookings: new Map() }));
    if (b.bookings.size > 256) {
      const stale = this.clock() - STALE_BOOKING_MS;
      for (const [k, v] of b.bookings) if (v.slot < stale) b.bookings.delete(k);
    }
    return b;
  }

  /** Drops the slots at or before `t` (they count in no window from now on). */
  private forget(b: BucketState, t: number): void {
    b.first = firstAfter(b.taken, b.first, t);
    if (b.first > 1024 && b.first * 2 > b.taken.length) {
      b.taken = b.taken.slice(b.first);
      b.first = 0;
    }
  }
}

import type { Applied, CouponLockTransition } from '../../money/machines';
import { COUPON_LOCK_MACHINE, transitionRefusal, type CouponLockState } from '../../money/machines';
import type { RecordRules } from '../../money/records/types';
import type { ClaimLease } from '../../money/lease';

/**
 * A coupon lock: the BFF's record of coupons locked upstream for one sale.
 * States and transitions: COUPON_LOCK_MACHINE (../../money/machines.ts). A
 * payment claims it (`paying`) and burns the coupons (`used`); the till's
 * release claims it (`releasing`) and frees them (`released`); nobody paying
 * in time makes it `abandoned` (the sweeper releases it upstream).
 */
export type { CouponLockState };
/** States with a live upstream lock: tracked in the release index. */
export const OPEN_LOCK_STATES: readonly CouponLockState[] = ['locked', 'paying', 'releasing'];

export interface LockedCoupon {
  code: string;
  /** fixed, percentage, shipping, product, ... as the loyalty service says. */
  type: string;
  value: number;
  /** Money this coupon takes off this basket (0 for non-money rewards). */
  worth: number;
}

export interface CouponLock {
  /** `cpl_` + random; what the till names in later calls. */
  id: string;
  storeId: string;
  terminalId: string;
  customerId: string;
  lockReference: string;
  basketTotal: number;
  coupons: LockedCoupon[];
  state: CouponLockState;
  /** Epoch ms the upstream lock ends. */
  expiresAt: number;
  /** Epoch ms the sweeper releases it (expiresAt less the safety margin): no payment may name it after. */
  releaseAt: number;
  /** The payment that claimed it (`paying`) and burned it (`used`). */
  paymentId?: string;
  /** What that payment paid (`totalPaid`): how its record upstream is told from another sale's. */
  paidTotal?: number;
  createdAt: number;
  updatedAt: number;
  /** Bumped by every write (compare-and-set). */
  version: number;
  /** While `paying` or `releasing`: who claimed it, and until when (../../money/lease.ts). */
  lease?: ClaimLease;
}

export type CouponLockChange =
  { ok: true; lock: CouponLock } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'rejected'; lock: CouponLock; detail: string };

/** Where coupon locks live: Redis, or memory for a single instance. Both pass one test suite. */
export interface CouponLockStore {
  readonly kind: 'redis' | 'memory';
  create(lock: CouponLock): Promise<void>;
  get(id: string): Promise<CouponLock | null>;
  /** Atomic read-modify-write; `change` returns the next record or why not. Open locks (OPEN_LOCK_STATES) stay in the release index. */
  change(id: string, now: number, change: (current: CouponLock) => CouponLock | string): Promise<CouponLockChange>;
  /** Applies a named transition of COUPON_LOCK_TRANSITIONS inside the same compare-and-set. */
  apply(id: string, now: number, name: CouponLockTransition, opts?: Applied<CouponLock>): Promise<CouponLockChange>;
  /**
   * Claims up to `limit` locks due (releaseAt <= now), each for one caller
   * only. A `locked` one is marked abandoned. One a payment or a release holds
   * (it crashed, or is still waiting for the upstream) is returned as it is and
   * kept in the index `RECHECK_MS` later, so the sweeper can ask the upstream
   * what became of it and a crash meanwhile loses nothing.
   */
  sweepDue(now: number, limit: number): Promise<CouponLock[]>;
  countOpen(): Promise<number>;
  /** Claims a release before leases wrote: given a lease from their last write (see ../../money/records). Returns how many. */
  /** Every lock kept, in batches (a customer's erasure looks for theirs); a whole-store pass. */
  list(each: (locks: CouponLock[]) => Promise<void>): Promise<void>;
  adoptLeaselessClaims(now: number, stopped?: () => boolean): Promise<number>;
  /**
   * The codes a payment burned through a lock (as the lock names them), or
   * null when no lock was used by that payment. Written when a lock becomes
   * `used`, and kept as long as sale records (`usedKeepMs`), far longer than
   * the lock itself, so a refund or void long after the sale still finds them.
   */
  usedBy(paymentId: string): Promise<string[] | null>;
}

/** How long a due lock a payment holds waits before the sweeper looks at it again. */
export const RECHECK_MS = 30_000;

/** Kept this long after it ends, so a late GET or retry still finds it. */
const KEEP_AFTER_END_MS = 24 * 3600_000;

/** How long a payment's used coupons are kept when the store is not told (see CouponLockStore.usedBy). */
export const DEFAULT_USED_KEEP_MS = KEEP_AFTER_END_MS;

export function retentionMs(l: CouponLock, now: number): number {
  return (isOpenLock(l) ? Math.max(0, l.expiresAt - now) : 0) + KEEP_AFTER_END_MS;
}

export const isOpenLock = (l: CouponLock) => OPEN_LOCK_STATES.includes(l.state);

/**
 * A lock as stored by an earlier version, read in today's states: a payment's
 * claim was `locked` with a paymentId, a release's `locked` with `releasing`.
 * So a rolling upgrade neither abandons a lock a payment holds nor lets
 * another payment take it.
 */
export function fromStored(stored: CouponLock & { releasing?: true }): CouponLock {
  const { releasing, ...l } = stored;
  if (l.state !== 'locked') return l;
  // Its total was not kept, so the upstream's record cannot show it is this payment: it ends `abandoned` once the upstream lock has.
  if (l.paymentId) return { ...l, state: 'paying', paidTotal: l.paidTotal ?? Number.NaN };
  return releasing ? { ...l, state: 'releasing' } : l;
}

/** The record a change proposes, as it will be written, or why COUPON_LOCK_MACHINE refuses it (both stores call this in their compare-and-set). */
export function nextVersion(current: CouponLock, proposed: CouponLock, now: number): CouponLock | string {
  const refusal = transitionRefusal(COUPON_LOCK_MACHINE, `coupon lock ${current.id}`, current.state, proposed.state);
  if (refusal) return refusal;
  if (proposed.state === 'paying' && (!proposed.paymentId || proposed.paidTotal === undefined)) return `a paying coupon lock needs its paymentId and paidTotal`;
  // No payment holds a lock that is free or being released (so one is never misread as an earlier version's claim).
  if (proposed.state === 'locked' || proposed.state === 'releasing') proposed = { ...proposed, paymentId: undefined, paidTotal: undefined };
  return { ...proposed, id: current.id, version: current.version + 1, updatedAt: now };
}

/**
 * Coupon locks as the shared record store keeps them: open locks are due at
 * their releaseAt, a due one nobody claimed is abandoned (by the sweep only),
 * and a used lock leaves its codes under its payment for `usedKeepMs`.
 */
export function couponLockRules(usedKeepMs: number): RecordRules<CouponLock> {
  return {
    noun: 'Coupon lock',
    problems: { exists: 'coupon_lock_exists', busy: 'coupon_lock_busy' },
    firstVersion: (l) => ({ ...structuredClone(l), version: 1 }),
    nextVersion,
    dueAt: (l) => (isOpenLock(l) ? l.releaseAt : undefined),
    isClaimed: (l) => l.state === 'paying' || l.state === 'releasing',
    ended: (l, now) => ({ ...l, state: 'abandoned', version: l.version + 1, updatedAt: now }),
    retentionMs,
    endsOnRead: false,
    side: {
      of: (l) => (l.state === 'used' && l.paymentId ? { id: l.paymentId, value: JSON.stringify(l.coupons.map((c) => c.code)) } : undefined),
      keepMs: usedKeepMs,
    },
  };
}

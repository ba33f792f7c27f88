/**
 * A coupon lock: the BFF's record of coupons locked upstream for one sale.
 * States: locked -> used (a payment burned them); locked -> released (the
 * till voided the sale) ; locked -> abandoned (nobody paid in time: the
 * sweeper released it upstream). Ending states are final.
 */
export type CouponLockState = 'locked' | 'used' | 'released' | 'abandoned';

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
  /** Set while a payment using this lock is in flight, and after it. */
  paymentId?: string;
  /** Set while the till's release is under way (its claim: no payment may take the lock meanwhile). */
  releasing?: true;
  createdAt: number;
  updatedAt: number;
  /** Bumped by every write (compare-and-set). */
  version: number;
}

export type CouponLockChange =
  | { ok: true; lock: CouponLock }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'rejected'; lock: CouponLock; detail: string };

/** Where coupon locks live: Redis, or memory for a single instance. Both pass one test suite. */
export interface CouponLockStore {
  readonly kind: 'redis' | 'memory';
  create(lock: CouponLock): Promise<void>;
  get(id: string): Promise<CouponLock | null>;
  /** Atomic read-modify-write; `change` returns the next record or why not. Only `locked` records stay in the release index. */
  change(id: string, now: number, change: (current: CouponLock) => CouponLock | string): Promise<CouponLockChange>;
  /**
   * Claims up to `limit` locks due (releaseAt <= now), each for one caller
   * only. One no payment holds is marked abandoned. One a payment holds (it
   * crashed, or is still waiting for the upstream) is returned still `locked`
   * and kept in the index `RECHECK_MS` later, so the sweeper can ask the
   * upstream what became of that payment and a crash meanwhile loses nothing.
   */
  sweepDue(now: number, limit: number): Promise<CouponLock[]>;
  countOpen(): Promise<number>;
  /**
   * The codes a payment burned through a lock (as the lock names them), or
   * null when no lock was used by that payment. Written when a lock becomes
   * `used`, and kept as long as sale records (`usedKeepMs`), far longer than
   * the lock itself, so a refund or void long after the sale still finds them.
   */
  usedBy(paymentId: string): Promise<string[] | null>;
}

const ENDED: readonly CouponLockState[] = ['used', 'released', 'abandoned'];

/** How long a due lock a payment holds waits before the sweeper looks at it again. */
export const RECHECK_MS = 30_000;

/** Kept this long after it ends, so a late GET or retry still finds it. */
const KEEP_AFTER_END_MS = 24 * 3600_000;

/** How long a payment's used coupons are kept when the store is not told (see CouponLockStore.usedBy). */
export const DEFAULT_USED_KEEP_MS = KEEP_AFTER_END_MS;

export function retentionMs(l: CouponLock, now: number): number {
  return (l.state === 'locked' ? Math.max(0, l.expiresAt - now) : 0) + KEEP_AFTER_END_MS;
}

/** The record a change proposes, as it will be written, or why it is refused (ending states are final). */
export function nextVersion(current: CouponLock, proposed: CouponLock, now: number): CouponLock | string {
  if (ENDED.includes(current.state) && proposed.state !== current.state) return `coupon lock ${current.id} is ${current.state}; it cannot become ${proposed.state}`;
  return { ...proposed, id: current.id, version: current.version + 1, updatedAt: now };
}

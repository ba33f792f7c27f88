import { problem } from '../../../platform/problem';
import { CouponLock, CouponLockChange, CouponLockStore, DEFAULT_USED_KEEP_MS, isOpenLock, nextVersion, RECHECK_MS, retentionMs } from './types';

/**
 * In-process coupon locks for one BFF instance without Redis (nothing survives
 * a restart). The open set is scanned on each sweep: a store holds few locks.
 */
export class MemoryCouponLockStore implements CouponLockStore {
  readonly kind = 'memory' as const;
  private readonly records = new Map<string, { lock: CouponLock; dropAt: number }>();
  private readonly open = new Set<string>();
  /** When a due lock a payment holds is looked at again (instead of its releaseAt). */
  private readonly recheckAt = new Map<string, number>();
  /** Payment id -> the codes its lock burned, and when to forget them. */
  private readonly used = new Map<string, { codes: string[]; dropAt: number }>();

  constructor(
    private readonly recheckMs = RECHECK_MS,
    private readonly usedKeepMs = DEFAULT_USED_KEEP_MS,
  ) {}

  async create(lock: CouponLock): Promise<void> {
    if (this.records.has(lock.id)) throw problem('coupon_lock_exists', `Coupon lock ${lock.id} already exists`);
    this.write({ ...structuredClone(lock), version: 1 }, lock.updatedAt);
  }

  async get(id: string): Promise<CouponLock | null> {
    const entry = this.records.get(id);
    return entry ? structuredClone(entry.lock) : null;
  }

  async change(id: string, now: number, change: (current: CouponLock) => CouponLock | string): Promise<CouponLockChange> {
    const entry = this.records.get(id);
    if (!entry) return { ok: false, reason: 'not_found' };
    const proposed = change(structuredClone(entry.lock));
    const next = typeof proposed === 'string' ? proposed : nextVersion(entry.lock, proposed, now);
    if (typeof next === 'string') return { ok: false, reason: 'rejected', lock: structuredClone(entry.lock), detail: next };
    this.write(next, now);
    return { ok: true, lock: structuredClone(next) };
  }

  async sweepDue(now: number, limit: number): Promise<CouponLock[]> {
    const claimed: CouponLock[] = [];
    for (const id of [...this.open]) {
      if (claimed.length >= limit) break;
      const lock = this.records.get(id)?.lock;
      if (!lock || (this.recheckAt.get(id) ?? lock.releaseAt) > now) continue;
      // A payment or a release holds it: handed over as it is, and looked at again later.
      if (lock.state !== 'locked') {
        this.recheckAt.set(id, now + this.recheckMs);
        claimed.push(structuredClone(lock));
        continue;
      }
      const next: CouponLock = { ...lock, state: 'abandoned', version: lock.version + 1, updatedAt: now };
      this.write(next, now);
      claimed.push(structuredClone(next));
    }
    for (const [id, entry] of this.records) if (entry.dropAt <= now) this.records.delete(id);
    // Kept in the order they were written, all for the same time: the oldest are at the front.
    for (const [paymentId, entry] of this.used) {
      if (entry.dropAt > now) break;
      this.used.delete(paymentId);
    }
    return claimed;
  }

  async countOpen(): Promise<number> {
    return this.open.size;
  }

  async usedBy(paymentId: string): Promise<string[] | null> {
    // Forgotten ones are dropped by the sweep, on the caller's clock.
    const entry = this.used.get(paymentId);
    return entry ? [...entry.codes] : null;
  }

  private write(lock: CouponLock, now: number): void {
    this.records.set(lock.id, { lock, dropAt: now + retentionMs(lock, now) });
    if (lock.state === 'used' && lock.paymentId) this.used.set(lock.paymentId, { codes: lock.coupons.map((c) => c.code), dropAt: now + this.usedKeepMs });
    // Any write (a claim freed, a payment's end) makes its releaseAt the time to look again, as a Redis write rescores it.
    this.recheckAt.delete(lock.id);
    if (isOpenLock(lock)) this.open.add(lock.id);
    else this.open.delete(lock.id);
  }
}

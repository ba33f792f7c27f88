import { applyTransition, COUPON_LOCK_TRANSITIONS, type Applied, type CouponLockTransition } from '../../money/machines';
import type { RecordChange, RecordStore } from '../../money/records/types';
import type { CouponLock, CouponLockChange, CouponLockStore } from './types';

/** A CouponLockStore over the shared record store (../../money/records), Redis or memory: its answers in the feature's words. */
export class CouponLockRecords implements CouponLockStore {
  constructor(
    readonly kind: 'redis' | 'memory',
    private readonly records: RecordStore<CouponLock>,
  ) {}

  create(lock: CouponLock): Promise<void> {
    return this.records.create(lock);
  }

  get(id: string): Promise<CouponLock | null> {
    return this.records.get(id);
  }

  async change(id: string, now: number, change: (current: CouponLock) => CouponLock | string): Promise<CouponLockChange> {
    return asLockChange(await this.records.change(id, now, change));
  }

  apply(id: string, now: number, name: CouponLockTransition, opts?: Applied<CouponLock>): Promise<CouponLockChange> {
    return this.change(id, now, (cur) => applyTransition(COUPON_LOCK_TRANSITIONS[name], cur.state, cur, opts));
  }

  sweepDue(now: number, limit: number): Promise<CouponLock[]> {
    return this.records.sweepDue(now, limit);
  }

  countOpen(): Promise<number> {
    return this.records.countOpen();
  }

  list(each: (records: CouponLock[]) => Promise<void>): Promise<void> {
    return this.records.list(each);
  }

  adoptLeaselessClaims(now: number, stopped?: () => boolean): Promise<number> {
    return this.records.adoptLeaselessClaims(now, stopped);
  }

  async usedBy(paymentId: string): Promise<string[] | null> {
    const codes = await this.records.sideRecord(paymentId);
    return codes === null ? null : (JSON.parse(codes) as string[]);
  }
}

function asLockChange(result: RecordChange<CouponLock>): CouponLockChange {
  if (result.ok) return { ok: true, lock: result.record };
  if (result.reason === 'not_found') return result;
  return { ok: false, reason: 'rejected', lock: result.record, detail: result.detail };
}

import { MemoryRecordStore } from '../../money/records/memory-store';
import { CouponLockRecords } from './store';
import { couponLockRules, DEFAULT_USED_KEEP_MS, RECHECK_MS } from './types';

/** In-process coupon locks for one BFF instance without Redis (nothing survives a restart). */
export class MemoryCouponLockStore extends CouponLockRecords {
  constructor(recheckMs = RECHECK_MS, usedKeepMs = DEFAULT_USED_KEEP_MS) {
    super('memory', new MemoryRecordStore(couponLockRules(usedKeepMs), recheckMs));
  }
}

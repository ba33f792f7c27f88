import { randomBytes } from 'node:crypto';
import type { CouponLock } from '../../../src/pos/coupons/locks';

export const T0 = 1_760_000_000_000;

/** A free coupon lock made at `now`, its release 30 s before the upstream lock ends. */
export function aLock(overrides: Partial<CouponLock> = {}, now = T0): CouponLock {
  return {
    id: `cpl_${randomBytes(12).toString('base64url')}`,
    storeId: 'store-001',
    terminalId: 'till-03',
    customerId: 'cust-000123',
    lockReference: `LCK-${randomBytes(6).toString('hex')}`,
    basketTotal: 30,
    coupons: [{ code: 'WELCOME10', type: 'fixed', value: 10, worth: 10 }],
    state: 'locked',
    expiresAt: now + 600_000,
    releaseAt: now + 570_000,
    createdAt: now,
    updatedAt: now,
    version: 1,
    ...overrides,
  };
}

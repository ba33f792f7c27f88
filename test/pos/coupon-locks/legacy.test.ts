import { fromStored, type CouponLock } from '../../../src/pos/coupons/locks';

/** Locks an earlier version stored (claims as flags beside `locked`) read in today's states, so a rolling upgrade loses no claim. */
const stored = (extra: Partial<CouponLock> & { releasing?: true }): CouponLock =>
  ({
    id: 'cpl_1',
    storeId: 's',
    terminalId: 't',
    customerId: 'c',
    lockReference: 'L',
    basketTotal: 50,
    coupons: [],
    state: 'locked',
    expiresAt: 2,
    releaseAt: 1,
    createdAt: 0,
    updatedAt: 0,
    version: 3,
    ...extra,
  }) as CouponLock;

it("a payment's claim (locked with a paymentId) reads as paying; a release's (releasing: true) as releasing; a free lock stays locked", () => {
  expect(fromStored(stored({ paymentId: 'P1' }))).toMatchObject({ state: 'paying', paymentId: 'P1' });
  const releasing = fromStored(stored({ releasing: true }));
  expect(releasing.state).toBe('releasing');
  expect(releasing).not.toHaveProperty('releasing');
  expect(fromStored(stored({})).state).toBe('locked');
  expect(fromStored(stored({ state: 'used', paymentId: 'P1' })).state).toBe('used');
});

import { CouponsResponse } from '../../src/contract';
import { API, expectLoyaltyError, harness, START, testAccount } from './helpers';

const T = '2025-03-01T10:00:00Z';
const DAY = 24 * 3600 * 1000;

const coupons = [
  // Started before START, ends exactly one day after it; 3 uses in all, 2 per customer.
  {
    code: 'SPRING',
    name: 'Spring 15',
    value: 15,
    type: 'percentage' as const,
    target: 'Online' as const,
    startDate: '2025-03-01T00:00:00Z',
    expiryDate: '2025-03-02T10:00:00Z',
    usageLimit: 3,
    limitPerCustomer: 2,
    iconPath: 'spring.png',
  },
  {
    code: 'LATER',
    name: 'Later 5',
    value: 5,
    currency: 'USD',
    startDate: '2025-03-05T00:00:00+02:00',
    expiryDate: '2025-04-01T00:00:00Z',
    usageLimit: 0,
    limitPerCustomer: 0,
  },
  { code: 'OFF', name: 'Switched off', value: 1, startDate: '2025-01-01T00:00:00Z', expiryDate: '2026-01-01T00:00:00Z', isActive: false },
  {
    code: 'SILVER',
    name: 'Silver only',
    value: 50,
    startDate: '2025-01-01T00:00:00Z',
    expiryDate: '2026-01-01T00:00:00Z',
    audience: { tiers: [2], customerIds: ['vip'] },
  },
];

describe('sandbox coupons', () => {
  const h = harness([testAccount({ coupons })]);
  const list = async (customerId: string) => {
    const res = await h.http.get(`${API}/customers/${customerId}/coupons`).set(h.keys);
    expect(res.status).toBe(200);
    const body = CouponsResponse.parse(res.body);
    return Object.fromEntries(body.coupons.map((c) => [c.code, c]));
  };
  const pay = (customerId: string, paymentId: string, couponCodes?: string[], totalPaid = 10) =>
    h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ customerId, paymentId, paymentDate: T, totalPaid, ...(couponCodes ? { redemption: { couponCodes } } : {}) });

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    await h.seed('c1', 0);
    await h.seed('c2', 0);
    await h.seed('c3', 0);
  });

  it('lists the catalogue with every field computed against the clock', async () => {
    const all = await list('c1');
    expect(Object.keys(all).sort()).toEqual(['LATER', 'OFF', 'SPRING']);
    expect(all.SPRING).toEqual({
      name: 'Spring 15',
      code: 'SPRING',
      value: 15,
      type: 'Percentage',
      target: 'Online',
      currency: 'EGP',
      startDate: '2025-03-01T00:00:00.000Z',
      expiryDate: '2025-03-02T10:00:00.000Z',
      isExpired: false,
      isActive: true,
      usageLimit: 3,
      limitPerCustomer: 2,
      usedCount: 0,
      customerUsedCount: 0,
      isAvailableToUse: true,
      iconPath: 'spring.png',
    });
    // Not started yet: neither expired nor active.
    expect(all.LATER).toMatchObject({ currency: 'USD', startDate: '2025-03-04T22:00:00.000Z', isExpired: false, isActive: false, isAvailableToUse: false });
    expect(all.OFF).toMatchObject({ isExpired: false, isActive: false, isAvailableToUse: false });
  });

  it('answers 404/7000 for an unknown customer', async () => {
    const err = expectLoyaltyError(await h.http.get(`${API}/customers/nobody/coupons`).set(h.keys), 404, 7000);
    expect(err.message).toContain('nobody');
  });

  it('moves with the sandbox clock: starts, then expires one millisecond after expiryDate', async () => {
    await h.advance(Date.parse('2025-03-02T10:00:00Z') - START);
    expect((await list('c1')).SPRING).toMatchObject({ isExpired: false, isActive: true, isAvailableToUse: true });
    await h.advance(1);
    expect((await list('c1')).SPRING).toMatchObject({ isExpired: true, isActive: false, isAvailableToUse: false });
    const refused = expectLoyaltyError(await pay('c1', 'p1', ['SPRING']), 422, 3003);
    expect(refused.message).toMatch(/SPRING.*expired/);

    expect((await list('c1')).LATER.isActive).toBe(false);
    await h.advance(3 * DAY);
    expect((await list('c1')).LATER).toMatchObject({ isActive: true, isAvailableToUse: true });
  });

  it('counts uses per customer and in all, and refuses a coupon past either limit', async () => {
    expect((await pay('c1', 'p1', ['SPRING'])).status).toBe(200);
    expect((await list('c1')).SPRING).toMatchObject({ usedCount: 1, customerUsedCount: 1, isAvailableToUse: true });
    expect((await list('c2')).SPRING).toMatchObject({ usedCount: 1, customerUsedCount: 0, isAvailableToUse: true });

    expect((await pay('c1', 'p2', ['SPRING'])).status).toBe(200);
    expect((await list('c1')).SPRING).toMatchObject({ usedCount: 2, customerUsedCount: 2, isAvailableToUse: false });
    const mine = expectLoyaltyError(await pay('c1', 'p3', ['SPRING']), 422, 3003);
    expect(mine.message).toContain('2 of 2');
    // The refused payment left nothing behind: the same paymentId works without the coupon.
    expect((await pay('c1', 'p3')).status).toBe(200);
    expect((await list('c1')).SPRING.usedCount).toBe(2);

    expect((await pay('c2', 'p4', ['SPRING'])).status).toBe(200);
    expect((await list('c3')).SPRING).toMatchObject({ usedCount: 3, customerUsedCount: 0, isAvailableToUse: false, isActive: true });
    const all = expectLoyaltyError(await pay('c3', 'p5', ['SPRING']), 422, 3003);
    expect(all.message).toContain('usage limit');
  });

  it('a code named twice is used twice, checked against the limits as a whole', async () => {
    expectLoyaltyError(await pay('c1', 'p1', ['SPRING', 'SPRING', 'SPRING']), 422, 3003);
    expect((await list('c1')).SPRING.usedCount).toBe(0);
    expect((await pay('c1', 'p1', ['SPRING', 'SPRING'])).status).toBe(200);
    expect((await list('c1')).SPRING).toMatchObject({ usedCount: 2, customerUsedCount: 2 });
  });

  it('refuses unknown, switched-off and not-yet-started coupons', async () => {
    const unknown = expectLoyaltyError(await pay('c1', 'p1', ['NOPE']), 422, 3003);
    expect(unknown).toMatchObject({ type: 'PAYLOAD_ERROR', reason: 'CouponNotFound' });
    expect(unknown.message).toContain('NOPE');
    expect(expectLoyaltyError(await pay('c1', 'p1', ['OFF']), 422, 3003).message).toContain('not active');
    expect(expectLoyaltyError(await pay('c1', 'p1', ['LATER']), 422, 3003).message).toContain('starts at');
  });

  it('offers audience coupons only to their tiers or named customers', async () => {
    expect((await list('c1')).SILVER).toBeUndefined();
    expect(expectLoyaltyError(await pay('c1', 'p1', ['SILVER']), 422, 3003).message).toContain('not offered');
    // 1000 spent reaches Silver (tier order 2).
    expect((await pay('c1', 'p2', undefined, 1000)).status).toBe(200);
    expect((await list('c1')).SILVER).toMatchObject({ isAvailableToUse: true, usageLimit: 0, limitPerCustomer: 0 });
    await h.seed('vip', 0);
    expect((await list('vip')).SILVER.isAvailableToUse).toBe(true);
    // A customer's first payment may use a coupon offered to them by id.
    expect((await pay('vip', 'p3', ['SILVER'])).status).toBe(200);
    expect((await list('c1')).SILVER).toMatchObject({ usedCount: 1, customerUsedCount: 0 });
  });

  it('keeps the total use count when a customer is deleted, and resets with the sandbox', async () => {
    expect((await pay('c1', 'p1', ['SPRING'])).status).toBe(200);
    await h.http.delete(`${API}/customers/c1`).set(h.keys).expect(200);
    expect((await list('c2')).SPRING.usedCount).toBe(1);
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    await h.seed('c2', 0);
    expect((await list('c2')).SPRING.usedCount).toBe(0);
  });
});

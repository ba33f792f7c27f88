import { API, expectLoyaltyError, harness, START, testAccount } from './helpers';
import { expectReferenceShape } from './reference-schema';

const T = '2025-03-01T10:00:00Z';
const coupons = [
  { code: 'ONCE', name: 'Ten off, once', value: 10, startDate: '2025-01-01T00:00:00Z', expiryDate: '2026-01-01T00:00:00Z', limitPerCustomer: 1 },
  {
    code: 'PCT',
    name: 'Twenty percent',
    value: 20,
    type: 'percentage' as const,
    capping: 15,
    minOrderValue: 50,
    startDate: '2025-01-01T00:00:00Z',
    expiryDate: '2026-01-01T00:00:00Z',
  },
  { code: 'OLD', name: 'Expired', value: 5, startDate: '2024-01-01T00:00:00Z', expiryDate: '2024-12-31T00:00:00Z' },
  { code: 'TWO', name: 'Two in all', value: 5, startDate: '2025-01-01T00:00:00Z', expiryDate: '2026-01-01T00:00:00Z', usageLimit: 2 },
  { code: 'VIP', name: 'VIP only', value: 50, startDate: '2025-01-01T00:00:00Z', expiryDate: '2026-01-01T00:00:00Z', audience: { customerIds: ['vip'] } },
];

describe('sandbox coupon locks', () => {
  const h = harness([testAccount({ coupons })]);
  const validate = (body: object) => h.http.post(`${API}/coupons/validate`).set(h.keys).send(body);
  const validateOne = (code: string, body: object) => h.http.post(`${API}/coupons/${code}/validate`).set(h.keys).send(body);
  const release = (ref: string) => h.http.delete(`${API}/coupons/${ref}`).set(h.keys);
  const pay = (customerId: string, paymentId: string, redemption?: object) =>
    h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ customerId, paymentId, paymentDate: T, totalPaid: 60, ...(redemption ? { redemption } : {}) });
  const lock = async (customerId: string, codes: string[], extra: object = {}) => {
    const res = await validate({ customerId, coupons: codes, lock: true, totalPurchaseAmount: 60, ...extra });
    if (res.status !== 200) throw new Error(`lock: ${res.status} ${JSON.stringify(res.body)}`);
    expectReferenceShape('post', '/coupons/validate', res.body);
    return res.body as { lockReference: string; dateToExpire: string };
  };
  const couponOf = async (customerId: string, code: string) =>
    (await h.http.get(`${API}/customers/${customerId}/coupons`).set(h.keys).expect(200)).body.coupons.find((c: { code: string }) => c.code === code);

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    for (const id of ['c1', 'c2', 'c3', 'vip']) await h.seed(id, 0);
  });

  it('validates several codes without locking them, in the published shape', async () => {
    const res = await validate({ customerId: 'c1', coupons: ['ONCE', 'PCT'], totalPurchaseAmount: 60 }).expect(200);
    expectReferenceShape('post', '/coupons/validate', res.body);
    expect(res.body).toEqual({
      valid: true,
      coupons: [
        expect.objectContaining({ code: 'ONCE', type: 'fixed', value: 10, limitPerCustomer: 1 }),
        expect.objectContaining({ code: 'PCT', type: 'percentage', value: 20, capping: 15, minOrderValue: 50 }),
      ],
    });
    expect(res.body.lockReference).toBeUndefined();
    // Nothing was reserved: a lock of the once-only coupon still works.
    await lock('c1', ['ONCE']);
  });

  it('validates one code by path, and locks it until the sandbox clock passes the lock duration', async () => {
    const res = await validateOne('ONCE', { customerId: 'c1', lock: true, lockDuration: 5 }).expect(200);
    expectReferenceShape('post', '/coupons/{code}/validate', res.body);
    expect(res.body).toMatchObject({ valid: true, coupon: { code: 'ONCE' }, dateToExpire: new Date(START + 5 * 60_000).toISOString() });
    expect((await couponOf('c1', 'ONCE')).isAvailableToUse).toBe(false);
    // Locked for this sale: a second lock (another till) is refused.
    expect(expectLoyaltyError(await validateOne('ONCE', { customerId: 'c1', lock: true }), 422, 3003).reason).toBe('CouponLocked');
    await h.advance(5 * 60_000);
    expect((await couponOf('c1', 'ONCE')).isAvailableToUse).toBe(true);
    expect(expectLoyaltyError(await pay('c1', 'p-late', { couponsLockReference: res.body.lockReference }), 422, 3003).reason).toBe('CouponLockNotActive');
    await lock('c1', ['ONCE']);
  });

  it('a payment naming the lock burns its coupons once; the lock cannot be used again', async () => {
    const { lockReference } = await lock('c1', ['ONCE', 'TWO']);
    await pay('c1', 'p1', { couponsLockReference: lockReference }).expect(200);
    expect(await couponOf('c1', 'ONCE')).toMatchObject({ usedCount: 1, customerUsedCount: 1, isAvailableToUse: false });
    expect((await couponOf('c1', 'TWO')).usedCount).toBe(1);
    expect(expectLoyaltyError(await pay('c1', 'p2', { couponsLockReference: lockReference }), 422, 3003).reason).toBe('CouponLockNotActive');
    expect(expectLoyaltyError(await release(lockReference), 422, 9001).message).toContain('already used');
    expect((await couponOf('c1', 'TWO')).usedCount).toBe(1);
    expect(expectLoyaltyError(await validate({ customerId: 'c1', coupons: ['ONCE'], lock: true }), 422, 3003).reason).toBe('CouponCustomerLimitReached');
  });

  it('a payment naming the lock and its codes too burns each once, through the lock', async () => {
    const { lockReference } = await lock('c1', ['ONCE', 'TWO']);
    await pay('c1', 'p-both', { couponsLockReference: lockReference, couponCodes: ['ONCE', 'TWO'] }).expect(200);
    expect(await couponOf('c1', 'ONCE')).toMatchObject({ usedCount: 1, customerUsedCount: 1 });
    expect((await couponOf('c1', 'TWO')).usedCount).toBe(1);
    // A code beside the lock is still checked and counted on its own.
    const second = await lock('c2', ['TWO']);
    expect(expectLoyaltyError(await pay('c2', 'p-more', { couponsLockReference: second.lockReference, couponCodes: ['TWO', 'TWO'] }), 422, 3003).reason).toBe(
      'CouponNotAvailable',
    );
  });

  it('releases a lock once; its coupons are free again', async () => {
    const { lockReference } = await lock('c1', ['ONCE']);
    const res = await release(lockReference).expect(200);
    expectReferenceShape('delete', '/coupons/{lockReference}', res.body);
    expect(res.body).toEqual({ success: true, releasedAt: new Date(START).toISOString(), releasedCoupons: ['ONCE'] });
    expect(expectLoyaltyError(await release(lockReference), 422, 9001).message).toContain('already released');
    expectLoyaltyError(await release('lock_nope'), 404, 4004);
    await lock('c1', ['ONCE']);
  });

  it('refuses a lock that would take more uses than are left, counting other locks', async () => {
    await lock('c1', ['TWO']);
    await lock('c2', ['TWO']);
    expect(expectLoyaltyError(await validate({ customerId: 'c3', coupons: ['TWO'], lock: true }), 422, 3003).reason).toBe('CouponLocked');
    // A direct use by code is refused too while the uses are locked.
    expectLoyaltyError(await pay('c3', 'p3', { couponCodes: ['TWO'] }), 422, 3003);
  });

  it("refuses unknown, expired, exhausted, other customers', too-small-basket and unknown-customer requests, changing nothing", async () => {
    expect(expectLoyaltyError(await validate({ customerId: 'c1', coupons: ['ONCE', 'NOPE'], lock: true }), 404, 4004).message).toContain('NOPE');
    expect(expectLoyaltyError(await validate({ customerId: 'c1', coupons: ['OLD'] }), 422, 3003).reason).toBe('CouponExpired');
    expect(expectLoyaltyError(await validate({ customerId: 'c1', coupons: ['VIP'] }), 422, 3003).reason).toBe('CouponNotOffered');
    expect(expectLoyaltyError(await validate({ customerId: 'c1', coupons: ['PCT'], totalPurchaseAmount: 49.99 }), 422, 3003).reason).toBe(
      'CouponMinimumOrderValue',
    );
    expectLoyaltyError(await validate({ customerId: 'ghost', coupons: ['ONCE'] }), 404, 7000);
    await pay('c1', 'u1', { couponCodes: ['TWO'] }).expect(200);
    await pay('c2', 'u2', { couponCodes: ['TWO'] }).expect(200);
    expect(expectLoyaltyError(await validate({ customerId: 'c3', coupons: ['TWO'] }), 422, 3003).reason).toBe('CouponUsageLimitReached');
    expectLoyaltyError(await validate({ customerId: 'c1', coupons: [] }), 422, 3003);
    // The refused lock with ONCE and NOPE reserved nothing.
    expect((await couponOf('c1', 'ONCE')).isAvailableToUse).toBe(true);
    // Another customer's lock is not found for this one.
    const { lockReference } = await lock('c2', ['ONCE']);
    expectLoyaltyError(await pay('c1', 'p-other', { couponsLockReference: lockReference }), 404, 4004);
  });

  it("replaces a session's codes when validate names its lockReference", async () => {
    const first = await lock('c1', ['ONCE']);
    const second = await lock('c1', ['ONCE', 'TWO'], { lockReference: first.lockReference });
    expect(second.lockReference).not.toBe(first.lockReference);
    expectLoyaltyError(await release(first.lockReference), 422, 9001);
    await release(second.lockReference).expect(200);
  });

  it('burns by lock or by code in the published shape', async () => {
    const { lockReference } = await lock('c1', ['ONCE']);
    const res = await h.http
      .post(`${API}/coupons/burn`)
      .set(h.keys)
      .send({ customerId: 'c1', lockReference, transactionId: 'b1', coupons: ['TWO'] })
      .expect(200);
    expectReferenceShape('post', '/coupons/burn', res.body);
    expect(res.body).toEqual({ success: true, burnedAt: new Date(START).toISOString() });
    expect(await couponOf('c1', 'ONCE')).toMatchObject({ customerUsedCount: 1 });
    expect(await couponOf('c1', 'TWO')).toMatchObject({ usedCount: 1 });
    expectLoyaltyError(await h.http.post(`${API}/coupons/burn`).set(h.keys).send({ customerId: 'c1', lockReference }), 422, 3003);
  });

  it('burns a lock together with the codes it holds (as the published burn body names both) once, not twice', async () => {
    const { lockReference } = await lock('c1', ['TWO']);
    await h.http
      .post(`${API}/coupons/burn`)
      .set(h.keys)
      .send({ customerId: 'c1', lockReference, transactionId: 'b2', coupons: ['TWO'] })
      .expect(200);
    expect(await couponOf('c1', 'TWO')).toMatchObject({ usedCount: 1, customerUsedCount: 1 });
  });
});

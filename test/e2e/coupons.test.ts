import { SALE_OPERATION, Stack, startStack } from '../support/e2e';
import { setFaults } from '../pos/outbox/stack-helpers';
import { expectNoSecrets, heldRedemption, waitFor } from './helpers';

const coupons = [
  {
    code: 'WELCOME10',
    name: 'Welcome 10 EGP',
    value: 10,
    startDate: '2024-01-01T00:00:00Z',
    expiryDate: '2099-12-31T23:59:59Z',
    usageLimit: 0,
    limitPerCustomer: 1,
  },
  {
    code: 'SAVE20',
    name: '20% off',
    value: 20,
    type: 'percentage' as const,
    capping: 15,
    minOrderValue: 50,
    startDate: '2024-01-01T00:00:00Z',
    expiryDate: '2099-12-31T23:59:59Z',
  },
  { code: 'OLD', name: 'Expired', value: 5, startDate: '2024-01-01T00:00:00Z', expiryDate: '2024-06-01T00:00:00Z' },
  { code: 'VIP', name: 'VIP only', value: 50, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z', audience: { customerIds: ['vip-1'] } },
];
const LOCK_MS = 10 * 60_000;
const MARGIN_MS = 30_000;

/** Coupons at the till end to end: check, lock, pay with the lock, release, abandon; alone and with points. */
describe.each(['memory', 'redis'] as const)('coupons at the till (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { coupons } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const couponOf = async (customerId: string, code: string) =>
    (
      await s.sandboxAdmin
        .get(`/api/v4.0/integrations/customers/${customerId}/coupons`)
        .set({ apikey: 'e2e_api_key', secretkey: 'e2e_secret_key_do_not_leak_7f3a' })
        .expect(200)
    ).body.coupons.find((c: { code: string }) => c.code === code);
  const lock = (customerId: string, codes: string[], basketTotal = 100, role: 'cashier' | 'otherCashier' = 'cashier') =>
    s.pos(role).post('/coupon-locks', { customerId, codes, basketTotal });

  it('checks codes for a basket: what each is worth, or why it is refused; nothing is locked', async () => {
    await s.seed('chk-1', 0);
    const res = await s
      .pos('cashier')
      .post('/coupons/validate', { customerId: 'chk-1', codes: ['WELCOME10', 'SAVE20', 'OLD', 'NOPE', 'VIP'], basketTotal: 100 })
      .expect(200);
    expect(res.body.coupons.map((c: { code: string; usable: boolean; reason: string | null; worth: number }) => [c.code, c.usable, c.reason, c.worth])).toEqual(
      [
        ['WELCOME10', true, null, 10],
        ['SAVE20', true, null, 15],
        ['OLD', false, 'coupon_expired', 0],
        ['NOPE', false, 'coupon_not_found', 0],
        ['VIP', false, 'coupon_not_offered', 0],
      ],
    );
    const small = await s
      .pos('cashier')
      .post('/coupons/validate', { customerId: 'chk-1', codes: ['SAVE20'], basketTotal: 40 })
      .expect(200);
    expect(small.body.coupons[0]).toMatchObject({ usable: false, reason: 'coupon_minimum_not_met' });
    expect((await couponOf('chk-1', 'WELCOME10')).isAvailableToUse).toBe(true);
    const bad = await s.pos('cashier').post('/coupons/validate', { customerId: 'chk-1', codes: [], basketTotal: 10 }).expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'codes' })] });
  });

  it('locks coupons, pays with the lock (burned once), and refuses the lock a second time', async () => {
    await s.seed('pay-1', 0);
    const l = await lock('pay-1', ['WELCOME10', 'SAVE20']).expect(201);
    expect(l.headers.location).toBe(`/pos/v1/coupon-locks/${l.body.id}`);
    expect(l.body).toMatchObject({
      state: 'locked',
      totalWorth: 25,
      coupons: [
        { code: 'WELCOME10', worth: 10 },
        { code: 'SAVE20', worth: 15 },
      ],
      paymentId: null,
    });
    expect(l.body.secondsLeft).toBeGreaterThan(500);
    expect((await couponOf('pay-1', 'WELCOME10')).isAvailableToUse).toBe(false);
    await s.pos('otherCashier').get(`/coupon-locks/${l.body.id}`).expect(404);

    const sale = { customerId: 'pay-1', paymentId: 'cpn-sale-1', totalPaid: 75, couponLockId: l.body.id };
    const paid = await s.pos('cashier').post('/payments', sale).expect(201);
    expect(paid.body).toMatchObject({ status: 'recorded', pointsEarned: 75, couponLock: { id: l.body.id, state: 'used', coupons: ['WELCOME10', 'SAVE20'] } });
    expect(paid.body.receipt.lines.join('\n')).toContain('Coupon WELCOME10');
    expect(await couponOf('pay-1', 'WELCOME10')).toMatchObject({ customerUsedCount: 1 });
    expect(await couponOf('pay-1', 'SAVE20')).toMatchObject({ usedCount: 1 });

    // The same sale retried: already recorded, nothing burned again.
    const again = await s.pos('cashier').post('/payments', sale).expect(201);
    expect(again.body).toMatchObject({ status: 'already_recorded', receipt: null });
    const other = await s
      .pos('cashier')
      .post('/payments', { ...sale, paymentId: 'cpn-sale-2' })
      .expect(409);
    expect(other.body.code).toBe('coupon_lock_used');
    expect((await couponOf('pay-1', 'SAVE20')).usedCount).toBe(1);
    expect((await s.pos('cashier').post(`/coupon-locks/${l.body.id}/release`).expect(409)).body.code).toBe('coupon_lock_used');
    expect((await s.pos('cashier').get(`/coupon-locks/${l.body.id}`).expect(200)).body).toMatchObject({ state: 'used', paymentId: 'cpn-sale-1' });
  });

  it('the same code locked at two tills at once: one wins, the other is told why', async () => {
    await s.seed('race-1', 0);
    const [a, b] = await Promise.all([lock('race-1', ['WELCOME10']), lock('race-1', ['WELCOME10'], 100, 'otherCashier')]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([201, 422]);
    const loser = a.status === 422 ? a : b;
    expect(loser.body).toMatchObject({ code: 'coupon_refused', coupons: [{ code: 'WELCOME10', usable: false, reason: 'coupon_locked' }] });
    const [winner, role] = a.status === 201 ? [a, 'cashier' as const] : [b, 'otherCashier' as const];
    await s.pos(role).post(`/coupon-locks/${winner.body.id}/release`).expect(200);
  });

  it('releases a lock when the sale is voided; releasing again answers the same', async () => {
    await s.seed('rel-1', 0);
    const l = await lock('rel-1', ['WELCOME10']).expect(201);
    await s.pos('otherCashier').post(`/coupon-locks/${l.body.id}/release`).expect(404);
    expect((await s.pos('cashier').post(`/coupon-locks/${l.body.id}/release`).expect(200)).body.state).toBe('released');
    expect((await s.pos('cashier').post(`/coupon-locks/${l.body.id}/release`).expect(200)).body.state).toBe('released');
    expect((await couponOf('rel-1', 'WELCOME10')).isAvailableToUse).toBe(true);
    const pay = await s.pos('cashier').post('/payments', { customerId: 'rel-1', paymentId: 'rel-sale', totalPaid: 10, couponLockId: l.body.id }).expect(409);
    expect(pay.body.code).toBe('coupon_lock_not_active');
  });

  it("refuses another customer's lock and another store's lock, changing nothing", async () => {
    await s.seed('own-1', 0);
    await s.seed('own-2', 0);
    const l = await lock('own-1', ['WELCOME10']).expect(201);
    expect(
      (await s.pos('cashier').post('/payments', { customerId: 'own-2', paymentId: 'own-sale', totalPaid: 10, couponLockId: l.body.id }).expect(409)).body.code,
    ).toBe('coupon_lock_customer_mismatch');
    expect(
      (await s.pos('otherCashier').post('/payments', { customerId: 'own-1', paymentId: 'own-sale-2', totalPaid: 10, couponLockId: l.body.id }).expect(404)).body
        .code,
    ).toBe('coupon_lock_not_found');
    expect((await s.pos('cashier').get(`/coupon-locks/${l.body.id}`).expect(200)).body).toMatchObject({ state: 'locked', paymentId: null });
    expect((await lock('ghost-customer', ['WELCOME10']).expect(404)).body.code).toBe('customer_not_found');
    await s.pos('cashier').post(`/coupon-locks/${l.body.id}/release`).expect(200);
  });

  it('sells with points and a coupon together; the receipt equals the balance change', async () => {
    const r = await heldRedemption(s, 'both-1', 200, { seed: 1000 });
    const before = await s.balance('both-1');
    const l = await lock('both-1', ['WELCOME10'], 150).expect(201);
    const paid = await s
      .pos('cashier')
      .post('/payments', {
        customerId: 'both-1',
        paymentId: 'both-sale',
        totalPaid: 120,
        totalAmount: 150,
        redemptionId: r.id,
        couponLockId: l.body.id,
        lines: [{ serviceId: 'sku-1', name: 'Kettle', amount: 150 }],
      })
      .expect(201);
    expect(paid.body).toMatchObject({ pointsRedeemed: 200, redemption: { id: r.id, state: 'redeemed' }, couponLock: { state: 'used' } });
    const after = await s.balance('both-1');
    const rc = paid.body.receipt;
    expect(rc.pointsEarned).toBe(paid.body.pointsEarned);
    expect(rc.pointsEarned).toBeGreaterThan(0);
    expect(rc.pointsEarned - rc.pointsRedeemed).toBe(after.totalPointsBalance - before.totalPointsBalance);
    expect(rc.balanceAfter).toBe(after.totalPointsBalance);
    expect(rc).toMatchObject({ currency: 'EGP', pointsName: 'Stars', pendingPoints: 0, tier: { current: 'Bronze', next: 'Silver' } });
    for (const line of rc.lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(rc.lines).toContain(`Earned${' '.repeat(40 - 6 - `+${rc.pointsEarned} Stars`.length)}+${rc.pointsEarned} Stars`);
    expect(rc.lines.join('\n')).toMatch(/Coupon WELCOME10 +-10\.00 EGP/);
    expect((await couponOf('both-1', 'WELCOME10')).customerUsedCount).toBe(1);
  });

  it('previews what a sale earns, and the payment then earns exactly that; a preview with no lines is refused', async () => {
    await s.seed('prev-1', 300);
    const lines = [
      { serviceId: 'tv', amount: 100, discount: 10, category: ['electronics'] },
      { serviceId: 'mug', amount: 12.5, tags: ['triple-points'] },
    ];
    const preview = await s.pos('cashier').post('/earn-preview', { customerId: 'prev-1', totalPaid: 95, lines }).expect(200);
    expect(preview.body.points).toBeGreaterThan(95);
    expect((await s.balance('prev-1')).totalPointsBalance).toBe(300);
    const paid = await s.pos('cashier').post('/payments', { customerId: 'prev-1', paymentId: 'prev-sale', totalPaid: 95, lines }).expect(201);
    expect(paid.body.pointsEarned).toBe(preview.body.points);
    expect(paid.body.lines).toEqual(preview.body.lines);
    const empty = await s.pos('cashier').post('/earn-preview', { customerId: 'prev-1', totalPaid: 95, lines: [] }).expect(400);
    expect(empty.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'lines' })] });
  });

  it('lists the redemption rules (cached) and redeems by a listed ruleId', async () => {
    const res = await s.pos('cashier').get('/redemption-options').expect(200);
    expect(res.body.redemptionFactor).toBe(0.1);
    const rule = res.body.rules.find((r: { name: string }) => r.name === '10 EGP off');
    expect(rule).toMatchObject({ points: 100, value: 10, type: 'fixed_discount' });
    await s.pos('manager').get('/redemption-options').expect(200);
    expect(s.bff.deps.redemptionOptions.fetches).toBe(1);
    await s.seed('rules-1', 500);
    const hash = await s.hash('rules-1');
    const held = await s.pos('cashier').post('/redemptions', { customerId: 'rules-1', hash, ruleId: rule.ruleId }).expect(201);
    expect(held.body).toMatchObject({ state: 'held', points: 100, amount: 10 });
  });

  it('reads a payment and a refund back (this store only); a void carries its receipt', async () => {
    const r = await heldRedemption(s, 'back-1', 100, { seed: 500 });
    await s.pos('cashier').post('/payments', { customerId: 'back-1', paymentId: 'back-sale', totalPaid: 90, redemptionId: r.id }).expect(201);
    const refund = await s.pos('manager').post('/refunds', { customerId: 'back-1', refundId: 'back-rf', paymentId: 'back-sale', amount: 45 }).expect(201);
    expect(refund.body.receipt).toMatchObject({ pointsTakenBack: 45, pointsGivenBack: 50 });
    const pay = await s.pos('cashier').get('/payments/back-sale').expect(200);
    expect(pay.body).toMatchObject({
      paymentId: 'back-sale',
      customerId: 'back-1',
      amountPaid: 90,
      pointsEarned: 90,
      pointsRedeemed: 100,
      refunds: [{ refundId: 'back-rf', amount: 45, pointsTakenBack: 45, pointsGivenBack: 50 }],
    });
    expect((await s.pos('cashier').get('/refunds/back-rf').expect(200)).body).toMatchObject({
      refundId: 'back-rf',
      paymentId: 'back-sale',
      amount: 45,
      pointsTakenBack: 45,
      pointsGivenBack: 50,
    });
    expect((await s.pos('otherCashier').get('/payments/back-sale').expect(404)).body.code).toBe('payment_not_found');
    expect((await s.pos('otherCashier').get('/refunds/back-rf').expect(404)).body.code).toBe('refund_not_found');
    await s.pos('cashier').get('/payments/never-sold').expect(404);

    const before = await s.balance('back-1');
    const voided = await s.pos('manager').post('/payments/back-sale/void', { customerId: 'back-1' }).expect(200);
    const after = await s.balance('back-1');
    const rc = voided.body.receipt;
    expect(rc.pointsGivenBack - rc.pointsTakenBack).toBe(after.totalPointsBalance - before.totalPointsBalance);
    expect(rc.balanceAfter).toBe(after.totalPointsBalance);
  });

  it('an abandoned lock is released by the sweeper, once, and its coupons are free at once', async () => {
    await s.seed('aban-1', 0);
    const l = await lock('aban-1', ['WELCOME10']).expect(201);
    const before = s.bffs.reduce((n, b) => n + b.couponLockSweeper.abandonedCount, 0);
    await s.advance(LOCK_MS - MARGIN_MS + 1_000);
    await waitFor('the sweeper to abandon the lock', async () => (await s.pos('cashier').get(`/coupon-locks/${l.body.id}`)).body.state === 'abandoned');
    await new Promise((r) => setTimeout(r, 500));
    expect(s.bffs.reduce((n, b) => n + b.couponLockSweeper.abandonedCount, 0) - before).toBe(1);
    expect(s.logs.filter((x) => x.includes('"msg":"coupon lock abandoned"') && x.includes(l.body.id))).toHaveLength(1);
    // Released upstream (its own lock would still run for 29 s): the coupon can be locked again now.
    expect((await couponOf('aban-1', 'WELCOME10')).isAvailableToUse).toBe(true);
    const again = await lock('aban-1', ['WELCOME10']).expect(201);
    expect(
      (await s.pos('cashier').post('/payments', { customerId: 'aban-1', paymentId: 'aban-sale', totalPaid: 10, couponLockId: l.body.id }).expect(409)).body
        .code,
    ).toBe('coupon_lock_not_active');
    await s.pos('cashier').post(`/coupon-locks/${again.body.id}/release`).expect(200);
  });

  it('a release and a payment racing for one lock: exactly one wins, the other is 409, both match the end state', async () => {
    const PAIRS = 8;
    const results = await Promise.all(
      Array.from({ length: PAIRS }, async (_, i) => {
        const customerId = `race-cpl-${store}-${i}`;
        await s.seed(customerId, 0);
        const l = await lock(customerId, ['WELCOME10'], 50).expect(201);
        const pay = () => s.pos('cashier').post('/payments', { customerId, paymentId: `race-cpl-sale-${store}-${i}`, totalPaid: 40, couponLockId: l.body.id });
        const release = () => s.pos('cashier').post(`/coupon-locks/${l.body.id}/release`);
        // Alternate which request leaves first, so both orders are tried.
        const [p, r] = i % 2 ? await Promise.all([pay(), release()]) : (await Promise.all([release(), pay()])).reverse();
        const final = (await s.pos('cashier').get(`/coupon-locks/${l.body.id}`).expect(200)).body.state;
        return { p, r, final };
      }),
    );
    for (const { p, r, final } of results) {
      expect([p.status < 300, r.status < 300].filter(Boolean)).toHaveLength(1);
      if (p.status === 201) {
        expect([r.status, final, p.body.couponLock.state]).toEqual([409, 'used', 'used']);
      } else {
        expect([r.status, r.body.state, final, p.status]).toEqual([200, 'released', 'released', 409]);
        expect(p.body.code).toBe('coupon_lock_not_active');
      }
    }
  });

  it('reads a 404 on the payment as the coupon lock only when the payment named one, and frees the lock for a retry', async () => {
    const notFoundOnce = () => setFaults(s, [{ operation: SALE_OPERATION, status: 404, times: 1 }]);
    try {
      await s.seed('nf-1', 0);
      await notFoundOnce();
      const plain = await s.pos('cashier').post('/payments', { customerId: 'nf-1', paymentId: 'nf-sale-1', totalPaid: 10 }).expect(404);
      expect(plain.body.code).toBe('upstream_not_found');

      const l = await lock('nf-1', ['WELCOME10']).expect(201);
      await notFoundOnce();
      const sale = { customerId: 'nf-1', paymentId: 'nf-sale-2', totalPaid: 20, couponLockId: l.body.id };
      const refused = await s.pos('cashier').post('/payments', sale).expect(404);
      expect(refused.body.code).toBe('coupon_lock_not_found');
      // A definite refusal: the claim is freed, so the till can pay again with the same lock.
      expect((await s.pos('cashier').get(`/coupon-locks/${l.body.id}`).expect(200)).body.paymentId).toBeNull();
      expect((await s.pos('cashier').post('/payments', sale).expect(201)).body.couponLock).toMatchObject({ state: 'used' });
    } finally {
      await setFaults(s, []);
    }
  });

  it('keeps the secret key and every terminal token out of responses and logs', () => expectNoSecrets(s));
});

import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

const coupons = [
  { code: 'FIVE', name: '5 EGP off', value: 5, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z', usageLimit: 0, limitPerCustomer: 0 },
  {
    code: 'BIG20',
    name: '20% off 500 or more',
    value: 20,
    type: 'percentage' as const,
    minOrderValue: 500,
    startDate: '2024-01-01T00:00:00Z',
    expiryDate: '2099-12-31T23:59:59Z',
    usageLimit: 0,
    limitPerCustomer: 0,
  },
];

/**
 * The totals rule over every discount the BFF applies (src/pos/sales/totals.ts):
 * `totalPaid` may not be more than `totalAmount` less what the redemption and
 * each locked coupon take off this basket. The demo account's rules
 * (config/sandbox-accounts.json) are used by the ids GET /redemption-options lists:
 * 15% off (300 points, held as 30), 10 EGP off (100 points), free coffee
 * (250 points, held as 25, product coffee-small), free shipping (150 points, held as 15).
 */
describe.each(['memory', 'redis'] as const)('the totals rule covers every discount (%s store)', (store) => {
  let s: Stack;
  let rules: Record<string, string>;
  beforeAll(async () => {
    s = await startStack({ store, account: { coupons } });
    const listed = (await s.pos('cashier').get('/redemption-options').expect(200)).body.rules as { ruleId: string; name: string }[];
    rules = Object.fromEntries(listed.map((r) => [r.name, r.ruleId]));
  });
  afterAll(async () => {
    await s?.close();
  });

  const couponOf = async (customerId: string, code: string) =>
    (await s.sandboxAdmin.get(`/api/v4.0/integrations/customers/${customerId}/coupons`).set(SANDBOX_KEYS).expect(200)).body.coupons.find(
      (c: { code: string }) => c.code === code,
    );
  const lock = (customerId: string, codes: string[], basketTotal: number) =>
    s
      .pos('cashier')
      .post('/coupon-locks', { customerId, codes, basketTotal })
      .expect(201)
      .then((r) => r.body.id as string);
  const lockOf = async (id: string) => (await s.pos('cashier').get(`/coupon-locks/${id}`).expect(200)).body;
  const pay = (body: object) => s.pos('cashier').post('/payments', body);
  const byRule = async (customerId: string, rule: string, seed = 1000) => {
    await s.seed(customerId, seed);
    const res = await s
      .pos('cashier')
      .post('/redemptions', { customerId, hash: await s.hash(customerId), ruleId: rules[rule] })
      .expect(201);
    return res.body as { id: string; amount: number; points: number };
  };
  const receiptText = (res: { body: { receipt: { lines: string[] } } }) => res.body.receipt.lines.join('\n');

  it('counts a coupon: 5 off a 100 basket paid with 100 is refused and burns nothing; paid with 95 it earns on 95', async () => {
    await s.seed('dt-cpn-1', 0);
    const id = await lock('dt-cpn-1', ['FIVE'], 100);
    const refused = await pay({ customerId: 'dt-cpn-1', paymentId: 'dt-cpn-1-a', totalAmount: 100, totalPaid: 100, couponLockId: id }).expect(422);
    expect(refused.body).toMatchObject({ code: 'payment_totals_inconsistent' });
    expect(refused.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['totalAmount', 'totalPaid']);
    expect(refused.body.errors.find((e: { path: string }) => e.path === 'totalPaid').message).toContain('95');
    expect(refused.body.detail).toContain('coupon FIVE');
    // Nothing burned or earned; the lock is free for the corrected sale.
    expect(await lockOf(id)).toMatchObject({ state: 'locked', paymentId: null });
    expect(await couponOf('dt-cpn-1', 'FIVE')).toMatchObject({ customerUsedCount: 0 });
    expect((await s.balance('dt-cpn-1')).totalPointsBalance).toBe(0);

    const ok = await pay({ customerId: 'dt-cpn-1', paymentId: 'dt-cpn-1-a', totalAmount: 100, totalPaid: 95, couponLockId: id }).expect(201);
    expect(ok.body).toMatchObject({ status: 'recorded', pointsEarned: 95, couponLock: { state: 'used' } });
    expect(receiptText(ok)).toMatch(/Coupon FIVE +-5\.00 EGP/);
  });

  it("counts a coupon when the till sends no totalAmount: the lock's basket is the sale", async () => {
    await s.seed('dt-cpn-2', 0);
    const id = await lock('dt-cpn-2', ['FIVE'], 100);
    const refused = await pay({ customerId: 'dt-cpn-2', paymentId: 'dt-cpn-2-a', totalPaid: 100, couponLockId: id }).expect(422);
    expect(refused.body.code).toBe('payment_totals_inconsistent');
    expect(refused.body.errors.find((e: { path: string }) => e.path === 'totalAmount').message).toContain("coupon lock's basket (100)");
    expect(await couponOf('dt-cpn-2', 'FIVE')).toMatchObject({ customerUsedCount: 0 });
    const ok = await pay({ customerId: 'dt-cpn-2', paymentId: 'dt-cpn-2-a', totalPaid: 95, couponLockId: id }).expect(201);
    expect(ok.body).toMatchObject({ pointsEarned: 95, couponLock: { state: 'used' } });
  });

  it('refuses a lock on a smaller basket than it was locked for (20% off 500 or more, paid on a 50 sale); on its own basket it prints what it took', async () => {
    await s.seed('dt-big-1', 0);
    const id = await lock('dt-big-1', ['BIG20'], 500);
    const small = await pay({ customerId: 'dt-big-1', paymentId: 'dt-big-1-a', totalAmount: 50, totalPaid: 50, couponLockId: id }).expect(422);
    expect(small.body).toMatchObject({ code: 'coupon_lock_basket_changed', errors: [{ path: 'totalAmount' }] });
    expect(small.body.detail).toContain('500');
    // Even paid as if discounted, a 50 sale cannot burn a coupon that needs 500.
    expect((await pay({ customerId: 'dt-big-1', paymentId: 'dt-big-1-a', totalAmount: 50, totalPaid: 0, couponLockId: id }).expect(422)).body.code).toBe(
      'coupon_lock_basket_changed',
    );
    expect(await lockOf(id)).toMatchObject({ state: 'locked', paymentId: null });
    expect(await couponOf('dt-big-1', 'BIG20')).toMatchObject({ customerUsedCount: 0 });

    const ok = await pay({ customerId: 'dt-big-1', paymentId: 'dt-big-1-a', totalAmount: 500, totalPaid: 400, couponLockId: id }).expect(201);
    expect(ok.body).toMatchObject({ pointsEarned: 400, couponLock: { state: 'used' } });
    expect(receiptText(ok)).toMatch(/Coupon BIG20 +-100\.00 EGP/);
    // A fixed coupon worth the same on a smaller basket is refused too: its minimum was checked for the locked basket only.
    const fixed = await lock('dt-big-1', ['FIVE'], 100);
    expect((await pay({ customerId: 'dt-big-1', paymentId: 'dt-big-1-b', totalAmount: 90, totalPaid: 85, couponLockId: fixed }).expect(422)).body.code).toBe(
      'coupon_lock_basket_changed',
    );
    expect(await lockOf(fixed)).toMatchObject({ state: 'locked', paymentId: null });
  });

  it('takes a lock on a larger basket only when each coupon is worth the same on it', async () => {
    await s.seed('dt-big-2', 0);
    const pct = await lock('dt-big-2', ['BIG20'], 500);
    // 20% of 600 is 120, not the 100 it was locked at.
    const changed = await pay({ customerId: 'dt-big-2', paymentId: 'dt-big-2-a', totalAmount: 600, totalPaid: 480, couponLockId: pct }).expect(422);
    expect(changed.body.code).toBe('coupon_lock_basket_changed');
    expect(changed.body.detail).toContain('BIG20');
    await s.pos('cashier').post(`/coupon-locks/${pct}/release`).expect(200);

    const fixed = await lock('dt-big-2', ['FIVE'], 100);
    expect((await pay({ customerId: 'dt-big-2', paymentId: 'dt-big-2-b', totalAmount: 120, totalPaid: 116, couponLockId: fixed }).expect(422)).body.code).toBe(
      'payment_totals_inconsistent',
    );
    const ok = await pay({ customerId: 'dt-big-2', paymentId: 'dt-big-2-b', totalAmount: 120, totalPaid: 115, couponLockId: fixed }).expect(201);
    expect(receiptText(ok)).toMatch(/Coupon FIVE +-5\.00 EGP/);
  });

  it('prices a percentage rule on this basket: 15% of 1,000 is 150, so 970 is refused; 15% of 100 is 15, so 85 is right', async () => {
    const r = await byRule('dt-pct-1', '15% off');
    expect(r).toMatchObject({ points: 300, amount: 30 });
    const big = await pay({ customerId: 'dt-pct-1', paymentId: 'dt-pct-1-a', totalAmount: 1000, totalPaid: 970, redemptionId: r.id }).expect(422);
    expect(big.body.code).toBe('payment_totals_inconsistent');
    expect(big.body.errors.find((e: { path: string }) => e.path === 'totalPaid').message).toContain('850');
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'held', paymentId: null });
    expect((await s.balance('dt-pct-1')).totalPointsBalance).toBe(1000);

    const ok = await pay({ customerId: 'dt-pct-1', paymentId: 'dt-pct-1-a', totalAmount: 100, totalPaid: 85, redemptionId: r.id }).expect(201);
    expect(ok.body).toMatchObject({ status: 'recorded', pointsEarned: 85, pointsRedeemed: 300, redemption: { state: 'redeemed' } });
  });

  it('needs totalAmount to price a percentage rule (422 naming it); the redemption stays held', async () => {
    const r = await byRule('dt-pct-2', '15% off');
    const res = await pay({ customerId: 'dt-pct-2', paymentId: 'dt-pct-2-a', totalPaid: 85, redemptionId: r.id }).expect(422);
    expect(res.body).toMatchObject({ code: 'total_amount_required', errors: [{ path: 'totalAmount' }] });
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body.state).toBe('held');
    await pay({ customerId: 'dt-pct-2', paymentId: 'dt-pct-2-a', totalAmount: 100, totalPaid: 85, redemptionId: r.id }).expect(201);
  });

  it("prices a free product at its unit on the sale's lines, or at the money held when the lines do not have it", async () => {
    const lines = [
      { serviceId: 'coffee-small', quantity: 3, amount: 36 },
      { serviceId: 'cake', amount: 14 },
    ];
    const r = await byRule('dt-free-1', 'Free coffee');
    expect(r.amount).toBe(25);
    // One coffee of 12 off a 50 sale: 38 (the 25 held would allow only 25).
    expect(
      (await pay({ customerId: 'dt-free-1', paymentId: 'dt-free-1-a', totalAmount: 50, totalPaid: 38.02, redemptionId: r.id, lines }).expect(422)).body.code,
    ).toBe('payment_totals_inconsistent');
    await pay({ customerId: 'dt-free-1', paymentId: 'dt-free-1-a', totalAmount: 50, totalPaid: 38, redemptionId: r.id, lines }).expect(201);

    const r2 = await byRule('dt-free-2', 'Free coffee');
    const noCoffee = [{ serviceId: 'cake', amount: 50 }];
    expect(
      (await pay({ customerId: 'dt-free-2', paymentId: 'dt-free-2-a', totalAmount: 50, totalPaid: 26, redemptionId: r2.id, lines: noCoffee }).expect(422)).body
        .code,
    ).toBe('payment_totals_inconsistent');
    await pay({ customerId: 'dt-free-2', paymentId: 'dt-free-2-a', totalAmount: 50, totalPaid: 25, redemptionId: r2.id, lines: noCoffee }).expect(201);
  });

  it('takes no more off than the basket: a 10 off rule on a 6 sale leaves 0 to pay', async () => {
    const r = await byRule('dt-fix-1', '10 EGP off');
    expect(
      (await pay({ customerId: 'dt-fix-1', paymentId: 'dt-fix-1-a', totalAmount: 6, totalPaid: 0.02, redemptionId: r.id }).expect(422)).body.errors.find(
        (e: { path: string }) => e.path === 'totalPaid',
      ).message,
    ).toContain('at most 0 ');
    const ok = await pay({ customerId: 'dt-fix-1', paymentId: 'dt-fix-1-a', totalAmount: 6, totalPaid: 0, redemptionId: r.id }).expect(201);
    expect(ok.body).toMatchObject({ pointsEarned: 0, pointsRedeemed: 100 });
  });

  it('prices free shipping at the money the loyalty service held for it', async () => {
    const r = await byRule('dt-ship-1', 'Free shipping');
    expect(r.amount).toBe(15);
    expect((await pay({ customerId: 'dt-ship-1', paymentId: 'dt-ship-1-a', totalAmount: 100, totalPaid: 86, redemptionId: r.id }).expect(422)).body.code).toBe(
      'payment_totals_inconsistent',
    );
    await pay({ customerId: 'dt-ship-1', paymentId: 'dt-ship-1-a', totalAmount: 100, totalPaid: 85, redemptionId: r.id }).expect(201);
  });

  it('adds a percentage rule and a coupon together: 15% of 200 and 5 leave 165', async () => {
    const r = await byRule('dt-both-1', '15% off');
    const id = await lock('dt-both-1', ['FIVE'], 200);
    const sale = { customerId: 'dt-both-1', paymentId: 'dt-both-1-a', totalAmount: 200, redemptionId: r.id, couponLockId: id };
    const refused = await pay({ ...sale, totalPaid: 170 }).expect(422);
    expect(refused.body.code).toBe('payment_totals_inconsistent');
    expect(refused.body.detail).toContain("the redemption's 30");
    expect(await lockOf(id)).toMatchObject({ state: 'locked', paymentId: null });
    const ok = await pay({ ...sale, totalPaid: 165 }).expect(201);
    expect(ok.body).toMatchObject({ pointsEarned: 165, pointsRedeemed: 300, redemption: { state: 'redeemed' }, couponLock: { state: 'used' } });
    expect(receiptText(ok)).toMatch(/Coupon FIVE +-5\.00 EGP/);
  });
});

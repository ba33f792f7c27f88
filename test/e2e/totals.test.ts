import { startStack, Stack } from '../support/e2e';
import { heldRedemption } from './helpers';

/**
 * Payment totals: `totalPaid` is what was paid after discounts and
 * redeemed points, `totalAmount` the sale before them. A till that sends the
 * full amount as paid while also redeeming points would earn points on the
 * points' money value; that is refused before the loyalty service hears of it.
 * The e2e account's point is worth 0.1, so 200 points hold 20.
 */
describe.each(['memory', 'redis'] as const)('payment totals (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses totalPaid equal to totalAmount with a redemption (422, naming both fields); nothing is recorded upstream', async () => {
    const r = await heldRedemption(s, 'tot-1', 200, { seed: 500 });
    expect(r.amount).toBe(20);
    const before = await s.balance('tot-1');
    const res = await s
      .pos('cashier')
      .post('/payments', { customerId: 'tot-1', paymentId: 't-pay-1', totalAmount: 150, totalPaid: 150, redemptionId: r.id })
      .expect(422);
    expect(res.body).toMatchObject({ status: 422, code: 'payment_totals_inconsistent' });
    expect(res.body.detail).toContain('totalPaid');
    expect(res.body.detail).toContain('totalAmount');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['totalAmount', 'totalPaid']);
    expect(res.body.errors.find((e: { path: string }) => e.path === 'totalPaid').message).toContain('130');
    // Nothing moved upstream and the redemption is still free.
    expect(await s.balance('tot-1')).toEqual(before);
    expect(before).toMatchObject({ availablePointsBalance: 300, heldPoints: 200 });
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'held', paymentId: null });
    // The same payment id was never sent: with consistent totals it is recorded now, earning on what was paid.
    const ok = await s
      .pos('cashier')
      .post('/payments', { customerId: 'tot-1', paymentId: 't-pay-1', totalAmount: 150, totalPaid: 130, redemptionId: r.id })
      .expect(201);
    expect(ok.body).toMatchObject({ status: 'recorded', pointsEarned: 130, pointsRedeemed: 200, redemption: { state: 'redeemed' } });
    expect(await s.balance('tot-1')).toMatchObject({ availablePointsBalance: 430, heldPoints: 0 });
  });

  it('refuses totalPaid just over totalAmount less the redemption, and accepts it within a cent', async () => {
    const r = await heldRedemption(s, 'tot-2', 200, { seed: 500 });
    const over = await s
      .pos('cashier')
      .post('/payments', { customerId: 'tot-2', paymentId: 't-pay-2', totalAmount: 100, totalPaid: 80.02, redemptionId: r.id })
      .expect(422);
    expect(over.body.code).toBe('payment_totals_inconsistent');
    const within = await s
      .pos('cashier')
      .post('/payments', { customerId: 'tot-2', paymentId: 't-pay-2', totalAmount: 100, totalPaid: 80.01, redemptionId: r.id })
      .expect(201);
    expect(within.body).toMatchObject({ status: 'recorded', pointsRedeemed: 200 });
  });

  it('refuses totalPaid over totalAmount without a redemption; nothing is recorded upstream', async () => {
    await s.seed('tot-3', 0);
    const res = await s.pos('cashier').post('/payments', { customerId: 'tot-3', paymentId: 't-pay-3', totalAmount: 50, totalPaid: 60 }).expect(422);
    expect(res.body).toMatchObject({ code: 'payment_totals_inconsistent' });
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['totalAmount', 'totalPaid']);
    expect(await s.balance('tot-3')).toMatchObject({ availablePointsBalance: 0, totalPointsBalance: 0 });
    // totalPaid equal to totalAmount (no discount, no redemption) is a plain sale.
    const ok = await s.pos('cashier').post('/payments', { customerId: 'tot-3', paymentId: 't-pay-3', totalAmount: 50, totalPaid: 50 }).expect(201);
    expect(ok.body).toMatchObject({ status: 'recorded', pointsEarned: 50 });
  });

  it('accepts a redemption payment without totalAmount (nothing to compare)', async () => {
    const r = await heldRedemption(s, 'tot-4', 200, { seed: 500 });
    const res = await s.pos('cashier').post('/payments', { customerId: 'tot-4', paymentId: 't-pay-4', totalPaid: 150, redemptionId: r.id }).expect(201);
    expect(res.body).toMatchObject({ status: 'recorded', pointsEarned: 150, pointsRedeemed: 200 });
  });

  it("answers another store's redemption as not found, not with its totals", async () => {
    const r = await heldRedemption(s, 'tot-5', 200, { seed: 500 });
    const res = await s
      .pos('otherCashier')
      .post('/payments', { customerId: 'tot-5', paymentId: 't-pay-5', totalAmount: 150, totalPaid: 150, redemptionId: r.id })
      .expect(404);
    expect(res.body.code).toBe('redemption_not_found');
    await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200);
  });
});

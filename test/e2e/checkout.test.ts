import { startStack, Stack } from '../support/e2e';

describe.each(['memory', 'redis'] as const)('checkout with points (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('looks up, redeems by points, pays with the hold, and refunds', async () => {
    await s.seed('alice', 1000);
    const summary = await s.pos('cashier').get('/customers/alice').expect(200);
    expect(summary.body.points.available).toBe(1000);

    const hash = await s.hash('alice');
    const r = await s.pos('cashier').post('/redemptions', { customerId: 'alice', hash, points: 200 }).expect(201);
    expect(r.body).toMatchObject({ state: 'held', points: 200, amount: 20 });
    expect(r.body.secondsLeft).toBeGreaterThan(500);
    expect((await s.balance('alice')).availablePointsBalance).toBe(800);

    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId: 'alice', paymentId: 'sale-1', totalPaid: 80, totalAmount: 100, redemptionId: r.body.id })
      .expect(201);
    expect(pay.body).toMatchObject({ status: 'recorded', pointsRedeemed: 200, redemption: { id: r.body.id, state: 'redeemed' } });
    expect(pay.body.pointsEarned).toBe(80);
    expect((await s.balance('alice')).availablePointsBalance).toBe(880);

    const again = await s.pos('cashier').post('/payments', { customerId: 'alice', paymentId: 'sale-2', totalPaid: 80, redemptionId: r.body.id }).expect(409);
    expect(again.body.code).toBe('redemption_not_held');

    const refund = await s.pos('manager').post('/refunds', { customerId: 'alice', refundId: 'ref-1', paymentId: 'sale-1' }).expect(201);
    expect(refund.body).toMatchObject({ status: 'refunded', amountRefunded: 80 });
    expect((await s.balance('alice')).availablePointsBalance).toBe(1000);
  });

  it('refuses the secret key to ever appear in a response or a log line', () => {
    const all = s.logs.join('\n');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain('e2e_secret_key_do_not_leak_7f3a');
    for (const t of Object.values(s.tokens)) expect(all).not.toContain(t);
  });
});

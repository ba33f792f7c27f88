import { startStack, Stack } from '../support/e2e';

/**
 * With a return window the points a sale earns stay pending until it ends:
 * the receipt's Balance is what the customer can spend now (the published
 * `availablePointsBalance`), and what is pending is its own line.
 */
describe.each(['memory', 'redis'] as const)('receipt balance with a return window (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('Balance is the spendable points; the points still in their return window are Pending', async () => {
    const id = `pend-${store}`;
    await s.seed(id, 1000);
    const paid = await s
      .pos('cashier')
      .post('/payments', { customerId: id, paymentId: `${id}-sale`, totalPaid: 50, returnWindowDays: 14 })
      .expect(201);
    expect(await s.balance(id)).toMatchObject({ availablePointsBalance: 1000, pendingPoints: 50, totalPointsBalance: 1050 });
    const rc = paid.body.receipt;
    expect(rc).toMatchObject({ pointsEarned: 50, balanceAfter: 1000, pendingPoints: 50 });
    expect(rc.lines).toContain(`Balance${' '.repeat(40 - 7 - '1000 Stars'.length)}1000 Stars`);
    expect(rc.lines).toContain(`Pending${' '.repeat(40 - 7 - '50 Stars'.length)}50 Stars`);
  });
});

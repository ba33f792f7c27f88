import { startStack, Stack } from '../support/e2e';

/**
 * A sale remembers the store that rang it up: another store's manager cannot
 * refund or void it (404, as for another store's redemption), unless the
 * chain allows returns at any branch (RETURNS_AT_ANY_BRANCH).
 */
describe.each([
  ['memory', 'false'],
  ['redis', 'false'],
  ['redis', 'true'],
] as const)('refunds and voids of a sale (%s store, RETURNS_AT_ANY_BRANCH=%s)', (store, anyBranch) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, env: { RETURNS_AT_ANY_BRANCH: anyBranch } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it(
    anyBranch === 'true' ? 'lets any store of the chain refund and void it' : "refuses another store's manager, and lets the sale's own store refund it",
    async () => {
      await s.seed('sc-ann', 0);
      await s.pos('cashier').post('/payments', { customerId: 'sc-ann', paymentId: 'sale-A-1001', totalPaid: 100 }).expect(201);
      await s.pos('cashier').post('/payments', { customerId: 'sc-ann', paymentId: 'sale-A-1002', totalPaid: 100 }).expect(201);
      const before = (await s.balance('sc-ann')).availablePointsBalance;

      const voided = await s.pos('otherManager').post('/payments/sale-A-1001/void', { customerId: 'sc-ann' });
      const refunded = await s.pos('otherManager').post('/refunds', { customerId: 'sc-ann', refundId: 'ref-B-1', paymentId: 'sale-A-1002', amount: 50 });
      if (anyBranch === 'true') {
        expect(voided.status).toBe(200);
        expect(refunded.status).toBe(201);
        expect((await s.balance('sc-ann')).availablePointsBalance).toBeLessThan(before);
        return;
      }
      expect([voided.status, voided.body.code]).toEqual([404, 'sale_not_found']);
      expect([refunded.status, refunded.body.code]).toEqual([404, 'sale_not_found']);
      expect((await s.balance('sc-ann')).availablePointsBalance).toBe(before);
      // Store B using the same payment id for a sale of its own does not take the sale over.
      await s.pos('otherCashier').post('/payments', { customerId: 'sc-ann', paymentId: 'sale-A-1001', totalPaid: 1 }).expect(409);
      expect((await s.pos('otherManager').post('/payments/sale-A-1001/void', { customerId: 'sc-ann' })).status).toBe(404);
      // The sale's own store may.
      await s.pos('manager').post('/payments/sale-A-1001/void', { customerId: 'sc-ann' }).expect(200);
      await s.pos('manager').post('/refunds', { customerId: 'sc-ann', refundId: 'ref-A-1', paymentId: 'sale-A-1002', amount: 50 }).expect(201);
    },
  );
});

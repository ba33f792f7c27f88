import { startStack, Stack } from '../support/e2e';

/** A sale's customer deleted after the sale: its void and its refund answer 404 customer_not_found, and nothing is refunded. */
describe('a sale whose customer is gone', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
    await s.seed('gone-1', 100);
    await s.pos('cashier').post('/payments', { customerId: 'gone-1', paymentId: 'gone-sale-1', totalPaid: 50 }).expect(201);
    await s.pos('cashier').post('/payments', { customerId: 'gone-1', paymentId: 'gone-sale-2', totalPaid: 50 }).expect(201);
    await s.pos('manager').delete('/customers/gone-1').expect(200);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('its void: 404 customer_not_found', async () => {
    const res = await s.pos('manager').post('/payments/gone-sale-1/void', { customerId: 'gone-1' });
    expect([res.status, res.body.code]).toEqual([404, 'customer_not_found']);
  });

  it('its refund: 404 customer_not_found', async () => {
    const res = await s.pos('manager').post('/refunds', { customerId: 'gone-1', refundId: 'gone-ref-1', paymentId: 'gone-sale-2', amount: 10 });
    expect([res.status, res.body.code]).toEqual([404, 'customer_not_found']);
  });
});

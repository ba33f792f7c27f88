import { startStack, Stack } from '../support/e2e';

/**
 * One line shape: the till sends the same line in the payment and
 * in the refund by lines. The e2e account earns 1 point per unit of money.
 */
describe('sale lines, paid and refunded in one shape', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refunds units of a line by its total and quantity, up to what is left', async () => {
    await s.seed('line-1', 0);
    const mugs = { serviceId: 'sku-mug', sku: 'MUG-1', name: 'Mug', provider: 'Acme', quantity: 3, amount: 30, category: ['kitchen'] };
    const pay = await s
      .pos('cashier')
      .post('/payments', {
        customerId: 'line-1',
        paymentId: 'l-pay-1',
        totalPaid: 130,
        totalAmount: 130,
        lines: [mugs, { serviceId: 'sku-pot', name: 'Pot', amount: 100 }],
      })
      .expect(201);
    expect(pay.body).toMatchObject({
      status: 'recorded',
      pointsEarned: 130,
      lines: [
        { serviceId: 'sku-mug', points: 30 },
        { serviceId: 'sku-pot', points: 100 },
      ],
    });
    // One mug back: the same line, one unit.
    const one = await s
      .pos('manager')
      .post('/refunds', { customerId: 'line-1', refundId: 'l-ref-1', paymentId: 'l-pay-1', lines: [{ ...mugs, quantity: 1, amount: 10 }] })
      .expect(201);
    expect(one.body).toMatchObject({ status: 'refunded', amountRefunded: 10, pointsReversed: 10 });
    // Three more mugs are more than the two left on the line.
    const over = await s
      .pos('manager')
      .post('/refunds', { customerId: 'line-1', refundId: 'l-ref-2', paymentId: 'l-pay-1', lines: [{ ...mugs, quantity: 3, amount: 30 }] })
      .expect(422);
    expect(over.body.code).toBe('refund_exceeds_remaining');
    const two = await s
      .pos('manager')
      .post('/refunds', { customerId: 'line-1', refundId: 'l-ref-3', paymentId: 'l-pay-1', lines: [{ ...mugs, quantity: 2, amount: 20 }] })
      .expect(201);
    expect(two.body).toMatchObject({ amountRefunded: 20, pointsReversed: 20 });
    expect((await s.balance('line-1')).availablePointsBalance).toBe(100);
  });

  it('refuses a refund line in the old shape (price, title) with 400 naming the field', async () => {
    const res = await s
      .pos('manager')
      .post('/refunds', { customerId: 'line-1', refundId: 'l-ref-4', paymentId: 'l-pay-1', lines: [{ serviceId: 'sku-pot', price: 10 }] })
      .expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(JSON.stringify(res.body.errors)).toContain('lines.0');
  });
});

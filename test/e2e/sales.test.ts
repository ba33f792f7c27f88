import { startStack, Stack } from '../support/e2e';
import { expectNoSecrets, heldRedemption } from './helpers';

/**
 * Payments, sale voids and refunds, each checked against the sandbox balance.
 * The demo account earns 1 point per EGP (minimum spend 10) at Bronze, and a
 * point is worth 0.1 EGP.
 */
describe.each(['memory', 'redis'] as const)('payments, voids and refunds (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('records a payment without a redemption: points earned per line', async () => {
    await s.seed('sale-1', 100);
    const pay = await s
      .pos('cashier')
      .post('/payments', {
        customerId: 'sale-1',
        paymentId: 's-pay-1',
        totalPaid: 250,
        lines: [
          { serviceId: 'sku-tv', name: 'TV stand', amount: 200, category: ['furniture'] },
          { serviceId: 'sku-cable', amount: 50, tags: ['double-points'] },
        ],
      })
      .expect(201);
    expect(pay.body).toEqual({
      paymentId: 's-pay-1',
      customerId: 'sale-1',
      status: 'recorded',
      pointsEarned: 300,
      pointsRedeemed: 0,
      lines: [
        { serviceId: 'sku-tv', points: 200 },
        { serviceId: 'sku-cable', points: 100 },
      ],
      receipt: expect.objectContaining({ pointsEarned: 300, balanceAfter: 400 }),
    });
    expect(await s.balance('sale-1')).toMatchObject({ availablePointsBalance: 400, totalPointsBalance: 400, pendingPoints: 0 });
  });

  it('records a payment with a redemption: points redeemed and earned on what was paid', async () => {
    const r = await heldRedemption(s, 'sale-2', 200, { seed: 500 });
    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId: 'sale-2', paymentId: 's-pay-2', totalAmount: 120, totalPaid: 100, redemptionId: r.id })
      .expect(201);
    expect(pay.body).toMatchObject({ status: 'recorded', pointsRedeemed: 200, pointsEarned: 100, redemption: { id: r.id, state: 'redeemed' } });
    expect(await s.balance('sale-2')).toMatchObject({ availablePointsBalance: 400, totalPointsBalance: 400, heldPoints: 0 });
  });

  it("a payment id sent again by its store for the same sale answers already_recorded from the upstream's record, without earning twice", async () => {
    await s.seed('sale-3', 0);
    await s.pos('cashier').post('/payments', { customerId: 'sale-3', paymentId: 's-pay-3', totalPaid: 40 }).expect(201);
    const again = await s.pos('cashier').post('/payments', { customerId: 'sale-3', paymentId: 's-pay-3', totalPaid: 40 }).expect(201);
    expect(again.body).toMatchObject({ status: 'already_recorded', pointsEarned: null });
    // Another total under the same id is another sale: refused, nothing recorded.
    const other = await s.pos('cashier').post('/payments', { customerId: 'sale-3', paymentId: 's-pay-3', totalPaid: 55 }).expect(409);
    expect(other.body.code).toBe('payment_id_taken');
    expect((await s.balance('sale-3')).availablePointsBalance).toBe(40);
  });

  it('voids a completed sale as a manager: earned points taken back, redeemed points given back', async () => {
    const r = await heldRedemption(s, 'sale-4', 100, { seed: 300 });
    await s.pos('cashier').post('/payments', { customerId: 'sale-4', paymentId: 's-pay-4', totalAmount: 70, totalPaid: 60, redemptionId: r.id }).expect(201);
    expect((await s.balance('sale-4')).availablePointsBalance).toBe(260);

    const byCashier = await s.pos('cashier').post('/payments/s-pay-4/void', { customerId: 'sale-4' }).expect(403);
    expect(byCashier.body).toMatchObject({ status: 403, code: 'role_not_allowed' });
    expect((await s.balance('sale-4')).availablePointsBalance).toBe(260);

    const v = await s.pos('manager').post('/payments/s-pay-4/void', { customerId: 'sale-4' }).expect(200);
    expect(v.body).toMatchObject({
      refundId: 'void-s-pay-4',
      paymentId: 's-pay-4',
      customerId: 'sale-4',
      status: 'refunded',
      amountRefunded: 60,
      pointsReversed: 60,
    });
    expect(v.body.loyaltyTransactionId).toEqual(expect.any(String));
    expect(await s.balance('sale-4')).toMatchObject({ availablePointsBalance: 300, totalPointsBalance: 300 });

    // The void's refund id comes from the payment's, so voiding again cannot take points twice.
    const again = await s.pos('manager').post('/payments/s-pay-4/void', { customerId: 'sale-4' }).expect(409);
    expect(again.body.code).toBe('sale_already_voided');
    expect((await s.balance('sale-4')).availablePointsBalance).toBe(300);
  });

  it('refuses to void an unknown sale (404) and a cashier refund (403)', async () => {
    await s.seed('sale-5', 100);
    const unknown = await s.pos('manager').post('/payments/s-no-such/void', { customerId: 'sale-5' }).expect(404);
    expect(unknown.body.code).toBe('original_transaction_not_found');
    const cashierRefund = await s.pos('cashier').post('/refunds', { customerId: 'sale-5', refundId: 'r-x', paymentId: 's-no-such' }).expect(403);
    expect(cashierRefund.body.code).toBe('role_not_allowed');
    expect((await s.balance('sale-5')).availablePointsBalance).toBe(100);
  });

  it('rejects an absurd amount with 400 naming the field, and earns nothing', async () => {
    await s.seed('sale-10', 0);
    const res = await s.pos('cashier').post('/payments', { customerId: 'sale-10', paymentId: 's-pay-10', totalPaid: 1e300 }).expect(400);
    expect(res.body.errors).toEqual([{ path: 'totalPaid', message: expect.any(String) }]);
    const line = await s
      .pos('cashier')
      .post('/payments', { customerId: 'sale-10', paymentId: 's-pay-10', totalPaid: 5, lines: [{ serviceId: 'x', amount: 2e9 }] })
      .expect(400);
    expect(line.body.errors).toEqual([{ path: 'lines.0.amount', message: expect.any(String) }]);
    expect((await s.balance('sale-10')).availablePointsBalance).toBe(0);
  });

  it('refunds a sale in full', async () => {
    await s.seed('sale-6', 50);
    await s.pos('cashier').post('/payments', { customerId: 'sale-6', paymentId: 's-pay-6', totalPaid: 120 }).expect(201);
    expect((await s.balance('sale-6')).availablePointsBalance).toBe(170);
    const res = await s.pos('manager').post('/refunds', { customerId: 'sale-6', refundId: 's-ref-6', paymentId: 's-pay-6' }).expect(201);
    expect(res.body).toMatchObject({ refundId: 's-ref-6', paymentId: 's-pay-6', status: 'refunded', amountRefunded: 120, pointsReversed: 120 });
    expect(await s.balance('sale-6')).toMatchObject({ availablePointsBalance: 50, totalPointsBalance: 50 });
  });

  it('refunds part of a sale by amount, then the rest', async () => {
    await s.seed('sale-7', 0);
    await s.pos('cashier').post('/payments', { customerId: 'sale-7', paymentId: 's-pay-7', totalPaid: 200 }).expect(201);
    const part = await s.pos('manager').post('/refunds', { customerId: 'sale-7', refundId: 's-ref-7a', paymentId: 's-pay-7', amount: 50 }).expect(201);
    expect(part.body).toMatchObject({ status: 'refunded', amountRefunded: 50, pointsReversed: 50 });
    expect((await s.balance('sale-7')).availablePointsBalance).toBe(150);
    const rest = await s.pos('manager').post('/refunds', { customerId: 'sale-7', refundId: 's-ref-7b', paymentId: 's-pay-7' }).expect(201);
    expect(rest.body).toMatchObject({ amountRefunded: 150, pointsReversed: 150 });
    expect((await s.balance('sale-7')).availablePointsBalance).toBe(0);
    // Nothing left: a further refund is refused and takes nothing.
    const more = await s.pos('manager').post('/refunds', { customerId: 'sale-7', refundId: 's-ref-7c', paymentId: 's-pay-7', amount: 1 }).expect(422);
    expect(more.body.code).toBe('refund_exceeds_remaining');
    expect((await s.balance('sale-7')).availablePointsBalance).toBe(0);
  });

  it("refunds line items by the payment line's serviceId", async () => {
    await s.seed('sale-8', 0);
    await s
      .pos('cashier')
      .post('/payments', {
        customerId: 'sale-8',
        paymentId: 's-pay-8',
        totalPaid: 150,
        lines: [
          { serviceId: 'sku-a', amount: 100 },
          { serviceId: 'sku-b', amount: 50, category: ['electronics'] },
        ],
      })
      .expect(201);
    expect((await s.balance('sale-8')).availablePointsBalance).toBe(200);
    const res = await s
      .pos('manager')
      .post('/refunds', { customerId: 'sale-8', refundId: 's-ref-8', paymentId: 's-pay-8', lines: [{ serviceId: 'sku-b', amount: 50 }] })
      .expect(201);
    expect(res.body).toMatchObject({ status: 'refunded', amountRefunded: 50, pointsReversed: 100 });
    expect((await s.balance('sale-8')).availablePointsBalance).toBe(100);
    const unknownLine = await s
      .pos('manager')
      .post('/refunds', { customerId: 'sale-8', refundId: 's-ref-8b', paymentId: 's-pay-8', lines: [{ serviceId: 'sku-zzz', amount: 1 }] })
      .expect(422);
    expect(unknownLine.body.code).toBe('upstream_rejected');
    expect((await s.balance('sale-8')).availablePointsBalance).toBe(100);
  });

  it('gives redeemed points back in proportion on a partial refund', async () => {
    const r = await heldRedemption(s, 'sale-9', 200, { seed: 200 });
    await s.pos('cashier').post('/payments', { customerId: 'sale-9', paymentId: 's-pay-9', totalAmount: 120, totalPaid: 100, redemptionId: r.id }).expect(201);
    expect((await s.balance('sale-9')).availablePointsBalance).toBe(100);
    const res = await s.pos('manager').post('/refunds', { customerId: 'sale-9', refundId: 's-ref-9', paymentId: 's-pay-9', amount: 50 }).expect(201);
    expect(res.body).toMatchObject({ amountRefunded: 50, pointsReversed: 50 });
    // Half the payment back: half the earned points taken (50), half the redeemed points returned (100).
    expect((await s.balance('sale-9')).availablePointsBalance).toBe(150);
  });

  it('keeps the secret key and every terminal token out of responses and logs', () => expectNoSecrets(s));
});

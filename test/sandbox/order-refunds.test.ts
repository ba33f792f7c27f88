import { API, expectLoyaltyError, harness } from './helpers';
import { expectReferenceShape } from './reference-schema';

const T = '2025-03-01T10:00:00Z';

/** Refunds of tracked orders by their order id (`reverseTransactionId`), through the refund code payments use. */
describe('sandbox refunds of tracked orders', () => {
  const h = harness();
  const track = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/orders`)
      .set(h.keys)
      .send({ customerId: 'c1', orderDate: T, ...body });
  const refund = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/transactions/refund`)
      .set(h.keys)
      .send({ customerId: 'c1', transactionTime: T, ...body });
  const rowsOf = async (orderId: string) =>
    (await h.http.get(`${API}/orders/${orderId}/transactions`).set(h.keys).expect(200)).body.transactions.map(
      (t: { transactionType: string; transactionId: string; equivalentPoints: number; amount: number }) => [
        t.transactionType,
        t.transactionId,
        t.equivalentPoints,
        t.amount,
      ],
    );

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    await h.seed('c1', 500);
  });

  it('a full refund by order id takes back the earned points and gives back the redeemed ones', async () => {
    const ref = (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 100 }).expect(200)).body
      .holdReference;
    await track({ orderId: 'o1', totalPaid: 90, totalPrice: 100, redemption: { pointsHoldReference: ref } }).expect(200);
    expect((await h.balance('c1')).totalPointsBalance).toBe(500 - 100 + 90);
    // As the POS guide's example: the order id, and the whole totalPaid.
    const res = await refund({ refundTransactionId: 'rf1', reverseTransactionId: 'o1', refundAmount: 90 }).expect(200);
    expectReferenceShape('post', '/transactions/refund', res.body);
    expect(res.body).toEqual({ gameballTransactionId: expect.any(String), refundTransactionId: 'rf1', refundAmount: 90, refundEquivalentPoints: 90 });
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 500, totalEarnedPoints: 0 });
    expect(await rowsOf('o1')).toEqual([
      ['PaymentReward', 'o1', 90, 90],
      ['Redemption', 'o1', 100, 10],
      ['Refund', 'rf1', 90, 90],
      ['Cancel', 'rf1', 100, 10],
    ]);
    expect(expectLoyaltyError(await refund({ refundTransactionId: 'rf2', reverseTransactionId: 'o1' }), 422, 3003).message).toContain('fully refunded');
  });

  it('partial refunds by amount take back in proportion; one without an amount (the schema allows it) refunds the rest', async () => {
    await track({ orderId: 'o1', totalPaid: 100 }).expect(200);
    const part = await refund({ refundTransactionId: 'rf1', reverseTransactionId: 'o1', refundAmount: 25 }).expect(200);
    expect(part.body).toMatchObject({ refundAmount: 25, refundEquivalentPoints: 25 });
    expect((await h.balance('c1')).totalPointsBalance).toBe(575);
    expectLoyaltyError(await refund({ refundTransactionId: 'rf2', reverseTransactionId: 'o1', refundAmount: 75.01 }), 422, 3003);
    const rest = await refund({ refundTransactionId: 'rf3', reverseTransactionId: 'o1', refundAmount: null }).expect(200);
    expect(rest.body).toMatchObject({ refundAmount: 75, refundEquivalentPoints: 75 });
    expect((await h.balance('c1')).totalPointsBalance).toBe(500);
    expect(await rowsOf('o1')).toEqual([
      ['PaymentReward', 'o1', 100, 100],
      ['PartialRefund', 'rf1', 25, 25],
      ['Refund', 'rf3', 75, 75],
    ]);
  });

  it("refunds an order's line items by product id, at the rate each line earned", async () => {
    await track({
      orderId: 'o1',
      totalPaid: 100,
      lineItems: [
        { productId: 'tv', price: 60, quantity: 1, category: ['electronics'] }, // 120 points
        { productId: 'soap', price: 20, quantity: 2 }, // 40 points
      ],
    }).expect(200);
    const res = await refund({ refundTransactionId: 'rf1', reverseTransactionId: 'o1', lineItems: [{ productId: 'tv', price: 60 }] }).expect(200);
    expect(res.body).toMatchObject({ refundAmount: 60, refundEquivalentPoints: 120 });
    expect((await h.balance('c1')).totalPointsBalance).toBe(540);
    expectLoyaltyError(await refund({ refundTransactionId: 'rf2', reverseTransactionId: 'o1', lineItems: [{ productId: 'radio', price: 1 }] }), 422, 3003);
  });

  it("refuses an unknown order id, or another customer's (9005)", async () => {
    await h.seed('c2', 0);
    await track({ customerId: 'c2', orderId: 'o2', totalPaid: 10 }).expect(200);
    expectLoyaltyError(await refund({ refundTransactionId: 'rf1', reverseTransactionId: 'nope' }), 404, 9005);
    expectLoyaltyError(await refund({ refundTransactionId: 'rf1', reverseTransactionId: 'o2' }), 404, 9005);
  });
});

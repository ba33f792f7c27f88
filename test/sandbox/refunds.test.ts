import { API, expectLoyaltyError, harness } from './helpers';

const T = '2025-03-01T10:00:00Z';

describe('sandbox refunds', () => {
  const h = harness();
  const pay = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ paymentDate: T, ...body });
  const refund = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/transactions/refund`)
      .set(h.keys)
      .send({ customerId: 'c1', transactionTime: T, ...body });

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('a full refund (no amount) takes back every earned point', async () => {
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 120 }).expect(200);
    const res = await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ gameballTransactionId: expect.any(String), refundTransactionId: 'r1', refundAmount: 120, refundEquivalentPoints: 120 });
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 0, totalEarnedPoints: 0 });
    const again = expectLoyaltyError(await refund({ refundTransactionId: 'r2', reverseTransactionId: 'p1' }), 422, 3003);
    expect(again.message).toMatch(/fully refunded/);
  });

  it('an amount equal to totalPaid is a full refund; more than remains is refused', async () => {
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 77 }).expect(200);
    expectLoyaltyError(await refund({ refundTransactionId: 'r0', reverseTransactionId: 'p1', refundAmount: 77.01 }), 422, 3003);
    const res = await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', refundAmount: 77 });
    expect(res.body).toMatchObject({ refundAmount: 77, refundEquivalentPoints: 77 });
    expect((await h.balance('c1')).totalPointsBalance).toBe(0);
  });

  it('partial refunds by amount take back points in proportion (rounded down), never more than remains', async () => {
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 100, paymentDetails: [{ serviceId: 'a', amount: 100, category: ['electronics'] }] }).expect(200); // 200 points
    const r1 = await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', refundAmount: 33.33 });
    expect(r1.body).toMatchObject({ refundAmount: 33.33, refundEquivalentPoints: 66 });
    expect((await h.balance('c1')).totalPointsBalance).toBe(134);
    expectLoyaltyError(await refund({ refundTransactionId: 'r2', reverseTransactionId: 'p1', refundAmount: 66.68 }), 422, 3003);
    const r3 = await refund({ refundTransactionId: 'r3', reverseTransactionId: 'p1', refundAmount: 66.67 });
    // The last refund takes back everything that is left, so the sum is exact.
    expect(r3.body).toMatchObject({ refundAmount: 66.67, refundEquivalentPoints: 134 });
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 0, totalEarnedPoints: 0 });
    expectLoyaltyError(await refund({ refundTransactionId: 'r4', reverseTransactionId: 'p1', refundAmount: 0.01 }), 422, 3003);
  });

  it('refunds by line items at the rate each line earned', async () => {
    await pay({
      customerId: 'c1',
      paymentId: 'p1',
      totalPaid: 100,
      paymentDetails: [
        { serviceId: 'tv', amount: 60, category: ['electronics'] }, // 120 points
        { serviceId: 'soap', amount: 40 }, // 40 points
      ],
    }).expect(200);
    const r1 = await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', lineItems: [{ productId: 'soap', price: 10, quantity: 2 }] });
    expect(r1.body).toMatchObject({ refundAmount: 20, refundEquivalentPoints: 20 });
    const r2 = await refund({ refundTransactionId: 'r2', reverseTransactionId: 'p1', lineItems: [{ productId: 'tv', price: 60 }] });
    expect(r2.body).toMatchObject({ refundAmount: 60, refundEquivalentPoints: 120 });
    expect((await h.balance('c1')).totalPointsBalance).toBe(20);
    const over = expectLoyaltyError(
      await refund({ refundTransactionId: 'r3', reverseTransactionId: 'p1', lineItems: [{ productId: 'soap', price: 25 }] }),
      422,
      3003,
    );
    expect(over.message).toContain('soap');
    const unknown = expectLoyaltyError(
      await refund({ refundTransactionId: 'r4', reverseTransactionId: 'p1', lineItems: [{ productId: 'radio', price: 1 }] }),
      422,
      3003,
    );
    expect(unknown.message).toContain('radio');
  });

  it('mixing amount and line-item refunds never takes back more than was earned', async () => {
    await pay({
      customerId: 'c1',
      paymentId: 'p1',
      totalPaid: 100,
      paymentDetails: [
        { serviceId: 'a', amount: 60 },
        { serviceId: 'b', amount: 40 },
      ],
    }).expect(200);
    await h.seed('c1', 500); // settled balance is now 500, earned 100 of it came from p1
    expect((await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', refundAmount: 50 })).body.refundEquivalentPoints).toBe(50);
    expect((await refund({ refundTransactionId: 'r2', reverseTransactionId: 'p1', lineItems: [{ productId: 'a', price: 60 }] })).body).toMatchObject({
      refundAmount: 50,
      refundEquivalentPoints: 50,
    });
    expect((await h.balance('c1')).totalPointsBalance).toBe(400);
    expectLoyaltyError(await refund({ refundTransactionId: 'r3', reverseTransactionId: 'p1', lineItems: [{ productId: 'b', price: 1 }] }), 422, 3003);
  });

  it('gives redeemed points back in proportion', async () => {
    await h.seed('c1', 1000);
    const ref = (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 500 })).body
      .holdReference;
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 50, redemption: { pointsHoldReference: ref } }).expect(200); // -500, +50
    expect((await h.balance('c1')).availablePointsBalance).toBe(550);
    const half = await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', refundAmount: 25 });
    expect(half.body.refundEquivalentPoints).toBe(25);
    expect((await h.balance('c1')).availablePointsBalance).toBe(550 - 25 + 250);
    await refund({ refundTransactionId: 'r2', reverseTransactionId: 'p1' }).expect(200);
    expect((await h.balance('c1')).availablePointsBalance).toBe(1000);
  });

  it('a payment paid entirely with points can be fully refunded, returning the points', async () => {
    await h.seed('c1', 300);
    const ref = (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 300 })).body
      .holdReference;
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 0, redemption: { pointsHoldReference: ref } }).expect(200);
    expectLoyaltyError(await refund({ refundTransactionId: 'r0', reverseTransactionId: 'p1', refundAmount: 5 }), 422, 3003);
    const res = await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1' });
    expect(res.body).toMatchObject({ refundAmount: 0, refundEquivalentPoints: 0 });
    expect((await h.balance('c1')).availablePointsBalance).toBe(300);
    expectLoyaltyError(await refund({ refundTransactionId: 'r2', reverseTransactionId: 'p1' }), 422, 3003);
  });

  it('takes pending points back from the pending balance', async () => {
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 100, cashbackConfigurations: { returnWindow: 30 } }).expect(200);
    await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', refundAmount: 40 }).expect(200);
    expect(await h.balance('c1')).toMatchObject({ pendingPoints: 60, availablePointsBalance: 0, totalPointsBalance: 60 });
  });

  it("refuses an unknown reverseTransactionId (9005), another customer's payment (9005), a duplicate refundTransactionId (9004)", async () => {
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 100 }).expect(200);
    await pay({ customerId: 'c2', paymentId: 'p2', totalPaid: 100 }).expect(200);
    expectLoyaltyError(await refund({ refundTransactionId: 'r1', reverseTransactionId: 'nope' }), 404, 9005);
    expectLoyaltyError(await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p2' }), 404, 9005);
    await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', refundAmount: 10 }).expect(200);
    expectLoyaltyError(await refund({ refundTransactionId: 'r1', reverseTransactionId: 'p1', refundAmount: 10 }), 422, 9004);
    expect((await h.balance('c1')).totalPointsBalance).toBe(90);
    expectLoyaltyError(await refund({ customerId: 'ghost', refundTransactionId: 'r9', reverseTransactionId: 'p1' }), 404, 7000);
  });

  it('validates per the contract', async () => {
    expectLoyaltyError(await refund({ reverseTransactionId: 'p1' }), 400, 3000);
    expectLoyaltyError(await refund({ refundTransactionId: 'r', reverseTransactionId: 'p1', refundAmount: -5 }), 422, 3003);
    expectLoyaltyError(await refund({ refundTransactionId: 'r', reverseTransactionId: 'p1', lineItems: [{ productId: 'a' }] }), 400, 3000);
  });
});

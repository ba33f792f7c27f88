import { API, expectLoyaltyError, harness, testAccount } from './helpers';
import { expectReferenceShape } from './reference-schema';

const T = '2025-03-01T10:00:00Z';

describe('sandbox reward preview, order transactions and redemption configuration', () => {
  const h = harness([testAccount({ earn: { pointsPerUnit: 1, minimumSpend: 0 } })]);
  const preview = (body: object) => h.http.post(`${API}/orders/reward-preview`).set({ apikey: h.keys.apikey }).send(body);
  const lines = [
    { productId: 'tv', price: 120, quantity: 1, discount: 20, category: ['electronics'] },
    { productId: 'socks', price: 7.5, quantity: 2, tags: ['triple'] },
  ];
  const details = [
    { serviceId: 'tv', amount: 120, discount: 20, category: ['electronics'] },
    { serviceId: 'socks', amount: 15, tags: ['triple'] },
  ];

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    await h.seed('c1', 500);
  });

  it('previews exactly what the same payment then earns, and changes nothing', async () => {
    // Paid less than the lines (points paid part): both scale the lines the same way.
    const res = await preview({ customerId: 'c1', totalPaid: 100, lineItems: lines }).expect(200);
    expectReferenceShape('post', '/orders/reward-preview', res.body);
    expect(res.body).toMatchObject({ customerId: 'c1', customerFound: true, totalCoupons: 0, eventRewards: null });
    expect(res.body.cashback.lineItems.map((l: { productId: string; rewardWalletFactor: number }) => [l.productId, l.rewardWalletFactor])).toEqual([
      ['tv', 2],
      ['socks', 3],
    ]);
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 500, totalEarnedPoints: 0 });

    const pay = await h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 100, paymentDetails: details })
      .expect(200);
    expect(res.body.totalPoints).toBe(pay.body.rewardedPoints);
    expect(res.body.cashback.lineItems.map((l: { totalPoints: number }) => l.totalPoints)).toEqual(
      pay.body.paymentDetails.map((l: { points: number }) => l.points),
    );
    expect(res.body.totalPoints).toBeGreaterThan(0);
  });

  it('previews for a customer with no profile at the entry tier, and without lines from totalPaid', async () => {
    const res = await preview({ customerId: 'new', totalPaid: 42.9 }).expect(200);
    expectReferenceShape('post', '/orders/reward-preview', res.body);
    expect(res.body).toMatchObject({ customerFound: false, totalPoints: 42 });
    expectLoyaltyError(await preview({ customerId: 'c1' }), 400, 3000);
  });

  it("lists an order's transactions: reward, redemption, partial refund and points given back", async () => {
    const hash = await h.hash('c1');
    const hold = await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 100, hash }).expect(200);
    await h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 90, redemption: { pointsHoldReference: hold.body.holdReference } })
      .expect(200);
    await h.http
      .post(`${API}/transactions/refund`)
      .set(h.keys)
      .send({ customerId: 'c1', refundTransactionId: 'r1', reverseTransactionId: 'p1', transactionTime: T, refundAmount: 45 })
      .expect(200);
    const res = await h.http.get(`${API}/orders/p1/transactions`).set(h.keys).expect(200);
    expectReferenceShape('get', '/orders/{orderId}/transactions', res.body);
    expect(res.body.count).toBe(4);
    expect(
      res.body.transactions.map((t: { transactionType: string; transactionId: string; equivalentPoints: number; amount: number }) => [
        t.transactionType,
        t.transactionId,
        t.equivalentPoints,
        t.amount,
      ]),
    ).toEqual([
      ['PaymentReward', 'p1', 90, 90],
      ['Redemption', 'p1', 100, 10],
      ['PartialRefund', 'r1', 45, 45],
      ['Cancel', 'r1', 50, 5],
    ]);
    expectLoyaltyError(await h.http.get(`${API}/orders/nope/transactions`).set(h.keys), 404, 9002);
    // Both keys are needed.
    expectLoyaltyError(await h.http.get(`${API}/orders/p1/transactions`).set({ apikey: h.keys.apikey }), 401, 1001);
  });

  it('lists the redemption factor and rules; a hold accepts a rule by its listed number', async () => {
    const res = await h.http.get(`${API}/configurations/redemption`).query({ customerId: 'c1' }).set({ apikey: h.keys.apikey }).expect(200);
    expectReferenceShape('get', '/configurations/redemption', res.body);
    expect(res.body.redemptionFactor).toBe(0.1);
    const [r10, ship] = res.body.redemptionRules;
    expect(r10).toMatchObject({ pointsToRedeem: 100, valueOfPoint: 10, ruleType: 'fixed_discount_settings', isActive: true });
    expect(ship).toMatchObject({ pointsToRedeem: 150, valueOfPoint: 15, ruleType: 'free_shipping_settings' });
    expect(r10.id).not.toBe(ship.id);
    const hash = await h.hash('c1');
    const hold = await h.http
      .post(`${API}/transactions/hold`)
      .set(h.keys)
      .send({ customerId: 'c1', transactionTime: T, ruleId: String(r10.id), hash })
      .expect(200);
    expect(hold.body).toMatchObject({ holdEquivalentPoints: 100, holdAmount: 10 });
  });
});

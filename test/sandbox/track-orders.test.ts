import { API, expectLoyaltyError, harness, testAccount } from './helpers';
import { expectReferenceShape } from './reference-schema';

const T = '2025-03-01T10:00:00Z';
const coupons = [
  { code: 'ONCE', name: 'Ten off, once', value: 10, startDate: '2025-01-01T00:00:00Z', expiryDate: '2026-01-01T00:00:00Z', limitPerCustomer: 1 },
];

describe('sandbox Track Order (POST /orders)', () => {
  const h = harness([testAccount({ coupons })]);
  const track = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/orders`)
      .set(h.keys)
      .send({ orderDate: T, ...body });
  const hold = async (customerId: string, pointsToHold: number) =>
    (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId, transactionTime: T, pointsToHold }).expect(200)).body.holdReference as string;
  const lines = [
    { productId: 'tv', price: 120, quantity: 1, discount: 20, category: ['electronics'] },
    { productId: 'socks', price: 7.5, quantity: 2, tags: ['triple'] },
  ];

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('awards points on the totals by the earn rate, creates a new customer, and answers in the published shape only', async () => {
    const res = await track({ customerId: 'new', orderId: 'o1', totalPaid: 120.9 }).expect(200);
    expectReferenceShape('post', '/orders', res.body);
    // The schema's fields, not the POS guide's (orderId, pointsEarned, status).
    expect(res.body).toEqual({ customerId: 'new', redeemedPoints: 0, rewardedPoints: 120, lineItems: [] });
    expect(await h.balance('new')).toMatchObject({ availablePointsBalance: 120, totalEarnedPoints: 120 });
    // totalPrice is optional, as the schema has it (the guide marks it required).
    await track({ customerId: 'new', orderId: 'o2', totalPaid: 10, totalPrice: 12 }).expect(200);
  });

  it('earns by its lines exactly what the preview quoted and a payment of the same lines earns', async () => {
    const quote = await h.http
      .post(`${API}/orders/reward-preview`)
      .set({ apikey: h.keys.apikey })
      .send({ customerId: 'c1', totalPaid: 100, lineItems: lines })
      .expect(200);
    const res = await track({ customerId: 'c1', orderId: 'o1', totalPaid: 100, totalPrice: 135, lineItems: lines }).expect(200);
    expectReferenceShape('post', '/orders', res.body);
    const pay = await h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({
        customerId: 'c2',
        paymentId: 'p1',
        paymentDate: T,
        totalPaid: 100,
        paymentDetails: [
          { serviceId: 'tv', amount: 120, discount: 20, category: ['electronics'] },
          { serviceId: 'socks', amount: 15, tags: ['triple'] },
        ],
      })
      .expect(200);
    // 115 of lines scaled to the 100 paid: tv 100/115*100*2 = 173.9 -> 173, socks 15/115*100*3 = 39.1 -> 39.
    expect(res.body).toEqual({
      customerId: 'c1',
      redeemedPoints: 0,
      rewardedPoints: 212,
      lineItems: [
        { productId: 'tv', quantity: 1, decimalPoints: expect.closeTo(173.913043, 5), points: 173, score: 0 },
        { productId: 'socks', quantity: 2, decimalPoints: expect.closeTo(39.130435, 5), points: 39, score: 0 },
      ],
    });
    expect(res.body.rewardedPoints).toBe(pay.body.rewardedPoints);
    expect(res.body.rewardedPoints).toBe(quote.body.totalPoints);
    expect(res.body.lineItems.map((l: { points: number }) => l.points)).toEqual(pay.body.paymentDetails.map((l: { points: number }) => l.points));
  });

  it('keeps points pending for the return window, and gives a guest none', async () => {
    await track({ customerId: 'c1', orderId: 'o1', totalPaid: 50, cashbackConfigurations: { returnWindow: 7 } }).expect(200);
    expect(await h.balance('c1')).toMatchObject({ availablePointsBalance: 0, pendingPoints: 50 });
    await h.advance(7 * 24 * 3600 * 1000);
    expect(await h.balance('c1')).toMatchObject({ availablePointsBalance: 50, pendingPoints: 0 });
    expect((await track({ customerId: 'g1', orderId: 'o2', totalPaid: 50, guest: true }).expect(200)).body.rewardedPoints).toBe(0);
  });

  it('redeems the hold its redemption names once: the hold is used, a second use is 9006 and changes nothing', async () => {
    await h.seed('c1', 500);
    const ref = await hold('c1', 100);
    const res = await track({ customerId: 'c1', orderId: 'o1', totalPaid: 90, totalPrice: 100, redemption: { pointsHoldReference: ref } }).expect(200);
    expect(res.body).toMatchObject({ redeemedPoints: 100, rewardedPoints: 90 });
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys).expect(200)).body.state).toBe('used');
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 490, availablePointsBalance: 490, heldPoints: 0 });

    const again = expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o2', totalPaid: 90, redemption: { pointsHoldReference: ref } }), 404, 9006);
    expect(again.message).toContain('no longer active');
    expectLoyaltyError(
      await h.http
        .post(`${API}/payments`)
        .set(h.keys)
        .send({ customerId: 'c1', paymentId: 'p2', paymentDate: T, totalPaid: 9, redemption: { pointsHoldReference: ref } }),
      404,
      9006,
    );
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 490 });
    // The refused order was not recorded: its id is still free.
    await track({ customerId: 'c1', orderId: 'o2', totalPaid: 1 }).expect(200);
  });

  it("refuses another customer's hold and an expired one (9006)", async () => {
    await h.seed('c1', 500);
    await h.seed('c2', 500);
    const ref = await hold('c1', 100);
    expectLoyaltyError(await track({ customerId: 'c2', orderId: 'o1', totalPaid: 5, redemption: { pointsHoldReference: ref } }), 404, 9006);
    await h.advance(10 * 60_000);
    expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o1', totalPaid: 5, redemption: { pointsHoldReference: ref } }), 404, 9006);
    expect(await h.balance('c1')).toMatchObject({ availablePointsBalance: 500 });
  });

  it('burns the coupons it names, as a payment does', async () => {
    await h.seed('c1', 0);
    const lock = await h.http
      .post(`${API}/coupons/validate`)
      .set(h.keys)
      .send({ customerId: 'c1', coupons: ['ONCE'], lock: true, totalPurchaseAmount: 60 })
      .expect(200);
    await track({ customerId: 'c1', orderId: 'o1', totalPaid: 50, redemption: { couponsLockReference: lock.body.lockReference } }).expect(200);
    const coupon = (await h.http.get(`${API}/customers/c1/coupons`).set(h.keys).expect(200)).body.coupons.find((c: { code: string }) => c.code === 'ONCE');
    expect(coupon).toMatchObject({ usedCount: 1, customerUsedCount: 1, isAvailableToUse: false });
    // Used up for this customer: a second order naming it is refused as a second payment would be.
    expect(expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o2', totalPaid: 5, redemption: { couponCodes: ['ONCE'] } }), 422, 3003).reason).toBe(
      'CouponNotAvailable',
    );
  });

  it('refuses an order id already recorded (9004, as published for a duplicate transaction id), as an order or a payment, and changes nothing', async () => {
    await track({ customerId: 'c1', orderId: 'o1', totalPaid: 50 }).expect(200);
    const dup = expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o1', totalPaid: 50 }), 422, 9004);
    expect(dup.message).toContain('orderId "o1"');
    await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 20 }).expect(200);
    expectLoyaltyError(await track({ customerId: 'c2', orderId: 'p1', totalPaid: 20 }), 422, 9004);
    expectLoyaltyError(await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'o1', paymentDate: T, totalPaid: 20 }), 422, 9004);
    expect(await h.balance('c1')).toMatchObject({ totalEarnedPoints: 70 });
    expectLoyaltyError(await h.http.get(`${API}/customers/c2/balance`).set(h.keys), 404, 7000);
  });

  it("shows in the order's transactions: its reward and the points its hold redeemed", async () => {
    await h.seed('c1', 500);
    const ref = await hold('c1', 200);
    await track({ customerId: 'c1', orderId: 'o1', totalPaid: 80, redemption: { pointsHoldReference: ref } }).expect(200);
    const res = await h.http.get(`${API}/orders/o1/transactions`).set(h.keys).expect(200);
    expectReferenceShape('get', '/orders/{orderId}/transactions', res.body);
    expect(
      res.body.transactions.map((t: { transactionType: string; transactionId: string; equivalentPoints: number; amount: number }) => [
        t.transactionType,
        t.transactionId,
        t.equivalentPoints,
        t.amount,
      ]),
    ).toEqual([
      ['PaymentReward', 'o1', 80, 80],
      ['Redemption', 'o1', 200, 20],
    ]);
  });

  it('fault rules name it (and redeem) by its operation id', async () => {
    await h.http
      .put('/_sandbox/faults')
      .set(h.keys)
      .send({
        rules: [
          { operation: 'trackOrder', status: 503, times: 1 },
          { operation: 'redeem', status: 500, times: 1 },
        ],
      })
      .expect(200);
    const res = await track({ customerId: 'c1', orderId: 'o1', totalPaid: 10 });
    expect(res.status).toBe(503);
    expect(res.headers['x-sandbox-fault']).toBe('trackOrder');
    const redeemed = await h.http.post(`${API}/transactions/redeem`).set(h.keys).send({ customerId: 'c1', transactionId: 'r1', transactionTime: T, points: 1 });
    expect(redeemed.headers['x-sandbox-fault']).toBe('redeem');
    // Before the operation, so nothing was recorded.
    await track({ customerId: 'c1', orderId: 'o1', totalPaid: 10 }).expect(200);
  });

  it('validates the order with the contract (3000, 3001, 3003) and needs both keys (1001)', async () => {
    expect(expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o1' }), 400, 3000).message).toContain('totalPaid');
    expectLoyaltyError(await track({ customerId: null, orderId: 'o1', totalPaid: 1 }), 422, 3001);
    expect(expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o1', totalPaid: -1 }), 422, 3003).message).toContain('totalPaid');
    expect(expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o1', totalPaid: 1, channel: 'fax' }), 422, 3003).message).toContain('channel');
    // A line needs the product id a refund names it by and the price it earns on (the published schema requires neither).
    expect(expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o1', totalPaid: 1, lineItems: [{ productId: 'a' }] }), 400, 3000).message).toContain(
      'lineItems.0.price',
    );
    expect(expectLoyaltyError(await track({ customerId: 'c1', orderId: 'o1', totalPaid: 1, lineItems: [{ price: 1 }] }), 400, 3000).message).toContain(
      'lineItems.0.productId',
    );
    expectLoyaltyError(
      await h.http.post(`${API}/orders`).set({ apikey: h.keys.apikey }).send({ customerId: 'c1', orderId: 'o1', orderDate: T, totalPaid: 1 }),
      401,
      1001,
    );
    // Nothing was recorded by the refused requests.
    await track({ customerId: 'c1', orderId: 'o1', totalPaid: 1 }).expect(200);
  });
});

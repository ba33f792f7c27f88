import { API, expectLoyaltyError, harness } from './helpers';

const T = '2025-03-01T10:00:00Z';
const DAY = 24 * 3600 * 1000;

describe('sandbox payments and the points ledger', () => {
  const h = harness();
  const pay = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ paymentDate: T, ...body });

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('creates the customer on the first payment and earns at the base rate from the totals', async () => {
    const res = await pay({ customerId: 'new-1', paymentId: 'p1', totalPaid: 99.99 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ customerId: 'new-1', redeemedPoints: 0, rewardedPoints: 99, paymentDetails: [] });
    expect(await h.balance('new-1')).toMatchObject({ totalPointsBalance: 99, availablePointsBalance: 99, totalEarnedPoints: 99 });
  });

  it('applies the highest of base rate and category/tag multipliers per line, rounding down per line', async () => {
    const res = await pay({
      customerId: 'c1',
      paymentId: 'p1',
      totalPaid: 100.5,
      paymentDetails: [
        { serviceId: 'tv', amount: 20.7, category: ['electronics'] }, // 2x -> 41.4 -> 41
        { serviceId: 'soap', amount: 10.9 }, // 1x -> 10.9 -> 10
        { serviceId: 'gift', amount: 30.5, discount: 0.5, tags: ['triple'], category: ['electronics'] }, // 3x of 30 -> 90
        { serviceId: 'bag', amount: 38.9, tax: 2 }, // 1x -> 38
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.paymentDetails).toEqual([
      { serviceId: 'tv', decimalPoints: 41.4, points: 41, score: 0 },
      { serviceId: 'soap', decimalPoints: 10.9, points: 10, score: 0 },
      { serviceId: 'gift', decimalPoints: 90, points: 90, score: 0 },
      { serviceId: 'bag', decimalPoints: 38.9, points: 38, score: 0 },
    ]);
    expect(res.body.rewardedPoints).toBe(179);
  });

  it("uses the customer's tier rate when it is the highest", async () => {
    // 1000 spent reaches Silver (earnRate 1.5).
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 1000 }).expect(200);
    const res = await pay({
      customerId: 'c1',
      paymentId: 'p2',
      totalPaid: 100,
      paymentDetails: [
        { serviceId: 'a', amount: 50 },
        { serviceId: 'b', amount: 50, category: ['electronics'] },
      ],
    });
    expect(res.body.paymentDetails).toEqual([
      { serviceId: 'a', decimalPoints: 75, points: 75, score: 0 },
      { serviceId: 'b', decimalPoints: 100, points: 100, score: 0 },
    ]);
  });

  it('earns nothing below the minimum spend, for guests, or when points paid it all', async () => {
    await h.setAccount({ earn: { pointsPerUnit: 1, minimumSpend: 50 } });
    expect((await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 49.99 })).body.rewardedPoints).toBe(0);
    expect((await pay({ customerId: 'c1', paymentId: 'p2', totalPaid: 50 })).body.rewardedPoints).toBe(50);
    expect((await pay({ customerId: 'g1', paymentId: 'p3', totalPaid: 500, guest: true })).body.rewardedPoints).toBe(0);

    await h.seed('c2', 1000);
    const ref = (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c2', transactionTime: T, amountToHold: 60 })).body.holdReference;
    const all = await pay({
      customerId: 'c2',
      paymentId: 'p4',
      totalPaid: 0,
      paymentDetails: [{ serviceId: 'x', amount: 60 }],
      redemption: { pointsHoldReference: ref },
    });
    expect(all.body).toMatchObject({ redeemedPoints: 600, rewardedPoints: 0 });
    expect((await h.balance('c2')).availablePointsBalance).toBe(400);
  });

  it('earns on what was actually paid when points paid part of the lines', async () => {
    await h.seed('c1', 1000);
    const ref = (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, amountToHold: 25 })).body.holdReference;
    const res = await pay({
      customerId: 'c1',
      paymentId: 'p1',
      totalPaid: 75,
      paymentDetails: [
        { serviceId: 'a', amount: 50 },
        { serviceId: 'b', amount: 50 },
      ],
      redemption: { pointsHoldReference: ref },
    });
    expect(res.body).toMatchObject({ redeemedPoints: 250, rewardedPoints: 74 });
    expect(res.body.paymentDetails).toEqual([
      { serviceId: 'a', decimalPoints: 37.5, points: 37, score: 0 },
      { serviceId: 'b', decimalPoints: 37.5, points: 37, score: 0 },
    ]);
    expect((await h.balance('c1')).availablePointsBalance).toBe(1000 - 250 + 74);
  });

  it('keeps points pending for the return window, available after it by the clock', async () => {
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 100, cashbackConfigurations: { returnWindow: 14 } }).expect(200);
    await pay({ customerId: 'c1', paymentId: 'p2', totalPaid: 30, cashbackConfigurations: { returnWindow: 0 } }).expect(200);
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 130, availablePointsBalance: 30, pendingPoints: 100, pendingPointsValue: 10 });
    expectLoyaltyError(await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 31 }), 422, 9008);
    await h.advance(14 * DAY - 1);
    expect((await h.balance('c1')).pendingPoints).toBe(100);
    await h.advance(1);
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 130, availablePointsBalance: 130, pendingPoints: 0 });
  });

  it('refuses the same paymentId twice (9004) with no second reward', async () => {
    await pay({ customerId: 'c1', paymentId: 'dup', totalPaid: 100 }).expect(200);
    const again = expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'dup', totalPaid: 100 }), 422, 9004);
    expect(again.message).toContain('dup');
    expectLoyaltyError(await pay({ customerId: 'other', paymentId: 'dup', totalPaid: 5 }), 422, 9004);
    expect((await h.balance('c1')).totalPointsBalance).toBe(100);
  });

  it('records the payment with all its properties as a "Payment Processed" event', async () => {
    const body = {
      customerId: 'c1',
      paymentId: 'p-ev',
      totalPaid: 40,
      totalAmount: 45,
      channel: 'pos',
      merchant: { uniqueId: 'm1', branch: { uniqueId: 'b7', name: 'Downtown' } },
      extra: { till: 3, cashier: 'amy' },
    };
    await pay(body).expect(200);
    const res = await h.http.get('/_sandbox/customers/c1/activity').set(h.keys).expect(200);
    const ev = res.body.activity.find((a: { type: string }) => a.type === 'Payment Processed');
    expect(ev.properties).toMatchObject({ ...body, paymentDate: T, rewardedPoints: 40 });
  });

  it('validates per the contract', async () => {
    expectLoyaltyError(await pay({ customerId: 'c1', totalPaid: 1 }), 400, 3000);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: '10' }), 422, 3003);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: 10, totalAmount: -1 }), 422, 3003);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: 10, channel: 'fax' }), 422, 3003);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: 10, extra: { a: true } }), 422, 3003);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: 10, merchant: { branch: { name: 'no id' } } }), 400, 3000);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: 10, cashbackConfigurations: { returnWindow: 7301 } }), 422, 3003);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: 10, paymentDetails: [{ serviceId: 'a', tax: -1 }] }), 422, 3003);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'x', totalPaid: 10, paymentDate: '01/03/2025' }), 422, 3003);
    // Nothing above was recorded.
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/balance`).set(h.keys), 404, 7000);
  });
});

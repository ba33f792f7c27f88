import { API, expectLoyaltyError, harness, testAccount } from './helpers';
import { expectReferenceShape } from './reference-schema';

const T = '2025-03-01T10:00:00Z';

describe('sandbox redeem (POST /transactions/redeem)', () => {
  const h = harness([testAccount()]);
  const redeem = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/transactions/redeem`)
      .set(h.keys)
      .send({ customerId: 'c1', transactionTime: T, ...body });
  const hold = async (pointsToHold: number) =>
    (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold }).expect(200)).body
      .holdReference as string;

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    await h.seed('c1', 500);
  });

  it('redeems points under the caller id, in the published shape; the order transactions and the list show it', async () => {
    const res = await redeem({ transactionId: 'r1', points: 120, reason: 'Discount on sale 7' }).expect(200);
    expectReferenceShape('post', '/transactions/redeem', res.body);
    expect(res.body).toEqual({
      customerId: 'c1',
      gameballTransactionId: expect.stringMatching(/^[0-9]+$/),
      transactionId: 'r1',
      redeemAmount: 12,
      redeemEquivalentPoints: 120,
      reason: 'Discount on sale 7',
    });
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 380, availablePointsBalance: 380 });

    const rows = (await h.http.get(`${API}/orders/r1/transactions`).set(h.keys).expect(200)).body;
    expectReferenceShape('get', '/orders/{orderId}/transactions', rows);
    expect(rows.transactions).toEqual([expect.objectContaining({ transactionType: 'Redemption', transactionId: 'r1', equivalentPoints: 120, amount: 12 })]);
    expect(String(rows.transactions[0].gameballTransactionId)).toBe(res.body.gameballTransactionId);
    const list = (await h.http.get(`${API}/transactions?customerId=c1`).set(h.keys).expect(200)).body;
    expect(list.transactions).toEqual([
      expect.objectContaining({
        transactionId: 'r1',
        type: 'Redemption',
        direction: '-',
        points: 120,
        amount: 12,
        gameballTransactionId: res.body.gameballTransactionId,
      }),
    ]);
  });

  it('by amount: the points that cover it at the redemption factor; a reason is echoed only when sent', async () => {
    const res = await redeem({ transactionId: 'r1', amount: 10.05 }).expect(200);
    expect(res.body).toEqual({
      customerId: 'c1',
      gameballTransactionId: expect.any(String),
      transactionId: 'r1',
      redeemAmount: 10.05,
      redeemEquivalentPoints: 101,
    });
    expect((await h.balance('c1')).totalPointsBalance).toBe(399);
    // The published example leaves the others out with 0 and null.
    await redeem({ transactionId: 'r2', amount: 1, points: 0, holdReference: null }).expect(200);
    expect((await h.balance('c1')).totalPointsBalance).toBe(389);
  });

  it('by hold: the hold is redeemed once (held -> used), as by a payment; another use is 9006', async () => {
    const ref = await hold(200);
    const res = await redeem({ transactionId: 'r1', holdReference: ref }).expect(200);
    expect(res.body).toMatchObject({ redeemAmount: 20, redeemEquivalentPoints: 200 });
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys).expect(200)).body.state).toBe('used');
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 300, availablePointsBalance: 300, heldPoints: 0 });
    expectLoyaltyError(await redeem({ transactionId: 'r2', holdReference: ref }), 404, 9006);
    expectLoyaltyError(
      await h.http
        .post(`${API}/payments`)
        .set(h.keys)
        .send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 5, redemption: { pointsHoldReference: ref } }),
      404,
      9006,
    );
    expectLoyaltyError(await redeem({ transactionId: 'r3', holdReference: 'no-such-hold' }), 404, 9006);
    expect((await h.balance('c1')).totalPointsBalance).toBe(300);
  });

  it('refuses a repeat of the same request and another request under the same id (9004), redeeming nothing again', async () => {
    const body = { transactionId: 'r1', points: 100 };
    const first = await redeem(body).expect(200);
    const same = expectLoyaltyError(await redeem(body), 422, 9004);
    expect(same.reason).toBe('DuplicateTransaction');
    expect(same.message).toContain('this same request');
    // The same request with its keys in another order is still the same request.
    expect(expectLoyaltyError(await redeem({ points: 100, transactionId: 'r1' }), 422, 9004).reason).toBe('DuplicateTransaction');
    const other = expectLoyaltyError(await redeem({ transactionId: 'r1', points: 50 }), 422, 9004);
    expect(other.reason).toBe('TransactionIdTaken');
    expect((await h.balance('c1')).totalPointsBalance).toBe(400);
    expect(first.body.redeemEquivalentPoints).toBe(100);

    // One id space with orders and payments.
    await h.http.post(`${API}/orders`).set(h.keys).send({ customerId: 'c1', orderId: 'o1', orderDate: T, totalPaid: 10 }).expect(200);
    expect(expectLoyaltyError(await redeem({ transactionId: 'o1', points: 1 }), 422, 9004).message).toContain('order');
    expect(
      expectLoyaltyError(await h.http.post(`${API}/orders`).set(h.keys).send({ customerId: 'c1', orderId: 'r1', orderDate: T, totalPaid: 10 }), 422, 9004)
        .message,
    ).toContain('redemption');
    expect((await h.balance('c1')).totalPointsBalance).toBe(410);
  });

  it('refuses more than the available points (9008), held points included, and changes nothing', async () => {
    await hold(450);
    const short = expectLoyaltyError(await redeem({ transactionId: 'r1', points: 51 }), 422, 9008);
    expect(short.message).toContain('50 available');
    expectLoyaltyError(await redeem({ transactionId: 'r1', amount: 5.01 }), 422, 9008);
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 500, heldPoints: 450 });
    // The refused redemption was not recorded: its id is still free.
    await redeem({ transactionId: 'r1', points: 50 }).expect(200);
  });

  it('gives the points back on a refund naming it, in full or in part, and takes no spend off the tier progress', async () => {
    await h.http.post(`${API}/orders`).set(h.keys).send({ customerId: 'c1', orderId: 'o1', orderDate: T, totalPaid: 50 }).expect(200);
    await redeem({ transactionId: 'r1', points: 200 }).expect(200);
    expect((await h.balance('c1')).totalPointsBalance).toBe(350);
    const refund = (body: object) =>
      h.http
        .post(`${API}/transactions/refund`)
        .set(h.keys)
        .send({ customerId: 'c1', reverseTransactionId: 'r1', transactionTime: T, ...body });
    const part = await refund({ refundTransactionId: 'rf1', refundAmount: 5 }).expect(200);
    expect(part.body).toMatchObject({ refundAmount: 5, refundEquivalentPoints: 50 });
    expect((await h.balance('c1')).totalPointsBalance).toBe(400);
    const rest = await refund({ refundTransactionId: 'rf2' }).expect(200);
    expect(rest.body).toMatchObject({ refundAmount: 15, refundEquivalentPoints: 150 });
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 550, totalEarnedPoints: 50 });
    expectLoyaltyError(await refund({ refundTransactionId: 'rf3' }), 422, 3003);
    // A redemption was no spend: refunding it leaves the order's 50 spent (the tier progress method here).
    expect((await h.http.get(`${API}/customers/c1/tier-progress`).set(h.keys).expect(200)).body.progress).toBe(50);
  });

  it('validates: exactly one of amount, points, holdReference (3003, or 3000 for none); an unknown customer is 7000; both keys are needed', async () => {
    expect(expectLoyaltyError(await redeem({ transactionId: 'r1', points: 10, amount: 1 }), 422, 3003).message).toContain(
      'exactly one of amount, points, holdReference',
    );
    expectLoyaltyError(await redeem({ transactionId: 'r1' }), 400, 3000);
    expectLoyaltyError(await redeem({ transactionId: 'r1', points: 0 }), 400, 3000);
    expect(expectLoyaltyError(await redeem({ transactionId: 'r1', points: 1.5 }), 422, 3003).message).toContain('points');
    expect(expectLoyaltyError(await redeem({ transactionId: 'r1', points: 1, reason: 'x'.repeat(256) }), 422, 3003).message).toContain('reason');
    expect(expectLoyaltyError(await redeem({ points: 1 }), 400, 3000).message).toContain('transactionId');
    expectLoyaltyError(await redeem({ customerId: 'nobody', transactionId: 'r1', points: 1 }), 404, 7000);
    expectLoyaltyError(
      await h.http
        .post(`${API}/transactions/redeem`)
        .set({ apikey: h.keys.apikey })
        .send({ customerId: 'c1', transactionId: 'r1', transactionTime: T, points: 1 }),
      401,
      1001,
    );
    expect((await h.balance('c1')).totalPointsBalance).toBe(500);
  });

  it('checks the hash when sent, and the OTP on an OTP account unless ignoreOTP (not for a hold, checked when placed)', async () => {
    const wrong = (await h.hash('c1')) === '000000' ? '111111' : '000000';
    expect(expectLoyaltyError(await redeem({ transactionId: 'r1', points: 10, hash: wrong }), 422, 3003).reason).toBe('HashInvalid');
    await redeem({ transactionId: 'r1', points: 10, hash: await h.hash('c1') }).expect(200);

    const ref = await hold(50);
    await h.setAccount({ otpEnabled: true });
    expect(expectLoyaltyError(await redeem({ transactionId: 'r2', points: 10 }), 422, 3003).reason).toBe('OTPRequired');
    await h.http.post(`${API}/transactions/otp`).set(h.keys).send({ customerId: 'c1', points: 10 }).expect(200);
    const { otp } = (await h.http.get('/_sandbox/otp/c1').set(h.keys).expect(200)).body as { otp: string };
    await redeem({ transactionId: 'r2', points: 10, otp }).expect(200);
    expect(expectLoyaltyError(await redeem({ transactionId: 'r3', points: 10, otp }), 422, 3003).reason).toBe('OTPInvalid');
    await redeem({ transactionId: 'r3', points: 10, ignoreOTP: true }).expect(200);
    await redeem({ transactionId: 'r4', holdReference: ref }).expect(200);
    expect((await h.balance('c1')).totalPointsBalance).toBe(500 - 10 - 10 - 10 - 50);
  });
});

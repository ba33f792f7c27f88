import { API, expectLoyaltyError, harness } from './helpers';

const T = '2025-03-01T10:00:00Z';

describe('sandbox holds', () => {
  const h = harness();
  const hold = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/transactions/hold`)
      .set(h.keys)
      .send({ transactionTime: T, ...body });
  const pay = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ paymentDate: T, ...body });

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('holds by points, by amount (ceil at the redemption factor) and by rule', async () => {
    await h.seed('c1', 1000);
    const byPoints = await hold({ customerId: 'c1', pointsToHold: 120 });
    expect(byPoints.status).toBe(200);
    expect(byPoints.body).toEqual({ customerId: 'c1', holdAmount: 12, holdEquivalentPoints: 120, holdReference: expect.any(String) });

    const byAmount = await hold({ customerId: 'c1', amountToHold: 10.05 });
    expect(byAmount.body).toMatchObject({ holdAmount: 10.05, holdEquivalentPoints: 101 });

    const byRule = await hold({ customerId: 'c1', ruleId: 'r10' });
    expect(byRule.body).toMatchObject({ holdAmount: 10, holdEquivalentPoints: 100 });

    const b = await h.balance('c1');
    expect(b).toMatchObject({ totalPointsBalance: 1000, availablePointsBalance: 1000 - 120 - 101 - 100, heldPoints: 321 });
  });

  it('refuses an unknown ruleId (422/3003) and a hold without exactly one of the three (400/3000, 422/3003)', async () => {
    await h.seed('c1', 1000);
    const rule = expectLoyaltyError(await hold({ customerId: 'c1', ruleId: 'nope' }), 422, 3003);
    expect(rule.message).toContain('nope');
    expectLoyaltyError(await hold({ customerId: 'c1' }), 400, 3000);
    expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 1, amountToHold: 1 }), 422, 3003);
    expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 1.5 }), 422, 3003);
  });

  it('refuses a hold larger than the available balance (9008), and two holds that together exceed it', async () => {
    await h.seed('c1', 500);
    expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 501 }), 422, 9008);
    expect((await hold({ customerId: 'c1', pointsToHold: 300 })).status).toBe(200);
    const second = expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 300 }), 422, 9008);
    expect(second.message).toContain('200 available');
    expect((await hold({ customerId: 'c1', pointsToHold: 200 })).status).toBe(200);
    expect((await h.balance('c1')).availablePointsBalance).toBe(0);
  });

  it('a hold of an unknown customer is 404/7000 and creates no profile (with or without a hash)', async () => {
    const plain = expectLoyaltyError(await hold({ customerId: 'brand-new', pointsToHold: 1 }), 404, 7000);
    expect(plain.message).toContain('brand-new');
    expectLoyaltyError(await hold({ customerId: 'brand-new', pointsToHold: 1, hash: '123456', email: 'x@example.com' }), 404, 7000);
    expectLoyaltyError(await h.http.get(`${API}/customers/brand-new/balance`).set(h.keys), 404, 7000);
  });

  it('looks a hold up and releases it on cancel; a second cancel is 9001', async () => {
    await h.seed('c1', 500);
    const ref = (await hold({ customerId: 'c1', pointsToHold: 200 })).body.holdReference;
    const look = await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys);
    expect(look.status).toBe(200);
    expect(look.body).toEqual({
      customerId: 'c1',
      holdAmount: 20,
      holdEquivalentPoints: 200,
      state: 'active',
      dateToExpire: new Date(Date.parse(T) + 10 * 60_000).toISOString(),
    });
    const cancel = await h.http.delete(`${API}/transactions/hold/${ref}`).set(h.keys);
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ success: true, message: expect.any(String) });
    // Released reads as the published "expired": its points are free and it can no longer be used.
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys)).body.state).toBe('expired');
    expect((await h.balance('c1')).availablePointsBalance).toBe(500);
    expectLoyaltyError(await h.http.delete(`${API}/transactions/hold/${ref}`).set(h.keys), 422, 9001);
    expectLoyaltyError(await h.http.get(`${API}/transactions/hold/unknown-ref`).set(h.keys), 404, 9006);
    expectLoyaltyError(await h.http.delete(`${API}/transactions/hold/unknown-ref`).set(h.keys), 404, 9006);
  });

  it('a hold is redeemed by a payment naming it; it cannot be used or cancelled again', async () => {
    await h.seed('c1', 500);
    const ref = (await hold({ customerId: 'c1', pointsToHold: 200 })).body.holdReference;
    const paid = await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 80, redemption: { pointsHoldReference: ref } });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ customerId: 'c1', redeemedPoints: 200, rewardedPoints: 80 });
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 380, availablePointsBalance: 380, heldPoints: 0 });
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys)).body.state).toBe('used');
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'p2', totalPaid: 80, redemption: { pointsHoldReference: ref } }), 404, 9006);
    expectLoyaltyError(await h.http.delete(`${API}/transactions/hold/${ref}`).set(h.keys), 422, 9001);
  });

  it('a hold is released by the clock when the hold period passes', async () => {
    await h.seed('c1', 500);
    const ref = (await hold({ customerId: 'c1', pointsToHold: 500 })).body.holdReference;
    await h.advance(10 * 60_000 - 1);
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys)).body.state).toBe('active');
    expect((await h.balance('c1')).availablePointsBalance).toBe(0);
    await h.advance(1);
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys)).body.state).toBe('expired');
    expect((await h.balance('c1')).availablePointsBalance).toBe(500);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 10, redemption: { pointsHoldReference: ref } }), 404, 9006);
    expectLoyaltyError(await h.http.delete(`${API}/transactions/hold/${ref}`).set(h.keys), 422, 9001);
  });

  it('follows the account hold period', async () => {
    await h.setAccount({ holdPeriodMinutes: 1 });
    await h.seed('c1', 500);
    const ref = (await hold({ customerId: 'c1', pointsToHold: 100 })).body.holdReference;
    await h.advance(60_000);
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys)).body.state).toBe('expired');
  });

  it('refuses a cancelled hold at payment, and a hold of another customer', async () => {
    await h.seed('c1', 500);
    await h.seed('c2', 500);
    const ref = (await hold({ customerId: 'c1', pointsToHold: 100 })).body.holdReference;
    expectLoyaltyError(await pay({ customerId: 'c2', paymentId: 'px', totalPaid: 10, redemption: { pointsHoldReference: ref } }), 404, 9006);
    await h.http.delete(`${API}/transactions/hold/${ref}`).set(h.keys).expect(200);
    const refused = expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 10, redemption: { pointsHoldReference: ref } }), 404, 9006);
    expect(refused.message).toContain('released');
    // The refused payment was not recorded: the same paymentId works without the hold.
    expect((await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 10 })).status).toBe(200);
    expectLoyaltyError(await pay({ customerId: 'c1', paymentId: 'p9', totalPaid: 10, redemption: { pointsHoldReference: 'never-made' } }), 404, 9006);
  });

  it('checks the hash: a wrong one is refused, the current one passes, and every hold rotates it', async () => {
    await h.seed('c1', 500);
    const first = await h.hash('c1');
    const wrong = first === '000000' ? '000001' : '000000';
    const refused = expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 10, hash: wrong }), 422, 3003);
    expect(refused.reason).toBe('HashInvalid');
    expect(await h.hash('c1')).toBe(first);
    expect((await hold({ customerId: 'c1', pointsToHold: 10, hash: first })).status).toBe(200);
    const second = await h.hash('c1');
    expect(second).not.toBe(first);
    expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 10, hash: first }), 422, 3003);
    expect((await hold({ customerId: 'c1', pointsToHold: 10 })).status).toBe(200);
  });

  it('payments and refunds rotate the hash too', async () => {
    await h.seed('c1', 0);
    const a = await h.hash('c1');
    await pay({ customerId: 'c1', paymentId: 'p1', totalPaid: 50 }).expect(200);
    const b = await h.hash('c1');
    expect(b).not.toBe(a);
    await h.http
      .post(`${API}/transactions/refund`)
      .set(h.keys)
      .send({ customerId: 'c1', refundTransactionId: 'r1', reverseTransactionId: 'p1', transactionTime: T })
      .expect(200);
    expect(await h.hash('c1')).not.toBe(b);
  });
});

import { API, expectLoyaltyError, harness, START } from './helpers';

/**
 * Channel merging (spec: one customer with different ids in different
 * channels; the request carries the email or mobile the account merges by, and
 * the service combines the activity into one profile). A new channel id that
 * carries an email (or mobile) already on a profile joins that profile:
 * balance and activity are shared, whichever id a later request uses.
 */
const T = new Date(START).toISOString();

describe('sandbox channel merging joins a new channel id to the profile with its email or mobile', () => {
  const h = harness();
  const pay = (customerId: string, paymentId: string, totalPaid: number, contact: object) =>
    h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ customerId, paymentId, paymentDate: T, totalPaid, ...contact });
  const activity = async (id: string) =>
    (await h.http.get(`/_sandbox/customers/${id}/activity`).set(h.keys).expect(200)).body.activity as { type: string; properties: Record<string, unknown> }[];

  it('email: a sale under a new id with a known email (any case) lands on that profile; the other id sees it too', async () => {
    await h.setAccount({ channelMerging: 'email' });
    await h.seed('web-lina', 200, { email: 'lina@example.com' });
    expect((await pay('pos-lina', 'cm-1', 50, { email: 'Lina@Example.com' })).status).toBe(200);
    expect((await h.balance('web-lina')).availablePointsBalance).toBe(250);
    expect((await h.balance('pos-lina')).availablePointsBalance).toBe(250);
    // One activity: the sale as sent under the till's id, on the web profile.
    expect((await activity('web-lina')).filter((a) => a.type === 'Payment Processed').map((a) => a.properties.customerId)).toEqual(['pos-lina']);
    expect(await activity('pos-lina')).toEqual(await activity('web-lina'));
    // The till's id spends the shared points (a hold, then a refund of the sale, by that id).
    const hold = await h.http
      .post(`${API}/transactions/hold`)
      .set(h.keys)
      .send({ customerId: 'pos-lina', email: 'lina@example.com', transactionTime: T, pointsToHold: 240 });
    expect(hold.status).toBe(200);
    expect((await h.balance('web-lina')).availablePointsBalance).toBe(10);
    const refund = await h.http
      .post(`${API}/transactions/refund`)
      .set(h.keys)
      .send({ customerId: 'pos-lina', email: 'lina@example.com', refundTransactionId: 'cm-r1', reverseTransactionId: 'cm-1', transactionTime: T });
    expect(refund.status).toBe(200);
    expect((await h.balance('web-lina')).totalPointsBalance).toBe(200);
  });

  it('email: a hold or a registration may be the first request of the new id', async () => {
    await h.setAccount({ channelMerging: 'email' });
    await h.seed('web-hadi', 300, { email: 'hadi@example.com' });
    const hold = await h.http
      .post(`${API}/transactions/hold`)
      .set(h.keys)
      .send({ customerId: 'kiosk-hadi', email: 'hadi@example.com', transactionTime: T, pointsToHold: 100 });
    expect([hold.status, hold.body.customerId]).toEqual([200, 'kiosk-hadi']);
    expect((await h.balance('kiosk-hadi')).availablePointsBalance).toBe(200);

    const first = await h.http.post(`${API}/customers`).set(h.keys).send({ customerId: 'web-hadi', email: 'hadi@example.com' }).expect(200);
    const joined = await h.http
      .post(`${API}/customers`)
      .set(h.keys)
      .send({ customerId: 'app-hadi', email: 'hadi@example.com', customerAttributes: { displayName: 'Hadi' } })
      .expect(200);
    expect(joined.body.gameballId).toBe(first.body.gameballId);
    expect((await h.balance('app-hadi')).availablePointsBalance).toBe(200);
  });

  it('mobile: joins by the mobile number, whatever its spacing', async () => {
    await h.setAccount({ channelMerging: 'mobile' });
    await h.seed('web-sara', 100, { mobile: '+201001234567' });
    expect((await pay('pos-sara', 'cm-m1', 30, { mobile: '+20 100 123 4567' })).status).toBe(200);
    expect((await h.balance('web-sara')).availablePointsBalance).toBe(130);
    expect((await h.balance('pos-sara')).availablePointsBalance).toBe(130);
    // A different mobile is a different customer.
    expect((await pay('pos-other', 'cm-m2', 30, { mobile: '+201009999999' })).status).toBe(200);
    expect((await h.balance('pos-other')).availablePointsBalance).toBe(30);
    expect((await h.balance('web-sara')).availablePointsBalance).toBe(130);
  });

  it('never joins without merging, nor by the field the account does not merge by, nor two existing profiles', async () => {
    await h.setAccount({ channelMerging: 'none' });
    await h.seed('web-zed', 100, { email: 'zed@example.com', mobile: '+201002223334' });
    expect((await pay('pos-zed', 'cm-n1', 10, { email: 'zed@example.com' })).status).toBe(200);
    expect((await h.balance('pos-zed')).availablePointsBalance).toBe(10);

    await h.setAccount({ channelMerging: 'email' });
    expect((await pay('app-zed', 'cm-n2', 10, { email: 'other@example.com', mobile: '+201002223334' })).status).toBe(200);
    expect((await h.balance('app-zed')).availablePointsBalance).toBe(10);
    // pos-zed has its own profile: sending the web email from it does not join the two.
    expect((await pay('pos-zed', 'cm-n3', 10, { email: 'zed@example.com' })).status).toBe(200);
    expect((await h.balance('pos-zed')).availablePointsBalance).toBe(20);
    expect((await h.balance('web-zed')).availablePointsBalance).toBe(100);
  });

  it('a hold for a new id with an unknown email is still 7000, and joins nothing', async () => {
    await h.setAccount({ channelMerging: 'email' });
    expectLoyaltyError(
      await h.http
        .post(`${API}/transactions/hold`)
        .set(h.keys)
        .send({ customerId: 'pos-ghost', email: 'ghost@example.com', transactionTime: T, pointsToHold: 1 }),
      404,
      7000,
    );
    expectLoyaltyError(await h.http.get(`${API}/customers/pos-ghost/balance`).set(h.keys), 404, 7000);
  });

  it('deleting the profile by any of its ids removes it for every id', async () => {
    await h.setAccount({ channelMerging: 'email' });
    await h.seed('web-del', 50, { email: 'del@example.com' });
    expect((await pay('pos-del', 'cm-d1', 10, { email: 'del@example.com' })).status).toBe(200);
    expect((await h.http.delete(`${API}/customers/pos-del`).set(h.keys)).status).toBe(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/web-del/balance`).set(h.keys), 404, 7000);
    expectLoyaltyError(await h.http.get(`${API}/customers/pos-del/balance`).set(h.keys), 404, 7000);
    // The email is free again: a new sale with it starts a new profile.
    expect((await pay('pos-del', 'cm-d2', 5, { email: 'del@example.com' })).status).toBe(200);
    expect((await h.balance('pos-del')).availablePointsBalance).toBe(5);
  });
});

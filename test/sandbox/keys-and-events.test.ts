import { API, API_KEY, expectLoyaltyError, harness, SECRET, testAccount } from './helpers';

const T = '2025-03-01T10:00:00Z';
const OTHER = { apikey: 'other_api_key_2', secretkey: 'other_secret_key_2' };

describe('sandbox keys, accounts and events', () => {
  const h = harness([
    testAccount(),
    testAccount({ name: 'Other Shop', apiKey: OTHER.apikey, secretKey: OTHER.secretkey, redemptionFactor: 0.5, eventRewards: {} }),
  ]);

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('401/1000 without an apikey or with an unknown one', async () => {
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/hash`).set({ secretkey: SECRET }), 401, 1000);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/hash`).set({ apikey: 'not_a_key_at_all', secretkey: SECRET }), 401, 1000);
    expectLoyaltyError(await h.http.post(`${API}/events`).send({ customerId: 'c1', events: { a: {} } }), 401, 1000);
  });

  it('401/1001 when an operation needing both keys lacks the secret or gets a wrong one', async () => {
    const ops = [
      h.http.post(`${API}/transactions/hold`).send({ customerId: 'c1', transactionTime: T, pointsToHold: 1 }),
      h.http.post(`${API}/payments`).send({ customerId: 'c1', paymentId: 'p', paymentDate: T, totalPaid: 1 }),
      h.http.post(`${API}/transactions/refund`).send({ customerId: 'c1', refundTransactionId: 'r', reverseTransactionId: 'p', transactionTime: T }),
      h.http.get(`${API}/customers/c1/hash`),
      h.http.get(`${API}/customers/c1/balance`),
      h.http.delete(`${API}/customers/c1`),
      h.http.post(`${API}/customers/c1/delete`),
      h.http.get(`${API}/transactions/hold/x`),
      h.http.delete(`${API}/transactions/hold/x`),
    ];
    for (const op of ops) expectLoyaltyError(await op.set({ apikey: API_KEY }), 401, 1001);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/hash`).set({ apikey: API_KEY, secretkey: OTHER.secretkey }), 401, 1001);
  });

  it('accepts the headers written APIKey / SecretKey', async () => {
    await h.seed('c1', 5);
    const res = await h.http.get(`${API}/customers/c1/hash`).set({ APIKey: API_KEY, SecretKey: SECRET });
    expect(res.status).toBe(200);
  });

  it('events need only the apikey when High Security Mode is off, both when it is on', async () => {
    const body = { customerId: 'c1', events: { place_order: { orderId: 'o1', total: 12.5 } } };
    const res = await h.http.post(`${API}/events`).set({ apikey: API_KEY }).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    // A secret that is sent must still be the right one.
    expectLoyaltyError(await h.http.post(`${API}/events`).set({ apikey: API_KEY, secretkey: 'wrong_secret_123' }).send(body), 401, 1001);

    await h.setAccount({ highSecurityMode: true });
    expectLoyaltyError(await h.http.post(`${API}/events`).set({ apikey: API_KEY }).send(body), 401, 1001);
    expect((await h.http.post(`${API}/events`).set(h.keys).send(body)).status).toBe(200);

    await h.setAccount({ highSecurityMode: false });
    expect((await h.http.post(`${API}/events`).set({ apikey: API_KEY }).send(body)).status).toBe(200);
  });

  it('events create the customer, are recorded, and configured ones give points', async () => {
    await h.http
      .post(`${API}/events`)
      .set({ apikey: API_KEY })
      .send({ customerId: 'e1', events: { place_order: { orderId: 'o1' }, viewed_item: { sku: 'x' } } })
      .expect(200);
    expect(await h.balance('e1')).toMatchObject({ availablePointsBalance: 10, totalEarnedPoints: 10 });
    const act = await h.http.get('/_sandbox/customers/e1/activity').set(h.keys).expect(200);
    expect(act.body.activity.map((a: { type: string }) => a.type)).toEqual(['place_order', 'viewed_item']);
    expect(act.body.activity[0].properties).toMatchObject({ orderId: 'o1' });
  });

  it('validates events', async () => {
    const k = { apikey: API_KEY };
    expectLoyaltyError(await h.http.post(`${API}/events`).set(k).send({ customerId: 'c1' }), 400, 3000);
    expectLoyaltyError(await h.http.post(`${API}/events`).set(k).send({ customerId: 'c1', events: {} }), 422, 3003);
    expectLoyaltyError(
      await h.http
        .post(`${API}/events`)
        .set(k)
        .send({ customerId: 'c1', events: { 'bad name!': {} } }),
      422,
      3003,
    );
    expectLoyaltyError(
      await h.http
        .post(`${API}/events`)
        .set(k)
        .send({ customerId: 'c1', events: { a: 'not-an-object' } }),
      422,
      3003,
    );
  });

  it('keeps each account separate: the apikey selects the account and its settings', async () => {
    await h.seed('shared-id', 100);
    const other = await h.http.get(`${API}/customers/shared-id/balance`).set(OTHER);
    expectLoyaltyError(other, 404, 7000);
    await h.http.post('/_sandbox/customers').set(OTHER).send({ customerId: 'shared-id', points: 100 }).expect(201);
    expect((await h.http.get(`${API}/customers/shared-id/balance`).set(OTHER)).body.availablePointsValue).toBe(50);
    expect((await h.balance('shared-id')).availablePointsValue).toBe(10);
    // An account's secret does not open another account.
    expectLoyaltyError(await h.http.get(`${API}/customers/shared-id/balance`).set({ apikey: OTHER.apikey, secretkey: SECRET }), 401, 1001);
  });

  it('channel merging: the field the account needs is required, by name', async () => {
    await h.setAccount({ channelMerging: 'email' });
    const missing = expectLoyaltyError(
      await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 10 }),
      400,
      3000,
    );
    expect(missing.message).toContain('email');
    expect(
      (await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 10, email: 'a@b.co' })).status,
    ).toBe(200);
    expectLoyaltyError(
      await h.http
        .post(`${API}/events`)
        .set(h.keys)
        .send({ customerId: 'c1', events: { a: {} } }),
      400,
      3000,
    );

    await h.setAccount({ channelMerging: 'mobile' });
    const hold = { customerId: 'c1', transactionTime: T, pointsToHold: 1, email: 'a@b.co' };
    const noMobile = expectLoyaltyError(await h.http.post(`${API}/transactions/hold`).set(h.keys).send(hold), 400, 3000);
    expect(noMobile.message).toContain('mobile');
    expect(
      (
        await h.http
          .post(`${API}/transactions/hold`)
          .set(h.keys)
          .send({ ...hold, mobile: '+20 100 000 0000' })
      ).status,
    ).toBe(200);
    expectLoyaltyError(
      await h.http
        .post(`${API}/transactions/refund`)
        .set(h.keys)
        .send({ customerId: 'c1', refundTransactionId: 'r', reverseTransactionId: 'p1', transactionTime: T }),
      400,
      3000,
    );
  });

  it('deleting a customer removes the profile and all its data', async () => {
    await h.seed('c1', 500);
    const ref = (await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 100 })).body
      .holdReference;
    await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 10 }).expect(200);
    await h.http.delete(`${API}/customers/c1`).set(h.keys).expect(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/balance`).set(h.keys), 404, 7000);
    expectLoyaltyError(await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys), 404, 9006);
    expectLoyaltyError(await h.http.get('/_sandbox/customers/c1/activity').set(h.keys), 404, 7000);
    expectLoyaltyError(
      await h.http
        .post(`${API}/transactions/refund`)
        .set(h.keys)
        .send({ customerId: 'c1', refundTransactionId: 'r', reverseTransactionId: 'p1', transactionTime: T }),
      404,
      7000,
    );
    // A customer of the same id starts from nothing.
    await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'p1', paymentDate: T, totalPaid: 10 }).expect(200);
    expect(await h.balance('c1')).toMatchObject({ totalPointsBalance: 10, heldPoints: 0 });
  });
});

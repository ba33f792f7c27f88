import { API, API_KEY, expectLoyaltyError, harness, testAccount } from './helpers';
import { expectReferenceShape } from './reference-schema';

describe('sandbox POST /customers: get-or-create a customer profile', () => {
  const h = harness();
  const activity = async (id: string) =>
    (await h.http.get(`/_sandbox/customers/${id}/activity`).set(h.keys).expect(200)).body.activity as { type: string; properties: Record<string, unknown> }[];

  it('creates a new customer (published answer shape) who can then be read, with the apikey alone', async () => {
    expectLoyaltyError(await h.http.get(`${API}/customers/new-1/balance`).set(h.keys), 404, 7000);
    const res = await h.http
      .post(`${API}/customers`)
      .set({ apikey: API_KEY })
      .send({ customerId: 'new-1', customerAttributes: { displayName: 'Nour A', email: 'nour@example.com' } });
    expect(res.status).toBe(200);
    expectReferenceShape('post', '/customers', res.body);
    expect(res.body).toEqual({ gameballId: expect.any(Number) });
    expect((await h.balance('new-1')).totalPointsBalance).toBe(0);
    expect((await activity('new-1')).map((a) => a.type)).toEqual(['Profile Created']);
  });

  it('called again, updates the one profile: same gameballId, new fields, balance kept', async () => {
    await h.seed('known-1', 120);
    const first = await h.http
      .post(`${API}/customers`)
      .set(h.keys)
      .send({ customerId: 'known-1', customerAttributes: { firstName: 'Omar', city: 'Cairo' } })
      .expect(200);
    const second = await h.http
      .post(`${API}/customers`)
      .set(h.keys)
      .send({ customerId: 'known-1', mobile: '+201000000001', customerAttributes: { city: 'Giza' } })
      .expect(200);
    expect(second.body.gameballId).toBe(first.body.gameballId);
    const other = await h.http.post(`${API}/customers`).set(h.keys).send({ customerId: 'known-2' }).expect(200);
    expect(other.body.gameballId).not.toBe(first.body.gameballId);
    expect((await h.balance('known-1')).availablePointsBalance).toBe(120);
    const updates = (await activity('known-1')).filter((a) => a.type.startsWith('Profile'));
    expect(updates.map((a) => [a.type, a.properties.city])).toEqual([
      ['Profile Updated', 'Cairo'],
      ['Profile Updated', 'Giza'],
    ]);
  });

  it('refuses a body without customerId (400/3000) and a bad email (422/3003), creating nothing', async () => {
    const missing = expectLoyaltyError(
      await h.http
        .post(`${API}/customers`)
        .set(h.keys)
        .send({ customerAttributes: { displayName: 'x' } }),
      400,
      3000,
    );
    expect(missing.message).toContain('customerId');
    const bad = expectLoyaltyError(
      await h.http
        .post(`${API}/customers`)
        .set(h.keys)
        .send({ customerId: 'bad-1', customerAttributes: { email: 'not-an-email' } }),
      422,
      3003,
    );
    expect(bad.message).toContain('email');
    expectLoyaltyError(await h.http.get(`${API}/customers/bad-1/balance`).set(h.keys), 404, 7000);
  });
});

describe('sandbox welcome bonus (welcomeBonusPoints, the onboarding campaign)', () => {
  const h = harness([testAccount({ welcomeBonusPoints: 50, channelMerging: 'email' })]);
  const activity = async (id: string) =>
    (await h.http.get(`/_sandbox/customers/${id}/activity`).set(h.keys).expect(200)).body.activity as { type: string; properties: Record<string, unknown> }[];
  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('credits a profile once when registration creates it, not when it updates it', async () => {
    await h.http.post(`${API}/customers`).set(h.keys).send({ customerId: 'wb-1', email: 'wb1@example.com' }).expect(200);
    await h.http
      .post(`${API}/customers`)
      .set(h.keys)
      .send({ customerId: 'wb-1', email: 'wb1@example.com', customerAttributes: { city: 'Giza' } })
      .expect(200);
    expect(await h.balance('wb-1')).toMatchObject({ availablePointsBalance: 50, totalEarnedPoints: 50 });
    expect((await activity('wb-1')).map((a) => [a.type, a.properties.points])).toEqual([
      ['Welcome Bonus', 50],
      ['Profile Created', undefined],
      ['Profile Updated', undefined],
    ]);
  });

  it('credits a profile a first payment or event creates; not a seeded one, nor a channel id that joins a known profile', async () => {
    await h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({ customerId: 'wb-pay', email: 'pay@example.com', paymentId: 'wb-p1', paymentDate: '2025-03-01T10:00:00Z', totalPaid: 30 })
      .expect(200);
    expect((await h.balance('wb-pay')).availablePointsBalance).toBe(50 + 30);
    await h.http
      .post(`${API}/events`)
      .set(h.keys)
      .send({ customerId: 'wb-ev', email: 'ev@example.com', events: { visited: {} } })
      .expect(200);
    expect((await h.balance('wb-ev')).availablePointsBalance).toBe(50);
    await h.seed('wb-seeded', 10);
    expect((await h.balance('wb-seeded')).availablePointsBalance).toBe(10);
    await h.http.post(`${API}/customers`).set(h.keys).send({ customerId: 'wb-a', email: 'same@example.com' }).expect(200);
    await h.http.post(`${API}/customers`).set(h.keys).send({ customerId: 'wb-b', email: 'same@example.com' }).expect(200);
    expect((await h.balance('wb-a')).availablePointsBalance).toBe(50);
  });
});

import { API, expectLoyaltyError, harness, SECRET } from './helpers';

describe('sandbox customers: balance, hash, delete', () => {
  const h = harness();

  it('reads a seeded balance with money values at the redemption factor', async () => {
    await h.seed('c-bal', 250);
    const res = await h.http.get(`${API}/customers/c-bal/balance`).set(h.keys);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      totalPointsBalance: 250,
      totalPointsValue: 25,
      availablePointsBalance: 250,
      availablePointsValue: 25,
      pendingPoints: 0,
      pendingPointsValue: 0,
      currency: 'EGP',
      pointsName: 'Points',
      // Sandbox points never expire.
      nextExpiringPointsAmount: 0,
      nextExpiringPointsValue: 0,
      nextExpiringPointsDate: '',
      totalEarnedPoints: 0,
      heldPoints: 0,
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it('answers 404/7000 for the balance and hash of an unknown customer', async () => {
    expectLoyaltyError(await h.http.get(`${API}/customers/nobody/balance`).set(h.keys), 404, 7000);
    expectLoyaltyError(await h.http.get(`${API}/customers/nobody/hash`).set(h.keys), 404, 7000);
  });

  it('returns a six-digit hash', async () => {
    await h.seed('c-hash', 0);
    expect(await h.hash('c-hash')).toMatch(/^[0-9]{6}$/);
  });

  it('deletes a customer (DELETE and POST forms); later reads answer 7000', async () => {
    await h.seed('c-del', 10);
    await h.seed('c-del2', 10);
    const del = await h.http.delete(`${API}/customers/c-del`).set(h.keys);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    expectLoyaltyError(await h.http.get(`${API}/customers/c-del/balance`).set(h.keys), 404, 7000);
    expectLoyaltyError(await h.http.delete(`${API}/customers/c-del`).set(h.keys), 404, 7000);

    const post = await h.http.post(`${API}/customers/c-del2/delete`).set(h.keys);
    expect(post.status).toBe(200);
    expect(post.body).toEqual({});
    expectLoyaltyError(await h.http.get(`${API}/customers/c-del2/hash`).set(h.keys), 404, 7000);
  });
});

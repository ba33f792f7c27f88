import { TierProgressResponse } from '../../src/contract';
import type { AccountSettingsInput } from '../../src/sandbox';
import { API, expectLoyaltyError, harness, testAccount } from './helpers';

const T = '2025-03-01T10:00:00Z';

const tiers = (mins: [number, number, number]): NonNullable<AccountSettingsInput['tiers']> => [
  { order: 1, name: 'Bronze', names: { ar: 'برونزي' }, minProgress: mins[0], icon: 'b.png' },
  { order: 2, name: 'Silver', names: { ar: 'فضي', fr: 'Argent' }, minProgress: mins[1], icon: 's.png' },
  { order: 3, name: 'Gold', names: { ar: 'ذهبي' }, minProgress: mins[2], icon: 'g.png' },
];

describe('sandbox tier progress', () => {
  const h = harness([testAccount({ tiers: tiers([0, 1000, 5000]) })]);
  const progress = async (customerId: string, opts: { lang?: string; expand?: string } = {}) => {
    const req = h.http.get(`${API}/customers/${customerId}/tier-progress`).set(h.keys);
    if (opts.lang) req.set('lang', opts.lang);
    if (opts.expand !== undefined) req.query({ expand: opts.expand });
    const res = await req;
    expect(res.status).toBe(200);
    return TierProgressResponse.parse(res.body);
  };
  const pay = (customerId: string, paymentId: string, totalPaid: number) =>
    h.http.post(`${API}/payments`).set(h.keys).send({ customerId, paymentId, paymentDate: T, totalPaid }).expect(200);

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('amountSpent: follows payments and refunds; at the top, next is the top tier itself', async () => {
    await h.seed('c1', 0);
    expect(await progress('c1')).toEqual({
      current: { order: 1, name: 'Bronze', minProgress: 0, icon: 'b.png' },
      next: { order: 2, name: 'Silver', minProgress: 1000, icon: 's.png' },
      progress: 0,
    });
    await pay('c1', 'p1', 1200);
    expect(await progress('c1')).toMatchObject({ current: { name: 'Silver' }, next: { name: 'Gold' }, progress: 1200 });
    await pay('c1', 'p2', 3800);
    expect(await progress('c1')).toMatchObject({ current: { order: 3, name: 'Gold' }, next: { order: 3, name: 'Gold' }, progress: 5000 });
    await h.http
      .post(`${API}/transactions/refund`)
      .set(h.keys)
      .send({ customerId: 'c1', refundTransactionId: 'r1', reverseTransactionId: 'p2', transactionTime: T, refundAmount: 300 })
      .expect(200);
    expect(await progress('c1')).toMatchObject({ current: { name: 'Silver' }, next: { name: 'Gold' }, progress: 4700 });
  });

  it('pointsEarned: counts points from payments and rewarded events', async () => {
    await h.setAccount({ tierProgressMethod: 'pointsEarned', tiers: tiers([0, 100, 500]) });
    await pay('c1', 'p1', 95);
    expect(await progress('c1')).toMatchObject({ current: { name: 'Bronze' }, progress: 95 });
    // place_order gives 10 points in the test account.
    await h.http
      .post(`${API}/events`)
      .set(h.keys)
      .send({ customerId: 'c1', events: { place_order: {} } })
      .expect(200);
    expect(await progress('c1')).toMatchObject({ current: { name: 'Silver' }, next: { name: 'Gold', minProgress: 500 }, progress: 105 });
  });

  it('orders: counts payments and batch orders', async () => {
    await h.setAccount({ tierProgressMethod: 'orders', tiers: tiers([0, 2, 3]) });
    await pay('c1', 'p1', 5);
    expect(await progress('c1')).toMatchObject({ current: { name: 'Bronze' }, progress: 1 });
    await pay('c1', 'p2', 5);
    expect(await progress('c1')).toMatchObject({ current: { name: 'Silver' }, progress: 2 });
    const { jobId } = (
      await h.http
        .post(`${API}/batch/orders`)
        .set(h.keys)
        .send({ body: [{ customerId: 'c1', orderId: 'o1', orderDate: T, totalPaid: 5 }] })
        .expect(200)
    ).body;
    for (let i = 0; i < 100; i++) {
      if ((await h.http.get(`${API}/batches/${jobId}/status`).set(h.keys)).body.status === 'completed') break;
    }
    expect(await progress('c1')).toMatchObject({ current: { order: 3, name: 'Gold' }, next: { order: 3, name: 'Gold' }, progress: 3 });
  });

  it('referrals and score: nothing in the sandbox refers friends or scores yet, so progress is 0', async () => {
    await h.setAccount({ tierProgressMethod: 'referrals' });
    await pay('c1', 'p1', 2000);
    expect(await progress('c1')).toMatchObject({ current: { name: 'Bronze' }, progress: 0 });
    await h.setAccount({ tierProgressMethod: 'score' });
    expect((await progress('c1')).progress).toBe(0);
  });

  it('lang picks translated names, by primary subtag too, with the default name otherwise', async () => {
    await h.seed('c1', 0);
    expect(await progress('c1', { lang: 'ar' })).toMatchObject({ current: { name: 'برونزي' }, next: { name: 'فضي' } });
    expect(await progress('c1', { lang: 'FR-ca' })).toMatchObject({ current: { name: 'Bronze' }, next: { name: 'Argent' } });
    expect(await progress('c1', { lang: 'de' })).toMatchObject({ current: { name: 'Bronze' }, next: { name: 'Silver' } });
    expect(await progress('c1', { lang: 'ar', expand: 'tier' })).toMatchObject({ tiers: [{ name: 'برونزي' }, { name: 'فضي' }, { name: 'ذهبي' }] });
  });

  it('expand adds tiers and referrals; without it neither is shown', async () => {
    await h.seed('c1', 0);
    const plain = await progress('c1');
    expect(plain).not.toHaveProperty('tiers');
    expect(plain).not.toHaveProperty('referrals');
    const tierOnly = await progress('c1', { expand: 'tier' });
    expect(tierOnly.tiers?.map((t) => t.name)).toEqual(['Bronze', 'Silver', 'Gold']);
    expect(tierOnly).not.toHaveProperty('referrals');
    const both = await progress('c1', { expand: ' referrals , tier ' });
    expect(both.referrals).toEqual({ count: 0 });
    expect(both.tiers).toHaveLength(3);
    // Repeating the parameter is the same as a comma-separated list.
    const res = await h.http.get(`${API}/customers/c1/tier-progress?expand=tier&expand=referrals`).set(h.keys).expect(200);
    expect(res.body).toMatchObject({ tiers: expect.any(Array), referrals: { count: 0 } });
  });

  it('refuses an unknown expansion with 422/3003 naming it', async () => {
    await h.seed('c1', 0);
    const res = await h.http.get(`${API}/customers/c1/tier-progress`).set(h.keys).query({ expand: 'tier,wallet' });
    expect(expectLoyaltyError(res, 422, 3003).message).toContain('"wallet"');
    const repeated = await h.http.get(`${API}/customers/c1/tier-progress?expand=tier&expand=bogus`).set(h.keys);
    expect(expectLoyaltyError(repeated, 422, 3003).message).toContain('"bogus"');
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/tier-progress?expnd=tier`).set(h.keys), 422, 3003);
  });

  it('answers 404/7000 for an unknown customer and 404/4004 when the account has no tiers', async () => {
    expectLoyaltyError(await h.http.get(`${API}/customers/ghost/tier-progress`).set(h.keys), 404, 7000);
    await h.seed('c1', 0);
    await h.setAccount({ tiers: [] });
    const none = expectLoyaltyError(await h.http.get(`${API}/customers/c1/tier-progress`).set(h.keys), 404, 4004);
    expect(none.message).toContain('no tiers');
  });

  it('needs both keys', async () => {
    await h.seed('c1', 0);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/tier-progress`).set({ apikey: h.keys.apikey }), 401, 1001);
  });
});

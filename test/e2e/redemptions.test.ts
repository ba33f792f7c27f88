import { startStack, Stack } from '../support/e2e';
import { expectNoSecrets, heldRedemption } from './helpers';

/** Lookup, the ways to start a redemption, and the refusals that must leave the points alone. */
describe.each(['memory', 'redis'] as const)('lookup and redemptions (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('looks a customer up: balance, tier progress and coupons in one summary', async () => {
    await s.seed('lookup-1', 500);
    const res = await s.pos('cashier').get('/customers/lookup-1').expect(200);
    expect(res.body).toEqual({
      customerId: 'lookup-1',
      currency: 'EGP',
      pointsName: 'Stars',
      points: { available: 500, pending: 0, total: 500, held: 0, earnedAllTime: 0 },
      value: { available: 50, pending: 0, total: 50 },
      tier: { current: 'Bronze', next: 'Silver', progress: 0, nextAt: 1000 },
      coupons: [
        { code: 'WELCOME10', name: 'Welcome 10 EGP', value: 10, currency: 'EGP', expiresAt: '2099-12-31T23:59:59.000Z', usable: true },
        { code: 'SUMMER20', name: 'Summer 20%', value: 20, currency: 'EGP', expiresAt: '2024-09-01T00:00:00.000Z', usable: false },
      ],
      unavailable: [],
    });
    const asManager = await s.pos('manager').get('/customers/lookup-1?lang=fr').expect(200);
    expect(asManager.body.points.available).toBe(500);
    expect(asManager.body.tier).toEqual({ current: 'Bronze', next: 'Argent', progress: 0, nextAt: 1000 });
  });

  it('answers 404 customer_not_found for an unknown customer', async () => {
    const res = await s.pos('cashier').get('/customers/nobody-here').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'customer_not_found' });
  });

  it('redeems by amount: enough points to cover it are held', async () => {
    await s.seed('amt-1', 500);
    const hash = await s.hash('amt-1');
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'amt-1', hash, amount: 15 }).expect(201);
    expect(res.headers.location).toBe(`/pos/v1/redemptions/${res.body.id}`);
    expect(res.body).toMatchObject({ state: 'held', customerId: 'amt-1', ask: { kind: 'amount', amount: 15 }, points: 150, amount: 15, paymentId: null });
    expect(res.body.secondsLeft).toBeGreaterThan(590);
    expect(res.body.secondsLeft).toBeLessThanOrEqual(600);
    const b = await s.balance('amt-1');
    expect(b).toMatchObject({ availablePointsBalance: 350, totalPointsBalance: 500, heldPoints: 150 });
  });

  it('redeems by points', async () => {
    const r = await heldRedemption(s, 'pts-1', 120, { seed: 300 });
    expect(r).toMatchObject({ state: 'held', points: 120, amount: 12 });
    expect((await s.balance('pts-1')).availablePointsBalance).toBe(180);
    const read = await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200);
    expect(read.body).toMatchObject({ id: r.id, state: 'held', points: 120, amount: 12, ask: { kind: 'points', points: 120 } });
  });

  it('redeems by a rule of the account (rule_10_off: 100 points for 10 EGP)', async () => {
    await s.seed('rule-1', 250);
    const hash = await s.hash('rule-1');
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'rule-1', hash, ruleId: 'rule_10_off' }).expect(201);
    expect(res.body).toMatchObject({ state: 'held', ask: { kind: 'rule', ruleId: 'rule_10_off' }, points: 100, amount: 10 });
    expect((await s.balance('rule-1')).availablePointsBalance).toBe(150);
  });

  it('refuses a rule the account does not have (422, nothing held)', async () => {
    await s.seed('rule-2', 250);
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'rule-2', ruleId: 'rule_no_such' }).expect(422);
    expect(res.body).toMatchObject({ status: 422, code: 'rule_not_found' });
    expect((await s.balance('rule-2')).availablePointsBalance).toBe(250);
  });

  it('redeems by QR: customer id, a colon, the hash', async () => {
    await s.seed('qr-1', 400);
    const res = await s
      .pos('cashier')
      .post('/redemptions', { qr: `qr-1:${await s.hash('qr-1')}`, points: 100 })
      .expect(201);
    expect(res.body).toMatchObject({ state: 'held', customerId: 'qr-1', points: 100 });
    expect((await s.balance('qr-1')).availablePointsBalance).toBe(300);
  });

  it('redeems by QR with no separator between the customer id and the hash', async () => {
    await s.seed('qr-2', 400);
    const res = await s
      .pos('cashier')
      .post('/redemptions', { qr: `qr-2${await s.hash('qr-2')}`, points: 50 })
      .expect(201);
    expect(res.body).toMatchObject({ state: 'held', customerId: 'qr-2', points: 50 });
    expect((await s.balance('qr-2')).availablePointsBalance).toBe(350);
  });

  it('refuses a wrong hash (422 hash_invalid), by QR and by customerId, and holds nothing', async () => {
    await s.seed('qr-3', 400);
    const hash = await s.hash('qr-3');
    const wrong = String((Number(hash) + 1) % 1_000_000).padStart(6, '0');
    const byQr = await s
      .pos('cashier')
      .post('/redemptions', { qr: `qr-3:${wrong}`, points: 100 })
      .expect(422);
    expect(byQr.body.code).toBe('hash_invalid');
    const byId = await s.pos('cashier').post('/redemptions', { customerId: 'qr-3', hash: wrong, points: 100 }).expect(422);
    expect(byId.body.code).toBe('hash_invalid');
    expect(await s.balance('qr-3')).toMatchObject({ availablePointsBalance: 400, heldPoints: 0 });
    // A hash is single use: the one a hold consumed is refused the second time.
    await s.pos('cashier').post('/redemptions', { customerId: 'qr-3', hash, points: 100 }).expect(201);
    const reused = await s.pos('cashier').post('/redemptions', { customerId: 'qr-3', hash, points: 100 }).expect(422);
    expect(reused.body.code).toBe('hash_invalid');
    expect((await s.balance('qr-3')).availablePointsBalance).toBe(300);
  });

  it('refuses more points than the customer has (422 insufficient_points) and holds nothing', async () => {
    await s.seed('poor-1', 90);
    const openBefore = await s.bff.deps.redemptions.countOpen();
    const byPoints = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'poor-1', hash: await s.hash('poor-1'), points: 91 })
      .expect(422);
    expect(byPoints.body).toMatchObject({ status: 422, code: 'insufficient_points' });
    const byRule = await s.pos('cashier').post('/redemptions', { customerId: 'poor-1', ruleId: 'rule_10_off' }).expect(422);
    expect(byRule.body.code).toBe('insufficient_points');
    expect(await s.balance('poor-1')).toMatchObject({ availablePointsBalance: 90, totalPointsBalance: 90, heldPoints: 0 });
    expect(await s.bff.deps.redemptions.countOpen()).toBe(openBefore);
  });

  it('voids a held redemption: the hold is released upstream and the points are available again', async () => {
    const r = await heldRedemption(s, 'void-1', 200, { seed: 500 });
    expect((await s.balance('void-1')).availablePointsBalance).toBe(300);
    const res = await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200);
    expect(res.body).toMatchObject({ id: r.id, state: 'voided', secondsLeft: 0 });
    expect(await s.balance('void-1')).toMatchObject({ availablePointsBalance: 500, heldPoints: 0 });
    const again = await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(409);
    expect(again.body).toMatchObject({ code: 'redemption_not_held', state: 'voided' });
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body.state).toBe('voided');
  });

  it('hides a redemption from another store (404 for read and void) and from a kiosk (403)', async () => {
    const r = await heldRedemption(s, 'foreign-1', 100, { seed: 300 });
    for (const res of [
      await s.pos('otherCashier').get(`/redemptions/${r.id}`),
      await s.pos('otherManager').post(`/redemptions/${r.id}/void`),
      await s.pos('otherCashier').get('/redemptions/rdm_doesnotexist1234'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('redemption_not_found');
    }
    // A foreign id and a made-up one read the same, but for the id itself.
    const foreign = await s.pos('otherCashier').get(`/redemptions/${r.id}`);
    const madeUp = await s.pos('otherCashier').get('/redemptions/rdm_doesnotexist1234');
    expect(foreign.body.detail.replace(r.id, 'X')).toBe(madeUp.body.detail.replace('rdm_doesnotexist1234', 'X'));
    expect((await s.pos('kiosk').post('/redemptions', { customerId: 'foreign-1', points: 10 }).expect(403)).body.code).toBe('role_not_allowed');
    // Still held for its own store, points still held upstream.
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body.state).toBe('held');
    expect((await s.balance('foreign-1')).availablePointsBalance).toBe(200);
  });

  it('rejects a bad request with a clear 400 naming the field', async () => {
    const both = await s.pos('cashier').post('/redemptions', { customerId: 'x', points: 10, amount: 5 }).expect(400);
    expect(JSON.stringify(both.body.errors)).toContain('exactly one of amount, points, ruleId');
    const unknown = await s.pos('cashier').post('/redemptions', { customerId: 'x', points: 10, pointz: 1 }).expect(400);
    expect(JSON.stringify(unknown.body)).toContain('pointz');
    const noCustomer = await s.pos('cashier').post('/redemptions', { qr: ':123456', points: 10 }).expect(422);
    expect(noCustomer.body.code).toBe('qr_invalid');
    const noHash = await s.pos('cashier').post('/redemptions', { qr: 'someone', points: 10 }).expect(422);
    expect(noHash.body.code).toBe('qr_invalid');
    const control = await s.pos('cashier').post('/redemptions', { qr: 'someone:12\u000034', points: 10 }).expect(400);
    expect(JSON.stringify(control.body.errors)).toContain('qr');
    const badId = await s.pos('cashier').get('/redemptions/not-an-id').expect(400);
    expect(JSON.stringify(badId.body)).toContain('rdm_');
  });

  it('keeps the secret key and every terminal token out of responses and logs', () => expectNoSecrets(s));
});

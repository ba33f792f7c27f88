import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createSandbox, loadSandboxAccounts, startSandbox } from '../../src/sandbox';
import request from 'supertest';
import { API, API_KEY, expectLoyaltyError, harness, SECRET, START, testAccount } from './helpers';

const T = '2025-03-01T10:00:00Z';

describe('sandbox admin API', () => {
  const h = harness();

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it("takes one rule on every admin route: the apikey of an account and that account's secretkey", async () => {
    const secretOnly = { secretkey: SECRET };
    const routes: [string, string, object?][] = [
      ['post', '/_sandbox/reset'],
      ['post', '/_sandbox/customers', { customerId: 'x', points: 1 }],
      ['post', '/_sandbox/customers/bulk', { prefix: 'b', count: 1, points: 1 }],
      ['get', '/_sandbox/customers/c1/activity'],
      ['get', `/_sandbox/accounts/${API_KEY}`],
      ['put', `/_sandbox/accounts/${API_KEY}`, { otpEnabled: false }],
      ['get', '/_sandbox/clock'],
      ['post', '/_sandbox/clock/advance', { ms: 1 }],
      ['get', '/_sandbox/otp/c1'],
      ['delete', '/_sandbox/transactions/c1-none'],
      ['get', '/_sandbox/faults'],
      ['put', '/_sandbox/faults', { rules: [] }],
      ['delete', '/_sandbox/faults'],
    ];
    for (const [method, path, body] of routes) {
      const call = (headers: Record<string, string>) =>
        (h.http as unknown as Record<string, (p: string) => request.Test>)[method](path).set(headers).send(body);
      expectLoyaltyError(await call({}), 401, 1000);
      expectLoyaltyError(await call(secretOnly), 401, 1000);
      expectLoyaltyError(await call({ apikey: API_KEY }), 401, 1001);
      expectLoyaltyError(await call({ apikey: API_KEY, secretkey: 'wrong_secret_123' }), 401, 1001);
      expectLoyaltyError(await call({ apikey: 'unknown_key_1', secretkey: SECRET }), 401, 1000);
      // With both keys of the account the guard lets it through (an unknown customer is a 404 after it).
      const res = await call({ apikey: API_KEY, secretkey: SECRET });
      expect([200, 201, 404]).toContain(res.status);
      if (res.status === 404) expect(path).toMatch(/c1/);
    }
  });

  it("refuses another account's secret, and another account's settings", async () => {
    const other = { apikey: 'other_api_key_2', secretkey: 'other_secret_key_2' };
    const h2 = createSandbox({ accounts: [testAccount(), testAccount({ name: 'Other', apiKey: other.apikey, secretKey: other.secretkey })] });
    const http = request(h2.app);
    expectLoyaltyError(await http.post('/_sandbox/reset').set({ apikey: API_KEY, secretkey: other.secretkey }), 401, 1001);
    expectLoyaltyError(
      await http.post('/_sandbox/customers').set({ apikey: API_KEY, secretkey: other.secretkey }).send({ customerId: 'x', points: 1 }),
      401,
      1001,
    );
    expectLoyaltyError(await http.get(`/_sandbox/accounts/${API_KEY}`).set(other), 401, 1000);
    expectLoyaltyError(await http.put(`/_sandbox/accounts/${API_KEY}`).set(other).send({ otpEnabled: true }), 401, 1000);
    expect((await http.get(`/_sandbox/accounts/${API_KEY}`).set({ apikey: API_KEY, secretkey: SECRET }).expect(200)).body.otpEnabled).toBe(false);
    await http.get('/_sandbox/clock').set(other).expect(200);
  });

  it("forgets one transaction's record: its order transactions and the list no longer show it, its id is free, the balance stays", async () => {
    await h.seed('f1', 500);
    const redeem = (points: number) =>
      h.http.post(`${API}/transactions/redeem`).set(h.keys).send({ customerId: 'f1', transactionTime: T, transactionId: 'rdm-f1', points });
    await redeem(100).expect(200);
    const res = await h.http.delete('/_sandbox/transactions/rdm-f1').set(h.keys).expect(200);
    expect(res.body).toEqual({ forgotten: true, transactionId: 'rdm-f1', kind: 'redeem', customerId: 'f1' });
    expectLoyaltyError(await h.http.get(`${API}/orders/rdm-f1/transactions`).set(h.keys), 404, 9002);
    expect((await h.http.get(`${API}/transactions?customerId=f1`).set(h.keys).expect(200)).body.transactions).toEqual([]);
    expect(await h.balance('f1')).toMatchObject({ availablePointsBalance: 400 });
    // The id again, with other points: one record of those, listed once.
    await redeem(60).expect(200);
    const rows = (await h.http.get(`${API}/orders/rdm-f1/transactions`).set(h.keys).expect(200)).body.transactions;
    expect(rows).toEqual([expect.objectContaining({ transactionType: 'Redemption', equivalentPoints: 60 })]);
    expect((await h.http.get(`${API}/transactions?customerId=f1`).set(h.keys).expect(200)).body.transactions).toHaveLength(1);
    expectLoyaltyError(await h.http.delete('/_sandbox/transactions/nothing-here').set(h.keys), 404, 9002);
  });

  it('seeds customers (201 new, 200 existing) and validates the seed', async () => {
    const created = await h.http.post('/_sandbox/customers').set(h.keys).send({ customerId: 's1', points: 70, email: 's1@example.com' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ customerId: 's1', availablePointsBalance: 70 });
    const updated = await h.http.post('/_sandbox/customers').set(h.keys).send({ customerId: 's1', points: 90 });
    expect(updated.status).toBe(200);
    expect(updated.body.availablePointsBalance).toBe(90);
    expectLoyaltyError(await h.http.post('/_sandbox/customers').set(h.keys).send({ customerId: 's2' }), 400, 3000);
    expectLoyaltyError(await h.http.post('/_sandbox/customers').set(h.keys).send({ customerId: 's2', points: -1 }), 422, 3003);
    expectLoyaltyError(await h.http.post('/_sandbox/customers').set(h.keys).send({ customerId: 's2', points: 1, email: 'nope' }), 422, 3003);
  });

  it('reset puts state, settings and clock back to the configured seed', async () => {
    await h.seed('c1', 100);
    await h.setAccount({ otpEnabled: true });
    await h.advance(5000);
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/balance`).set(h.keys), 404, 7000);
    expect((await h.http.get(`/_sandbox/accounts/${API_KEY}`).set(h.keys)).body.otpEnabled).toBe(false);
    expect((await h.http.get('/_sandbox/clock').set(h.keys)).body).toEqual({ now: new Date(START).toISOString(), epochMs: START, offsetMs: 0 });
  });

  it('reset re-creates the configured seed customers', async () => {
    const s = createSandbox({ accounts: [testAccount({ seedCustomers: [{ customerId: 'seeded', points: 42 }] })] });
    const http = request(s.app);
    await http.post(`${API}/payments`).set(h.keys).send({ customerId: 'seeded', paymentId: 'p1', paymentDate: T, totalPaid: 8 }).expect(200);
    expect((await http.get(`${API}/customers/seeded/balance`).set(h.keys)).body.availablePointsBalance).toBe(50);
    await http.post('/_sandbox/reset').set(h.keys).expect(200);
    expect((await http.get(`${API}/customers/seeded/balance`).set(h.keys)).body.availablePointsBalance).toBe(42);
  });

  it('GET returns the settings as one object without the secret; PUT accepts that whole object too', async () => {
    const got = await h.http.get(`/_sandbox/accounts/${API_KEY}`).set(h.keys);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secretKey');
    expect(got.body).toMatchObject({
      apiKey: API_KEY,
      otpEnabled: false,
      highSecurityMode: false,
      channelMerging: 'none',
      holdPeriodMinutes: 10,
      redemptionFactor: 0.1,
    });
    const put = await h.http
      .put(`/_sandbox/accounts/${API_KEY}`)
      .set(h.keys)
      .send({ ...got.body, redemptionFactor: 0.25, tiers: [] });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...got.body, redemptionFactor: 0.25, tiers: [] });
    expect((await h.http.get(`/_sandbox/accounts/${API_KEY}`).set(h.keys)).body).toEqual(put.body);
    // The secret kept working.
    await h.seed('c1', 100);
    expect((await h.balance('c1')).availablePointsValue).toBe(25);
  });

  it('PUT validates and names the bad field; apiKey cannot change; the secret can, and reset takes the configured one back', async () => {
    const bad = expectLoyaltyError(await h.http.put(`/_sandbox/accounts/${API_KEY}`).set(h.keys).send({ holdPeriodMinutes: 21601 }), 422, 3003);
    expect(bad.message).toContain('holdPeriodMinutes');
    const badMode = expectLoyaltyError(await h.http.put(`/_sandbox/accounts/${API_KEY}`).set(h.keys).send({ channelMerging: 'fax' }), 422, 3003);
    expect(badMode.message).toContain('channelMerging');
    const unknown = expectLoyaltyError(await h.http.put(`/_sandbox/accounts/${API_KEY}`).set(h.keys).send({ otpEnabld: true }), 422, 3003);
    expect(unknown.message).toContain('otpEnabld');
    const proto = await h.http
      .put(`/_sandbox/accounts/${API_KEY}`)
      .set(h.keys)
      .set('Content-Type', 'application/json')
      .send('{"__proto__":{"otpEnabled":true}}');
    // Dropped by the JSON parser or refused as an unknown key: either way it changes nothing.
    expect(proto.status).toBeLessThan(500);
    expect((await h.http.get(`/_sandbox/accounts/${API_KEY}`).set(h.keys)).body.otpEnabled).toBe(false);
    expectLoyaltyError(await h.http.put(`/_sandbox/accounts/${API_KEY}`).set(h.keys).send({ apiKey: 'another_key_99' }), 422, 3003);
    expectLoyaltyError(
      await h.http
        .put(`/_sandbox/accounts/${API_KEY}`)
        .set(h.keys)
        .send([{ otpEnabled: true }]),
      400,
      3016,
    );
    expectLoyaltyError(await h.http.get('/_sandbox/accounts/unknown_key_1').set(h.keys), 401, 1000);

    await h.http.put(`/_sandbox/accounts/${API_KEY}`).set(h.keys).send({ secretKey: 'rotated_secret_9' }).expect(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/x/hash`).set(h.keys), 401, 1001);
    const rotated = { apikey: API_KEY, secretkey: 'rotated_secret_9' };
    expectLoyaltyError(await h.http.get(`${API}/customers/x/hash`).set(rotated), 404, 7000);
    // Only reset still takes the configured secret (so a lost rotated one can be undone); other routes want the current one.
    expectLoyaltyError(await h.http.get('/_sandbox/clock').set(h.keys), 401, 1001);
    await h.http.get('/_sandbox/clock').set(rotated).expect(200);
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/x/hash`).set(h.keys), 404, 7000);
  });

  it('PUT takes a partial object: given fields replace, objects merge one level, arrays are replaced', async () => {
    const before = (await h.http.get(`/_sandbox/accounts/${API_KEY}`).set(h.keys).expect(200)).body;
    expect(before.earn.minimumSpend).toBeDefined();
    const put = await h.http
      .put(`/_sandbox/accounts/${API_KEY}`)
      .set(h.keys)
      .send({ otpEnabled: true, earn: { pointsPerUnit: 3 }, eventRewards: { signup: 7 }, tiers: [] })
      .expect(200);
    expect(put.body).toEqual({
      ...before,
      otpEnabled: true,
      earn: { ...before.earn, pointsPerUnit: 3 },
      eventRewards: { ...before.eventRewards, signup: 7 },
      tiers: [],
    });
    expect((await h.http.get(`/_sandbox/accounts/${API_KEY}`).set(h.keys)).body).toEqual(put.body);
    // An empty object changes nothing.
    expect((await h.http.put(`/_sandbox/accounts/${API_KEY}`).set(h.keys).send({}).expect(200)).body).toEqual(put.body);
  });

  it('reads and advances the clock (forward only)', async () => {
    expect((await h.http.get('/_sandbox/clock').set(h.keys)).body.epochMs).toBe(START);
    const adv = await h.http.post('/_sandbox/clock/advance').set(h.keys).send({ ms: 90_000 });
    expect(adv.body).toEqual({ now: new Date(START + 90_000).toISOString(), epochMs: START + 90_000, offsetMs: 90_000 });
    expectLoyaltyError(await h.http.post('/_sandbox/clock/advance').set(h.keys).send({ ms: -1 }), 422, 3003);
    expectLoyaltyError(await h.http.post('/_sandbox/clock/advance').set(h.keys).send({}), 400, 3000);
  });
});

describe('loadSandboxAccounts', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sbx-accounts-'));
  const write = (name: string, content: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };

  it('loads the demo account from config/', () => {
    const [demo] = loadSandboxAccounts(path.join(__dirname, '../../config/sandbox-accounts.json'));
    expect(demo).toMatchObject({
      apiKey: 'sbx_demo_api_key',
      secretKey: 'sbx_demo_secret',
      otpEnabled: false,
      highSecurityMode: false,
      channelMerging: 'none',
      eventRewards: { place_order: 10 },
    });
    expect(demo.tiers.length).toBeGreaterThan(1);
    expect(demo.redemptionRules.length).toBeGreaterThan(0);
  });

  it('fills defaults and names the bad field', () => {
    const [a] = loadSandboxAccounts(write('min.json', JSON.stringify([{ name: 'Min', apiKey: 'min_api_key', secretKey: 'min_secret_key' }])));
    expect(a.holdPeriodMinutes).toBe(10);
    expect(() => loadSandboxAccounts(write('bad.json', JSON.stringify([{ ...testAccount(), holdPeriodMinutes: 0 }])))).toThrow(/0\.holdPeriodMinutes/);
    expect(() => loadSandboxAccounts(write('bad2.json', JSON.stringify([testAccount(), testAccount()])))).toThrow(/duplicate apiKey/);
    expect(() => loadSandboxAccounts(write('bad3.json', '[{'))).toThrow(/not valid JSON/);
    expect(() => loadSandboxAccounts(path.join(dir, 'missing.json'))).toThrow(/Cannot read/);
    expect(() => createSandbox({ accounts: [{ ...testAccount(), redemptionFactor: 0 }] })).toThrow(/redemptionFactor/);
  });
});

describe('startSandbox', () => {
  it('listens on a free port and serves real HTTP; logs never carry the secret', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const s = await startSandbox({ accounts: [testAccount()], port: 0, logger });
    try {
      expect(s.port).toBeGreaterThan(0);
      expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
      const res = await fetch(`${s.url}${API}/customers/x/hash`, { headers: { apikey: API_KEY, secretkey: SECRET } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { code: number }).code).toBe(7000);
      await fetch(`${s.url}${API}/customers/x/hash`, { headers: { apikey: API_KEY, secretkey: 'wrong_secret_1' } });
    } finally {
      await s.close();
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(SECRET);
  });
});

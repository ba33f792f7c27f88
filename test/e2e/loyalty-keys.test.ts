import request from 'supertest';
import { KEY_CHECK_CUSTOMER } from '../../src/upstream/key-check';
import { paymentsOf } from '../pos/outbox/stack-helpers';
import { SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * The loyalty keys over real HTTP: two BFF instances on one Redis and the
 * sandbox, whose account's secret key is changed through its admin API (as
 * an operator rotating it in the loyalty dashboard would).
 */
const ROTATED = 'e2e_rotated_secret_key_4c1d';

/** Changes the account's secret key; the admin API takes the account's secret as it is at the time. */
async function setSecret(s: Stack, from: string, to: string): Promise<void> {
  const keys = { apikey: SANDBOX_KEYS.apikey, secretkey: from };
  const current = await s.sandboxAdmin.get(`/_sandbox/accounts/${SANDBOX_KEYS.apikey}`).set(keys).expect(200);
  await s.sandboxAdmin
    .put(`/_sandbox/accounts/${SANDBOX_KEYS.apikey}`)
    .set(keys)
    .send({ ...current.body, secretKey: to })
    .expect(200);
}

const readiness = async (s: Stack, i: number) => {
  const res = await request(s.bffs[i].url).get('/readyz');
  return { status: res.status, body: res.body as { status: string; checks: Record<string, string> } };
};

const keyChecks = (s: Stack) => s.sentUpstream().filter((e) => e.path.includes(KEY_CHECK_CUSTOMER));

describe('a wrong secret key', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, env: { LOYALTY_KEY_CHECK_SECONDS: '1' } });
    await s.seed('key-alice', 1000);
    await s.seed('key-carol', 1000);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('makes both instances not ready naming the key, queues a plain sale and a refund (202), refuses a redemption with a clear 503, and delivers once fixed', async () => {
    for (const i of [0, 1]) expect((await readiness(s, i)).body.checks.loyaltyKey).toBe('ok');
    await s.pos('cashier').post('/payments', { customerId: 'key-carol', paymentId: 'key-sale-0', totalPaid: 50 }).expect(201);
    await setSecret(s, SANDBOX_KEYS.secretkey, ROTATED);

    // The key check (one instance) finds it; the other learns it through Redis, without a call of its own.
    for (const i of [0, 1]) {
      await waitFor(`instance ${i} not ready for its key`, async () => (await readiness(s, i)).status === 503, 15_000);
      expect((await readiness(s, i)).body).toMatchObject({ status: 'not_ready', checks: { loyaltyKey: 'refused', upstream: 'ok' } });
    }
    const gauges = await s.bffs[1].metrics.render();
    expect(gauges).toMatch(/pos_loyalty_key_refused\{slot="current"\} 1/);
    expect(gauges).toMatch(/pos_loyalty_key_usable 0/);

    const sale = await s.pos('cashier').post('/payments', { customerId: 'key-alice', paymentId: 'key-sale-1', totalPaid: 40 });
    expect(sale.status).toBe(202);
    expect(sale.body).toMatchObject({ queued: true, reason: 'loyalty_key_refused' });

    const refund = await s.pos('manager', 1).post('/refunds', { customerId: 'key-carol', refundId: 'key-refund-0', paymentId: 'key-sale-0', amount: 10 });
    expect(refund.status).toBe(202);
    expect(refund.body).toMatchObject({ queued: true, reason: 'loyalty_key_refused' });

    const start = await s.pos('cashier', 1).post('/redemptions', { customerId: 'key-alice', points: 10 });
    expect(start.status).toBe(503);
    expect(start.body.code).toBe('loyalty_key_refused');
    expect(start.body.detail).toMatch(/refused the middleware's key/);
    expect(JSON.stringify(start.body)).not.toContain(ROTATED);

    // Waiting for the key, the queued sale is not given up on.
    await waitFor('a delivery attempt refused for the key', () => s.sentUpstream().filter((e) => e.path.endsWith('/payments')).length >= 2, 15_000);
    const waiting = await s.pos('cashier').get(`/outbox/${sale.body.outboxId}`).expect(200);
    expect(waiting.body.state).toBe('queued');

    await setSecret(s, ROTATED, SANDBOX_KEYS.secretkey);
    await waitFor('the queued sale delivered', async () => (await s.pos('cashier').get(`/outbox/${sale.body.outboxId}`)).body.state === 'delivered', 20_000);
    expect(await paymentsOf(s, 'key-alice')).toEqual(['key-sale-1']);
    await waitFor(
      'the queued refund delivered',
      async () => (await s.pos('manager').get(`/outbox/${refund.body.outboxId}`)).body.state === 'delivered',
      20_000,
    );
    for (const i of [0, 1]) await waitFor(`instance ${i} ready again`, async () => (await readiness(s, i)).status === 200, 15_000);
    for (const line of s.logs) expect(line).not.toContain(ROTATED);
  });
});

describe('the key check', () => {
  let s: Stack;
  let started: number;
  beforeAll(async () => {
    // Counted from before the stack starts, so every check made is inside the measured time.
    started = Date.now();
    s = await startStack({ store: 'redis', instances: 2, env: { LOYALTY_KEY_CHECK_SECONDS: '1' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('makes at most one upstream call per interval across two instances on one Redis', async () => {
    await waitFor('three key checks', () => keyChecks(s).length >= 3, 20_000);
    const elapsedMs = Date.now() - started;
    // Each instance passes four times an interval: without the shared lease there would be about eight a second.
    expect(keyChecks(s).length).toBeLessThanOrEqual(Math.floor(elapsedMs / 1000) + 1);
    expect(keyChecks(s).every((e) => e.headers.secretkey === SANDBOX_KEYS.secretkey)).toBe(true);
  });
});

describe('rotation with LOYALTY_SECRET_KEY_NEXT', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, env: { LOYALTY_KEY_CHECK_SECONDS: '1', LOYALTY_SECRET_KEY_NEXT: ROTATED } });
    await s.seed('key-bob', 1000);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the current key revoked, the next one works: no till request fails, readiness stays ready, the fleet moves to the next slot', async () => {
    // Before the rotation: the next key is not accepted yet, which does not make anyone unready.
    await waitFor('the next key checked', async () => /pos_loyalty_key_refused\{slot="next"\} 1/.test(await s.bffs[0].metrics.render()), 15_000);
    for (const i of [0, 1]) expect((await readiness(s, i)).status).toBe(200);

    await setSecret(s, SANDBOX_KEYS.secretkey, ROTATED);
    const sale = await s.pos('cashier', 0).post('/payments', { customerId: 'key-bob', paymentId: 'key-sale-2', totalPaid: 30 });
    expect(sale.status).toBe(201);
    const hold = await s.pos('cashier', 1).post('/redemptions', { customerId: 'key-bob', points: 10 });
    expect(hold.status).toBe(201);
    const refund = await s.pos('manager', 1).post('/refunds', { customerId: 'key-bob', refundId: 'key-refund-1', paymentId: 'key-sale-2', amount: 5 });
    expect(refund.status).toBe(201);
    const activity = await s.sandboxAdmin.get('/_sandbox/customers/key-bob/activity').set({ apikey: SANDBOX_KEYS.apikey, secretkey: ROTATED }).expect(200);
    const payments = (activity.body.activity as { type: string; properties: { paymentId?: string } }[]).filter((a) => a.type === 'Payment Processed');
    expect(payments.map((a) => a.properties.paymentId)).toEqual(['key-sale-2']);

    for (const i of [0, 1]) {
      await waitFor(`instance ${i} on the next slot`, () => s.bffs[i].deps.loyalty.keys.active() === 'next', 15_000);
      expect((await readiness(s, i)).body).toMatchObject({ status: 'ready', checks: { loyaltyKey: 'ok' } });
    }
    await waitFor('the current key checked refused', async () => /pos_loyalty_key_refused\{slot="current"\} 1/.test(await s.bffs[1].metrics.render()), 15_000);
    expect(await s.bffs[1].metrics.render()).toMatch(/pos_loyalty_key_refused\{slot="next"\} 0/);
    expect(await s.bffs[1].metrics.render()).toMatch(/pos_loyalty_key_usable 1/);
    const switched = s.logs.filter((l) => l.includes('now use the next key slot'));
    expect(switched.length).toBeGreaterThanOrEqual(1);
    // Once per instance, not once per call.
    expect(switched.length).toBeLessThanOrEqual(2);
    for (const line of s.logs) expect(line).not.toContain(ROTATED);
    // Calls after the switch go straight to the next key.
    const before = s.sentUpstream().length;
    await s.pos('cashier', 0).post('/payments', { customerId: 'key-bob', paymentId: 'key-sale-3', totalPaid: 10 }).expect(201);
    const sent = s
      .sentUpstream()
      .slice(before)
      .filter((e) => e.path.endsWith('/payments'));
    expect(sent.map((e) => e.headers.secretkey)).toEqual([ROTATED]);
  });
});

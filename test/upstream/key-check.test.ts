import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../src/platform/logger';
import { connectRedis, waitForRedis } from '../../src/platform/redis';
import { KEY_CHECK_CUSTOMER, KeyCheck, MemoryKeyVerdicts, RedisKeyVerdicts, type KeyVerdictStore } from '../../src/upstream/key-check';
import type { CallPolicy, CallPriority } from '../../src/upstream';
import { waitFor } from '../e2e/helpers';
import { bodies, paymentRequest } from './fixtures';
import { API_KEY, failure, json, loyaltyError, makeClient, SECRET_KEY, useTestUpstream } from './test-upstream';

/**
 * The key check on the test run's real Redis: two instances of one fleet
 * (their own connections and clients, one key prefix) against a scripted
 * upstream over HTTP.
 */
const upstream = useTestUpstream();
const clients: Redis[] = [];
const connect = async () => {
  const r = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
  await waitForRedis(r, 5000);
  clients.push(r);
  return r;
};
afterAll(async () => {
  for (const c of clients) c.disconnect();
});

const checks = () => upstream.seen.filter((s) => s.url.includes(KEY_CHECK_CUSTOMER));
const refused = () => loyaltyError(401, 1001, 'SecretKeyRequired', 'The secretkey header is not valid');
const notFound = () => loyaltyError(404, 7000, 'CustomerNotFound', 'no such customer');

async function instance(store: KeyVerdictStore, intervalMs = 60_000, secretKey?: string) {
  const priorities: CallPriority[] = [];
  // Where the fleet's budget sits: it sees each call's priority.
  const budget: CallPolicy = (info, next) => {
    priorities.push(info.priority);
    return next();
  };
  const { client } = makeClient(upstream, { retries: 0, policies: [budget], ...(secretKey ? { secretKey } : {}) });
  const check = new KeyCheck({ keys: client.keys, loyalty: client, store, intervalMs, logger: silentLogger });
  return { client, check, priorities };
}

describe('KeyCheck with Redis (two instances, one fleet)', () => {
  const fleet = async () => {
    const prefix = `test:keys:${randomUUID().slice(0, 8)}:`;
    return [await instance(new RedisKeyVerdicts(await connect(), prefix)), await instance(new RedisKeyVerdicts(await connect(), prefix))];
  };

  it('one upstream read per interval for the whole fleet, at background priority, and the other instance adopts its verdict', async () => {
    const [a, b] = await fleet();
    upstream.script(refused());
    await a.check.pass();
    await b.check.pass();
    await a.check.pass();
    await b.check.pass();
    a.client.close();
    b.client.close();
    expect(checks()).toHaveLength(1);
    expect([...a.priorities, ...b.priorities]).toEqual(['background']);
    expect(a.client.keys.refused()).toBe(true);
    expect(b.client.keys.refused()).toBe(true);
    expect(b.client.keys.state('current').verdict).toBe('refused');
    // Shared under a fingerprint: neither key is in Redis.
    const stored = await clients[0].keys('test:keys:*');
    expect(stored.length).toBeGreaterThan(0);
    const text = JSON.stringify([stored, await Promise.all(stored.map((k) => clients[0].get(k)))]);
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(API_KEY);
  });

  it('an unknown customer (7000) shows the keys accepted; an answer-less check (5xx) says nothing', async () => {
    const [a, b] = await fleet();
    upstream.script(loyaltyError(503, 5000, 'InternalError', 'down'));
    await a.check.pass();
    expect(a.client.keys.state('current').verdict).toBe('unknown');
    const [c] = await fleet();
    upstream.script(notFound());
    await c.check.pass();
    for (const x of [a, b, c]) x.client.close();
    expect(c.client.keys.state('current').verdict).toBe('ok');
  });

  it("a host configured with other keys (a wrong one) is checked in the same interval, not covered by the fleet's lease", async () => {
    const prefix = `test:keys:${randomUUID().slice(0, 8)}:`;
    const good = await instance(new RedisKeyVerdicts(await connect(), prefix));
    const wrong = await instance(new RedisKeyVerdicts(await connect(), prefix), 60_000, 'a_mistyped_secret_key_0000');
    upstream.script(notFound(), refused());
    await good.check.pass();
    await wrong.check.pass();
    good.client.close();
    wrong.client.close();
    expect(checks()).toHaveLength(2);
    expect(good.client.keys.refused()).toBe(false);
    expect(wrong.client.keys.refused()).toBe(true);
  });

  it('a stray refusal in traffic that the check contradicts is not told to the fleet, and this instance takes the key back', async () => {
    const [a, b] = await fleet();
    // The payment's refusal (a 1002 for one resource, say), then the check it sets off: the key reads past it.
    upstream.script(loyaltyError(403, 1002, 'Forbidden', 'no permission'), notFound());
    await failure(() => a.client.payment(paymentRequest));
    await waitFor('A to check its key', async () => checks().length === 1 && !a.client.keys.refused());
    await b.check.pass();
    a.client.close();
    b.client.close();
    expect(a.client.keys.state('current').verdict).toBe('ok');
    expect(b.client.keys.refused()).toBe(false);
  });

  it('a bare 401 from something in front of the service (no key code) is no verdict: it never clears a refusal', async () => {
    const [a] = await fleet();
    a.client.keys.learn('current', 'refused', 'traffic', Date.now());
    upstream.script(json(401, { message: 'proxy says no' }));
    await a.check.pass();
    a.client.close();
    expect(a.client.keys.refused()).toBe(true);
  });

  it("a key failure one instance meets in its own traffic is checked at once and, confirmed, is the fleet's at its next pass", async () => {
    const [a, b] = await fleet();
    // The payment's refusal, then the check it sets off.
    upstream.script(refused(), refused());
    await failure(() => a.client.payment(paymentRequest));
    // Shared in the background: wait for the write rather than a fixed time.
    await waitFor('B to adopt the refusal', async () => (await b.check.pass(), b.client.keys.refused()));
    // A newer success elsewhere wins over the older refusal.
    upstream.script(json(200, bodies.payment));
    await a.client.payment(paymentRequest);
    await waitFor('B to adopt the newer success', async () => (await b.check.pass(), !b.client.keys.refused()));
    a.client.close();
    b.client.close();
  });
});

describe('newest verdict wins', () => {
  it.each([
    ['Redis', async () => new RedisKeyVerdicts(await connect(), `test:keys:${randomUUID().slice(0, 8)}:`)],
    ['memory', async () => new MemoryKeyVerdicts()],
  ])('%s: a verdict written late but learnt earlier does not replace a newer one', async (_name, make) => {
    const store = await make();
    await store.write('fp-1', { verdict: 'ok', at: 2000 });
    await store.write('fp-1', { verdict: 'refused', at: 1000 });
    expect(await store.read('fp-1')).toEqual({ verdict: 'ok', at: 2000 });
    await store.write('fp-1', { verdict: 'refused', at: 3000 });
    expect(await store.read('fp-1')).toEqual({ verdict: 'refused', at: 3000 });
  });

  it("an instance keeps its own newer verdict over the fleet's older one", () => {
    const { client } = makeClient(upstream);
    client.keys.learn('current', 'ok', 'traffic', 2000);
    client.keys.learn('current', 'refused', 'fleet', 1000);
    client.close();
    expect(client.keys.state('current')).toEqual({ verdict: 'ok', at: 2000 });
  });
});

describe('KeyCheck without Redis', () => {
  it('checks once per interval in the process', async () => {
    let now = 1_000_000;
    const store = new MemoryKeyVerdicts(() => now);
    const a = await instance(store, 1000);
    upstream.script(notFound(), refused());
    await a.check.pass();
    await a.check.pass();
    expect(checks()).toHaveLength(1);
    now += 1000;
    await a.check.pass();
    a.client.close();
    expect(checks()).toHaveLength(2);
    expect(a.client.keys.refused()).toBe(true);
  });
});

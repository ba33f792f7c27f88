import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../../src/platform/logger';
import { connectRedis, waitForRedis } from '../../../src/platform/redis';
import { certainlyNotDelivered, type CallInfo, type CallPolicy, failureOf, writeOutcome } from '../../../src/upstream';
import { budgetPolicy, MemoryBudget, RedisBudget, type UpstreamBudget } from '../../../src/upstream/policies';
import { bodies, paymentRequest, reads } from '../fixtures';
import { failure, json, loyaltyError, makeClient, useTestUpstream } from '../test-upstream';
import { rules } from './budget-rules';

const upstream = useTestUpstream();
const PAUSES = { pauseWithoutRetryAfterMs: 1000, maxPauseMs: 60_000 };
const tooMany = (retryAfter?: string) => loyaltyError(429, 429, 'RateLimited', 'slow', retryAfter === undefined ? {} : { 'Retry-After': retryAfter });

/** A client whose every attempt goes through `budget`; sleeps are recorded, not slept. */
function clientOn(budget: UpstreamBudget, overrides: { retries?: number } = {}, onSleep: (ms: number) => void = () => undefined) {
  const slept: number[] = [];
  const policy = budgetPolicy(budget, {
    ...PAUSES,
    sleep: async (ms) => {
      slept.push(ms);
      onSleep(ms);
    },
  });
  return { ...makeClient(upstream, { retries: 2, policies: [policy], ...overrides }), slept };
}

describe('budgetPolicy on the client', () => {
  it('waits for the slot, then sends', async () => {
    const { client, slept } = clientOn(new MemoryBudget(rules({ rate: 4, quota: 0 }, { waits: [1000, 1000, 1000] }), () => 0));
    upstream.always(json(200, bodies.balance));
    for (let i = 0; i < 3; i++) await client.balance('c-1');
    client.close();
    // The two that wait confirm their booking after it: on a clock that stands still, the same wait again.
    expect(slept).toEqual([250, 250, 500, 500]);
    expect(upstream.seen).toHaveLength(3);
  });

  it('a call moved back for a second leg while it waited waits for its new slot, or is refused past its wait, nothing sent', async () => {
    let now = 0;
    for (const [cashierWait, outcome] of [
      [1000, 'sent'],
      [150, 'refused'],
    ] as const) {
      const budget = new MemoryBudget(rules({ rate: 10, quota: 0 }, { waits: [2000, cashierWait, 50] }), () => now);
      let legWait: number | undefined;
      const { client, slept } = clientOn(budget, { retries: 0 }, (ms) => {
        // While the second call sleeps towards its slot (100), a second leg arrives and takes it.
        if (legWait === undefined) void budget.reserve('customersRead', 'secondLeg').then((r) => (legWait = r.ok ? r.waitMs : NaN));
        now += ms;
      });
      upstream.always(json(200, bodies.balance));
      const seen = upstream.seen.length;
      await client.balance('c-1');
      const second = client.balance('c-2').then(
        () => 'sent',
        (err: { code: string }) => err.code,
      );
      expect(await second).toBe(outcome === 'sent' ? 'sent' : 'upstream_busy');
      client.close();
      expect(legWait).toBe(100);
      // Moved to 200: it slept 100, confirmed, then slept the 100 more (or, past its 150-ms wait, was not sent).
      expect(slept).toEqual(outcome === 'sent' ? [100, 100] : [100]);
      expect(upstream.seen.length - seen).toBe(outcome === 'sent' ? 2 : 1);
      now += 10_000;
    }
  });

  it('no budget in time: 503 upstream_busy at once with the schedule in Retry-After, nothing sent, not retried, a refusal for the outcome', async () => {
    let now = 0;
    const budget = new MemoryBudget(rules({ rate: 0, quota: 2 }, { reserves: [0, 0] }), () => now);
    const { client, delays } = clientOn(budget);
    upstream.always(json(200, bodies.payment));
    await client.payment(paymentRequest);
    now = 4000;
    await client.payment(paymentRequest);
    now = 10_000;
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err).toMatchObject({ code: 'upstream_busy', status: 503 });
    // The first call leaves the 30-s window at 30 s: 20 s from now.
    expect(err.retryAfterSeconds).toBe(20);
    expect(certainlyNotDelivered(err)).toBe(true);
    expect(failureOf(err)).toBe('refused');
    expect(delays).toEqual([]);
    expect(upstream.seen).toHaveLength(2);
  });

  it('no slot within the wait: refused at once, not retried after the slot (the budget already waited what it may)', async () => {
    const { client, delays, slept } = clientOn(new MemoryBudget(rules({ rate: 2, quota: 0 }), () => 0));
    upstream.always(json(200, bodies.balance));
    await client.balance('c-1');
    const err = await failure(() => client.balance('c-1'));
    client.close();
    expect(err).toMatchObject({ code: 'upstream_busy', retryAfterSeconds: 0.5 });
    expect(delays).toEqual([]);
    expect(slept).toEqual([]);
    expect(upstream.seen).toHaveLength(1);
  });

  it('the priority travels with the call (cashier by default): background is refused where a second leg still goes', async () => {
    const budget = new MemoryBudget(rules({ rate: 0, quota: 10 }, { reserves: [10, 30] }), () => 0);
    const seen: CallInfo[] = [];
    const spy: CallPolicy = (info, next) => {
      seen.push(info);
      return next();
    };
    const policy = budgetPolicy(budget, PAUSES);
    const { client } = makeClient(upstream, { retries: 0, policies: [spy, policy] });
    upstream.always(json(200, bodies.payment));
    for (let i = 0; i < 9; i++) await client.payment(paymentRequest);
    expect(seen[0].priority).toBe('cashier');
    expect((await failure(() => client.payment(paymentRequest, { priority: 'background' }))).code).toBe('upstream_busy');
    expect((await failure(() => client.payment(paymentRequest))).code).toBe('upstream_busy');
    await expect(client.payment(paymentRequest, { priority: 'secondLeg' })).resolves.toBeDefined();
    client.close();
    expect(upstream.seen).toHaveLength(10);
  });

  it("an upstream 429 pauses the bucket for its Retry-After: the retry asks the budget at once and is refused, and so is the bucket's next call", async () => {
    let now = 0;
    const budget = new MemoryBudget(rules({ rate: 0, quota: 0 }), () => now);
    const { client, delays } = clientOn(budget);
    upstream.script(tooMany('2'), json(200, bodies.payment));
    upstream.always(json(200, bodies.tierProgress));
    const err = await failure(() => client.tierProgress('c-1'));
    // Retried at once (no 2-s sleep in the client), refused by the pause: the till hears at once.
    expect(delays).toEqual([0]);
    expect(err).toMatchObject({ code: 'upstream_busy', retryAfterSeconds: 2 });
    expect(upstream.seen).toHaveLength(1);
    // Another call of the bucket (balance is a customer read too) is held; another bucket is not.
    expect((await failure(() => client.balance('c-1'))).code).toBe('upstream_busy');
    await client.payment(paymentRequest);
    expect(upstream.seen).toHaveLength(2);
    now = 2000;
    await expect(client.tierProgress('c-1')).resolves.toEqual(reads.tierProgress);
    client.close();
  });

  it('a second leg waits out a short pause and goes (it may wait longer than a cashier)', async () => {
    const budget = new MemoryBudget(rules({ rate: 0, quota: 0 }, { waits: [1000, 250, 50] }), () => 0);
    const { client, delays, slept } = clientOn(budget);
    upstream.script(tooMany('1'), json(200, bodies.payment));
    await client.payment(paymentRequest, { priority: 'secondLeg' });
    client.close();
    expect(delays).toEqual([0]);
    expect(slept).toEqual([1000]);
    expect(upstream.seen).toHaveLength(2);
  });

  it('a 429 without Retry-After pauses for the default; a huge Retry-After is capped', async () => {
    let now = 0;
    const budget = new MemoryBudget(rules({ rate: 0, quota: 0 }), () => now);
    const slept: number[] = [];
    const policy = budgetPolicy(budget, { pauseWithoutRetryAfterMs: 700, maxPauseMs: 5000, sleep: async (ms) => void slept.push(ms) });
    const { client } = makeClient(upstream, { retries: 0, policies: [policy] });
    upstream.script(tooMany(), tooMany('86400'));
    await failure(() => client.hash('c-1'));
    expect(await budget.reserve('customersRead', 'secondLeg')).toEqual({ ok: true, waitMs: 700 });
    now = 1000;
    await failure(() => client.hash('c-1'));
    expect(await budget.reserve('customersRead', 'secondLeg')).toEqual({ ok: false, retryAfterMs: 5000 });
    client.close();
  });

  it('a write refused by the budget reads as refused (nothing was applied), even when a lost answer came first it reads unknown', async () => {
    const budget = new MemoryBudget(rules({ rate: 0, quota: 1 }, { reserves: [0, 0] }), () => 0);
    const { client } = clientOn(budget, { retries: 1 });
    upstream.script((res) => res.socket?.destroy());
    // The dropped attempt may have landed; the retry is refused by the budget (quota 1 used): unknown, not refused.
    const outcome = await writeOutcome(
      () => client.payment(paymentRequest),
      async () => false,
    );
    client.close();
    expect(outcome).toMatchObject({ kind: 'unknown', error: { code: 'upstream_busy' } });
  });
});

describe('budgetPolicy: two BFF instances on one Redis', () => {
  const prefix = `test:budget-policy:${randomUUID().slice(0, 8)}:`;
  const clients: Redis[] = [];
  const instance = async () => {
    const r = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
    await waitForRedis(r, 5000);
    clients.push(r);
    return clientOn(new RedisBudget(r, { prefix, rules: rules({ rate: 0, quota: 0 }), logger: silentLogger }));
  };
  afterAll(async () => {
    const keys = await clients[0].keys(`${prefix}*`);
    if (keys.length) await clients[0].del(...keys);
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  });

  it('one sees the 429, the other does not send in that bucket until the pause is over', async () => {
    const a = await instance();
    const b = await instance();
    upstream.script(tooMany('1'));
    upstream.always(json(200, bodies.balance));
    expect((await failure(() => a.client.balance('c-1'))).code).toBe('upstream_busy');
    expect(upstream.seen).toHaveLength(1);
    const err = await failure(() => b.client.balance('c-2'));
    expect(err).toMatchObject({ code: 'upstream_busy' });
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(1);
    expect(upstream.seen).toHaveLength(1);
    // A second leg of b waits the rest of the pause out (up to 1 s), then sends.
    await b.client.balance('c-3', { priority: 'secondLeg' });
    expect(b.slept).toHaveLength(1);
    expect(b.slept[0]).toBeGreaterThan(0);
    expect(b.slept[0]).toBeLessThanOrEqual(1000);
    expect(upstream.seen).toHaveLength(2);
    a.client.close();
    b.client.close();
  });
});

import { certainlyNotDelivered } from '../../src/upstream';
import { budgetPolicy, MemoryBudget } from '../../src/upstream/policies';
import { TillWait, withTill } from '../../src/upstream/till';
import { bodies, paymentRequest } from './fixtures';
import { failure, json, loyaltyError, makeClient, stall, useTestUpstream } from './test-upstream';
import { rules } from './policies/budget-rules';

const upstream = useTestUpstream();
const unavailable503 = loyaltyError(503, 5000, 'InternalError', 'down');
/** A till that waits `ms` more from now. */
const tillFor = (ms: number) => new TillWait(Date.now() + ms, Math.ceil(ms / 1000));

/** The till's deadline as the loyalty client applies it to each call made for that request. */
describe('upstream calls under the till deadline', () => {
  it('a read gets only the time left: cut short, it is till_deadline_reached (nothing was done), not a slow-service error', async () => {
    const { client } = makeClient(upstream, { timeoutMs: 10_000 });
    upstream.always(stall);
    const started = Date.now();
    const err = await failure(() => withTill(tillFor(400), () => client.balance('c-1')));
    client.close();
    expect(err).toMatchObject({ code: 'till_deadline_reached', status: 503 });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('no retry starts that could not end in time', async () => {
    const { client, delays } = makeClient(upstream, { retryTuning: { baseDelayMs: 1000 } });
    upstream.always(unavailable503);
    const err = await failure(() => withTill(tillFor(500), () => client.balance('c-1')));
    client.close();
    expect(err.code).toBe('upstream_unavailable');
    expect(upstream.seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('a budget wait past the deadline is refused at once, nothing sent; the same wait inside it goes', async () => {
    const slept: number[] = [];
    let now = 0;
    const policy = budgetPolicy(new MemoryBudget(rules({ rate: 1, quota: 0 }, { waits: [5000, 5000, 5000] }), () => now), {
      pauseWithoutRetryAfterMs: 1000,
      maxPauseMs: 60_000,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    });
    const { client } = makeClient(upstream, { policies: [policy] });
    upstream.always(json(200, bodies.payment));
    await client.payment(paymentRequest);
    const err = await failure(() => withTill(tillFor(500), () => client.payment(paymentRequest)));
    expect(err).toMatchObject({ code: 'upstream_busy', status: 503 });
    expect(certainlyNotDelivered(err)).toBe(true);
    expect(upstream.seen).toHaveLength(1);
    await withTill(tillFor(3000), () => client.payment(paymentRequest));
    client.close();
    expect(upstream.seen).toHaveLength(2);
    expect(slept).toEqual([1000]);
  });

  it('once the till was told nothing was done, nothing is sent; a write sent before it makes the deadline answer 202', async () => {
    const { client } = makeClient(upstream);
    upstream.always(json(200, bodies.payment));
    const refused = tillFor(3000);
    refused.phase = 'refused';
    const err = await failure(() => withTill(refused, () => client.payment(paymentRequest)));
    expect(err.code).toBe('till_deadline_reached');
    expect(certainlyNotDelivered(err)).toBe(true);
    expect(upstream.seen).toHaveLength(0);
    const waiting = tillFor(3000);
    upstream.script(json(200, bodies.balance), json(200, bodies.payment));
    await withTill(waiting, () => client.balance('c-1'));
    expect(waiting.writeSent).toBe(false);
    await withTill(waiting, () => client.payment(paymentRequest));
    client.close();
    expect(waiting.writeSent).toBe(true);
  });

  it('a background call made for a request is bounded by its till too; only an explicit till: null opts out', async () => {
    const { client } = makeClient(upstream);
    upstream.always(json(200, bodies.payment));
    const refused = tillFor(3000);
    refused.phase = 'refused';
    const err = await failure(() => withTill(refused, () => client.payment(paymentRequest, { priority: 'background' })));
    expect(err.code).toBe('till_deadline_reached');
    expect(upstream.seen).toHaveLength(0);
    const waiting = tillFor(3000);
    await withTill(waiting, () => client.payment(paymentRequest, { priority: 'background' }));
    expect(waiting.writeSent).toBe(true);
    await withTill(refused, () => client.payment(paymentRequest, { priority: 'background', till: null }));
    client.close();
    expect(upstream.seen).toHaveLength(2);
  });

  it("a background call's budget wait past the deadline is refused at once, nothing sent", async () => {
    let now = 0;
    const policy = budgetPolicy(new MemoryBudget(rules({ rate: 1, quota: 0 }, { waits: [5000, 5000, 5000] }), () => now), {
      pauseWithoutRetryAfterMs: 1000,
      maxPauseMs: 60_000,
      sleep: async (ms) => {
        now += ms;
      },
    });
    const { client } = makeClient(upstream, { policies: [policy] });
    upstream.always(json(200, bodies.payment));
    await client.payment(paymentRequest);
    const till = tillFor(500);
    const err = await failure(() => withTill(till, () => client.payment(paymentRequest, { priority: 'background' })));
    client.close();
    expect(certainlyNotDelivered(err)).toBe(true);
    expect(upstream.seen).toHaveLength(1);
    expect(till.writeSent).toBe(false);
  });

  it('a call its caller marks readOnly (a coupon check, lock: false) is bounded like a read and never a write in flight', async () => {
    const { client } = makeClient(upstream, { timeoutMs: 10_000 });
    upstream.always(stall);
    const till = tillFor(400);
    const check = { customerId: 'c-1', lock: false, coupons: ['TEN', 'TEN'], totalPurchaseAmount: 50 };
    const started = Date.now();
    const err = await failure(() => withTill(till, () => client.couponsValidate(check, { readOnly: true })));
    client.close();
    expect(err).toMatchObject({ code: 'till_deadline_reached', status: 503 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(till.writeSent).toBe(false);
  });

  it('a write keeps its full timeout: the deadline does not cut it short (the till gets 202 and reads it back)', async () => {
    const { client } = makeClient(upstream, { timeoutMs: 1500, retries: 0 });
    upstream.always(stall);
    const started = Date.now();
    const err = await failure(() => withTill(tillFor(200), () => client.payment(paymentRequest)));
    client.close();
    expect(err.code).not.toBe('till_deadline_reached');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });
});

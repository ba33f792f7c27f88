import type { OperationId } from '../../src/contract';
import { ServiceUnavailableError } from '../../src/platform/errors';
import { failureOf, RETRY_SAFE } from '../../src/upstream';
import { rateLimited, timedOut, unavailable } from '../../src/upstream/errors';
import { nextDelayMs } from '../../src/upstream/retry';
import { batchRequest, bodies, reads, eventRequest, holdRequest, otpRequest, paymentRequest, refundRequest } from './fixtures';
import { drop, failure, json, loyaltyError, makeClient, stall, STALL_TIMEOUT_MS, useTestUpstream } from './test-upstream';

const upstream = useTestUpstream();

const unavailable503 = loyaltyError(503, 5000, 'InternalError', 'down');
const duplicate = loyaltyError(422, 9004, 'DuplicateTransaction', 'duplicate');

describe('reads', () => {
  it('503 then 200: retried after a jittered backoff, answer returned', async () => {
    const { client, delays } = makeClient(upstream);
    upstream.script(unavailable503, json(200, bodies.balance));
    await expect(client.balance('c-1')).resolves.toEqual(reads.balance);
    client.close();
    expect(upstream.seen).toHaveLength(2);
    // base 100 ms, equal jitter with random() = 0.5: 50 + 25.
    expect(delays).toEqual([75]);
  });

  it('gives up after `retries` more attempts with the last error', async () => {
    const { client, delays } = makeClient(upstream, { retries: 2 });
    upstream.always(unavailable503);
    const err = await failure(() => client.coupons('c-1'));
    client.close();
    expect(err.code).toBe('upstream_unavailable');
    expect(upstream.seen).toHaveLength(3);
    expect(delays).toEqual([75, 150]);
  });

  it('retries a timeout and a dropped connection', async () => {
    const { client } = makeClient(upstream, { timeoutMs: STALL_TIMEOUT_MS });
    upstream.script(stall, drop, json(200, bodies.hash));
    await expect(client.hash('c-1')).resolves.toEqual(bodies.hash);
    client.close();
    expect(upstream.seen).toHaveLength(3);
  });

  it('honours Retry-After of a 429, then succeeds', async () => {
    const { client, delays } = makeClient(upstream);
    upstream.script(loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '2' }), json(200, bodies.tierProgress));
    await expect(client.tierProgress('c-1')).resolves.toEqual(reads.tierProgress);
    client.close();
    expect(delays).toEqual([2000]);
  });

  it('does not wait out a Retry-After above the cap: the caller gets it', async () => {
    const { client, delays } = makeClient(upstream, { retryTuning: { maxRetryAfterSeconds: 5 } });
    upstream.script(loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '60' }), json(200, bodies.hash));
    const err = await failure(() => client.hash('c-1'));
    client.close();
    expect(err.code).toBe('upstream_busy');
    expect(err.retryAfterSeconds).toBe(60);
    expect(delays).toEqual([]);
    expect(upstream.seen).toHaveLength(1);
  });

  it('does not retry a refusal', async () => {
    const { client } = makeClient(upstream);
    upstream.script(loyaltyError(404, 7000, 'CustomerNotFound', 'no'), json(200, bodies.balance));
    expect((await failure(() => client.balance('c-1'))).code).toBe('customer_not_found');
    client.close();
    expect(upstream.seen).toHaveLength(1);
  });

  it('an abort during the backoff stops the retries', async () => {
    const ac = new AbortController();
    const { client } = makeClient(upstream, { sleep: undefined, retryTuning: { baseDelayMs: 10_000, maxDelayMs: 10_000 } });
    upstream.always(unavailable503);
    setTimeout(() => ac.abort(), 50);
    const err = await failure(() => client.balance('c-1', { signal: ac.signal }));
    client.close();
    expect(err.code).toBe('upstream_call_aborted');
    expect(upstream.seen).toHaveLength(1);
  });
});

describe('writes that could apply twice are sent once', () => {
  it.each([
    ['hold', (c: any) => c.hold(holdRequest)],
    ['otp', (c: any) => c.otp(otpRequest)],
    ['events', (c: any) => c.events(eventRequest)],
    ['batchOrders', (c: any) => c.batchOrders(batchRequest)],
    ['holdCancel', (c: any) => c.holdCancel('h-1')],
    ['deleteCustomer', (c: any) => c.deleteCustomer('c-1')],
  ])('%s on 503: called exactly once', async (_name, call) => {
    const { client, delays } = makeClient(upstream, { retries: 3 });
    upstream.always(unavailable503);
    const err = await failure(() => call(client));
    client.close();
    expect(err.code).toBe('upstream_unavailable');
    expect(upstream.seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('hold on a timeout: called exactly once', async () => {
    const { client } = makeClient(upstream, { retries: 3, timeoutMs: STALL_TIMEOUT_MS });
    upstream.script(stall, json(200, bodies.hold));
    expect((await failure(() => client.hold(holdRequest))).code).toBe('upstream_timeout');
    client.close();
    expect(upstream.seen).toHaveLength(1);
  });

  it('hold on 429: sent again, since a 429 is never applied', async () => {
    const { client, delays } = makeClient(upstream);
    upstream.script(loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '1' }), json(200, bodies.hold));
    await expect(client.hold(holdRequest)).resolves.toEqual(bodies.hold);
    client.close();
    expect(upstream.seen).toHaveLength(2);
    expect(delays).toEqual([1000]);
  });
});

describe("payment and refund: retried; a duplicate is always thrown, the upstream's record decides", () => {
  it('payment: 503 then 200 -> the plain answer, same paymentId both times', async () => {
    const { client } = makeClient(upstream);
    upstream.script(unavailable503, json(200, bodies.payment));
    await expect(client.payment(paymentRequest)).resolves.toEqual(reads.payment);
    client.close();
    expect(upstream.seen.map((s) => JSON.parse(s.body).paymentId)).toEqual(['p-1', 'p-1']);
  });

  it('payment: connection dropped then 9004 -> thrown as duplicate_transaction (not taken as applied), read as a duplicate', async () => {
    const { client, lines } = makeClient(upstream);
    upstream.script(drop, duplicate);
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('duplicate_transaction');
    expect(failureOf(err)).toBe('duplicate');
    expect(upstream.seen).toHaveLength(2);
    expect(lines.some((l) => l.includes('already applied'))).toBe(false);
  });

  it('refund: timeout then 9004 -> thrown as duplicate_transaction, read as a duplicate', async () => {
    const { client } = makeClient(upstream, { timeoutMs: STALL_TIMEOUT_MS });
    upstream.script(stall, duplicate);
    const err = await failure(() => client.refund(refundRequest));
    client.close();
    expect(err.code).toBe('duplicate_transaction');
    expect(failureOf(err)).toBe('duplicate');
    expect(upstream.seen).toHaveLength(2);
  });

  it('payment: connection dropped then a 429 not waited for -> the 429 is thrown but reads as unknown (the first attempt may have landed)', async () => {
    const { client } = makeClient(upstream);
    upstream.script(drop, loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '60' }));
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('upstream_busy');
    expect(failureOf(err)).toBe('unknown');
    expect(upstream.seen).toHaveLength(2);
  });

  it('payment: a 429 not waited for on the first attempt reads as refused (nothing was applied)', async () => {
    const { client } = makeClient(upstream);
    upstream.script(loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '60' }));
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('upstream_busy');
    expect(failureOf(err)).toBe('refused');
  });

  it('payment: 503 then a refusal (4xx) -> the refusal reads as unknown (the 503 attempt may have landed)', async () => {
    const { client } = makeClient(upstream);
    upstream.script(unavailable503, loyaltyError(422, 9008, 'InsufficientPoints', 'no'));
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('insufficient_points');
    expect(failureOf(err)).toBe('unknown');
  });

  it('9004 on the first attempt is a real duplicate: ConflictError', async () => {
    const { client } = makeClient(upstream);
    upstream.script(duplicate);
    const err = await failure(() => client.payment(paymentRequest));
    expect(err.code).toBe('duplicate_transaction');
    expect(failureOf(err)).toBe('duplicate');
    client.close();
  });

  it('9004 after a 429 is a real duplicate too (the 429 attempt was never applied)', async () => {
    const { client } = makeClient(upstream);
    upstream.script(loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '0' }), duplicate);
    const err = await failure(() => client.payment(paymentRequest));
    expect(err.code).toBe('duplicate_transaction');
    expect(failureOf(err)).toBe('duplicate');
    client.close();
    expect(upstream.seen).toHaveLength(2);
  });

  it('a refusal after a 429 reads as refused (the 429 attempt was never applied)', async () => {
    const { client } = makeClient(upstream);
    upstream.script(loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '0' }), loyaltyError(422, 9008, 'InsufficientPoints', 'no'));
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('insufficient_points');
    expect(failureOf(err)).toBe('refused');
    expect(upstream.seen).toHaveLength(2);
  });

  it('generic call() never turns a duplicate into success', async () => {
    const { client } = makeClient(upstream);
    upstream.script(unavailable503, duplicate);
    expect((await failure(() => client.call('payment', { body: paymentRequest }))).code).toBe('duplicate_transaction');
    client.close();
  });
});

describe('nextDelayMs', () => {
  const tuning = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterSeconds: 5 };

  it('grows exponentially, capped, jittered within [step/2, step]', () => {
    const at = (attempt: number, r: number) => nextDelayMs(unavailable(), 'balance', attempt, tuning, () => r);
    expect([1, 2, 3, 4, 5].map((a) => at(a, 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((a) => at(a, 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(at(6, 0.5)).toBeNull();
  });

  it('retries only unavailable, timeout and rate limited', () => {
    expect(nextDelayMs(timedOut(100), 'hash', 1, tuning, () => 0)).toBe(50);
    expect(nextDelayMs(rateLimited(3), 'hash', 1, tuning, () => 0)).toBe(3000);
    expect(nextDelayMs(new ServiceUnavailableError('upstream_circuit_open', 'open'), 'hash', 1, tuning, () => 0)).toBeNull();
    expect(nextDelayMs(new Error('bug'), 'hash', 1, tuning, () => 0)).toBeNull();
  });

  it('marks exactly reads, payment, tracked order, redeem, refund and the customer upsert (get-or-create by id) as safe to resend', () => {
    const safe = (Object.keys(RETRY_SAFE) as OperationId[]).filter((k) => RETRY_SAFE[k]).sort();
    expect(safe).toEqual([
      'balance',
      'batchStatus',
      'coupons',
      'hash',
      'holdLookup',
      'orderTransactions',
      'payment',
      'redeem',
      'redemptionConfig',
      'refund',
      'rewardPreview',
      'tierProgress',
      'trackOrder',
      'transactions',
      'upsertCustomer',
    ]);
  });
});

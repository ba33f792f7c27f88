import { failureOf, nothingSent, upstreamFailureKind } from '../../src/upstream';
import { bodies, eventRequest, paymentRequest } from './fixtures';
import { API_KEY, failure, json, loyaltyError, makeClient, SECRET_KEY, stall, STALL_TIMEOUT_MS, useTestUpstream } from './test-upstream';

/**
 * The loyalty keys over real HTTP against a scripted upstream: a key failure
 * (codes 1000-1002 only) is a definite refusal, the next key pair is tried
 * once and kept when accepted, and what the client believes of each slot
 * follows the answers.
 */
const upstream = useTestUpstream();
const NEXT_SECRET = 'next-secret-key-4b8c0d';
const next = { nextKeys: { apiKey: API_KEY, secretKey: NEXT_SECRET } };
const refused = (code = 1001, status = 401) => loyaltyError(status, code, 'SecretKeyRequired', 'The secretkey header is not valid');

describe('a key failure', () => {
  it.each([
    [401, 1000],
    [401, 1001],
    [403, 1002],
  ])('%i/%i: a definite refusal (nothing sent again, queued like an outage), the current slot refused', async (status, code) => {
    const { client } = makeClient(upstream);
    upstream.script(refused(code, status));
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('loyalty_key_refused');
    expect(err.status).toBe(503);
    expect(err.loyaltyCode).toBe(code);
    expect(failureOf(err)).toBe('refused');
    expect(nothingSent(err)).toBe(true);
    // The outbox queues (src/pos/outbox/forward.ts shouldQueue) and retries these kinds uncounted.
    expect(upstreamFailureKind(err)).toBe('unavailable');
    expect(upstream.seen).toHaveLength(1);
    expect(client.keys.state('current').verdict).toBe('refused');
    expect(client.keys.refused()).toBe(true);
  });

  it.each([401, 403])('a %i without a published key code is not taken for a key failure', async (status) => {
    const { client } = makeClient(upstream, next);
    upstream.script(json(status, { error: 'proxy says no' }));
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('upstream_auth_failed');
    expect(client.keys.state('current').verdict).toBe('unknown');
    // Not a key failure: the next key is not tried.
    expect(upstream.seen).toHaveLength(1);
  });

  it('after an attempt that may have landed (a timeout), the error stays unknown and the next key is not tried', async () => {
    const { client } = makeClient(upstream, { ...next, timeoutMs: STALL_TIMEOUT_MS });
    upstream.script(stall, refused());
    const err = await failure(() => client.payment(paymentRequest));
    client.close();
    expect(err.code).toBe('loyalty_key_refused');
    expect(failureOf(err)).toBe('unknown');
    expect(upstream.seen).toHaveLength(2);
    expect(upstream.seen.every((s) => s.headers.secretkey === SECRET_KEY)).toBe(true);
  });

  it('a 2xx marks the key accepted again', async () => {
    const { client } = makeClient(upstream);
    upstream.script(refused(), json(200, bodies.payment));
    await failure(() => client.payment(paymentRequest));
    expect(client.keys.refused()).toBe(true);
    await client.payment(paymentRequest);
    client.close();
    expect(client.keys.state('current').verdict).toBe('ok');
    expect(client.keys.refused()).toBe(false);
  });

  it('an answer to a call without the secret key (events) does not show the secret key accepted', async () => {
    const { client } = makeClient(upstream);
    upstream.script(refused(), json(200, bodies.events));
    await failure(() => client.payment(paymentRequest));
    await client.events(eventRequest);
    client.close();
    expect(client.keys.state('current').verdict).toBe('refused');
  });
});

describe('rotation: the next key pair', () => {
  it('is tried once on a key failure of the current one, then used from then on, its slot logged once and no key', async () => {
    const { client, lines } = makeClient(upstream, next);
    upstream.script(refused(), json(200, bodies.payment), json(200, bodies.payment));
    await expect(client.payment(paymentRequest)).resolves.toMatchObject({ rewardedPoints: 12 });
    await client.payment(paymentRequest);
    client.close();
    expect(upstream.seen.map((s) => s.headers.secretkey)).toEqual([SECRET_KEY, NEXT_SECRET, NEXT_SECRET]);
    expect(client.keys.active()).toBe('next');
    expect(client.keys.state('next').verdict).toBe('ok');
    const switched = lines.map((l) => JSON.parse(l)).filter((l) => /now use the next key slot/.test(l.msg));
    expect(switched).toHaveLength(1);
    expect(switched[0].slot).toBe('next');
    const text = lines.join('\n');
    expect(text).not.toContain(NEXT_SECRET);
    expect(text).not.toContain(SECRET_KEY);
  });

  it('when both are refused each call is refused after one send per slot (the next key may start working at any time)', async () => {
    const { client } = makeClient(upstream, next);
    upstream.script(refused(), refused(), refused(), json(200, bodies.payment));
    const err = await failure(() => client.payment(paymentRequest));
    expect(err.code).toBe('loyalty_key_refused');
    expect(failureOf(err)).toBe('refused');
    expect(upstream.seen).toHaveLength(2);
    expect(client.keys.refused()).toBe(true);
    // Rotated in the dashboard: the known-refused next key is tried again, and taken.
    await client.payment(paymentRequest);
    client.close();
    expect(upstream.seen.map((s) => s.headers.secretkey)).toEqual([SECRET_KEY, NEXT_SECRET, SECRET_KEY, NEXT_SECRET]);
    expect(client.keys.active()).toBe('next');
  });

  it('a pinned slot (the key check) is never swapped', async () => {
    const { client } = makeClient(upstream, next);
    upstream.script(refused());
    const err = await failure(() => client.balance('c-1', { keySlot: 'current' }));
    client.close();
    expect(err.code).toBe('loyalty_key_refused');
    expect(upstream.seen).toHaveLength(1);
  });
});

import { AddressInfo, createServer } from 'node:net';
import { ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError, UpstreamError } from '../../src/platform/errors';
import { certainlyNotDelivered, upstreamFailureKind } from '../../src/upstream';
import { bodies, holdRequest, refundRequest } from './fixtures';
import { drop, failure, json, loyaltyError, makeClient, stall, useTestUpstream } from './test-upstream';

const upstream = useTestUpstream();

/** A client that does not retry, so each test sees one exchange. */
function once(overrides = {}) {
  return makeClient(upstream, { retries: 0, ...overrides });
}

describe('answers that are not what the contract says', () => {
  it.each([
    ['a body of the wrong shape', json(200, { customerId: 'c-1', totalPointsBalance: 'lots' })],
    ['a body that is not JSON', (res: import('node:http').ServerResponse) => res.end('<html>ok</html>')],
    ['an empty body', (res: import('node:http').ServerResponse) => res.end()],
    ['a 4xx without a v4.0 error body', json(404, '<h1>Not Found</h1>')],
  ])('%s is a 502 upstream_invalid_response, not a crash', async (_what, answer) => {
    const { client, lines } = once();
    upstream.script(answer);
    const err = await failure(() => client.balance('c-1'));
    client.close();
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.status).toBe(502);
    expect(err.code).toBe('upstream_invalid_response');
    expect(upstreamFailureKind(err)).toBe('invalid_response');
    expect(lines.some((l) => l.includes('"outcome":"invalid_response"'))).toBe(true);
  });

  it('does not follow a redirect (the keys must not go elsewhere)', async () => {
    const { client, lines } = once();
    upstream.script(json(302, {}, { Location: `${upstream.baseUrl}/elsewhere` }));
    const err = await failure(() => client.hash('c-1'));
    client.close();
    expect(err.code).toBe('upstream_invalid_response');
    expect(upstream.seen.map((s) => s.url)).toEqual(['/api/v4.0/integrations/customers/c-1/hash']);
    expect(lines.some((l) => l.includes('redirect'))).toBe(true);
  });

  it('refuses an answer larger than maxResponseBytes', async () => {
    const { client } = once({ maxResponseBytes: 1024 });
    upstream.script(json(200, { hash: 'x'.repeat(5000) }));
    const err = await failure(() => client.hash('c-1'));
    client.close();
    expect(err.code).toBe('upstream_invalid_response');
  });
});

describe('no answer', () => {
  it('a slow answer is a 503 upstream_timeout after timeoutMs', async () => {
    const { client } = once({ timeoutMs: 150 });
    upstream.script(stall);
    const started = Date.now();
    const err = await failure(() => client.balance('c-1'));
    client.close();
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.code).toBe('upstream_timeout');
    expect(upstreamFailureKind(err)).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a body that trickles past timeoutMs is a timeout too (wall clock, not idle time)', async () => {
    const { client } = once({ timeoutMs: 200 });
    upstream.script((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"hash":');
      const t = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(t));
    });
    const err = await failure(() => client.hash('c-1'));
    client.close();
    expect(err.code).toBe('upstream_timeout');
  });

  it('a dropped connection is a 503 upstream_unavailable whose delivery is unknown', async () => {
    const { client } = once();
    upstream.script(drop);
    const err = await failure(() => client.hold(holdRequest));
    client.close();
    expect(err.code).toBe('upstream_unavailable');
    expect(err.status).toBe(503);
    expect(certainlyNotDelivered(err)).toBe(false);
  });

  it('a refused connection is upstream_unavailable and known not delivered', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { client } = makeClient(upstream, { baseUrl: `http://127.0.0.1:${port}`, retries: 0 });
    const err = await failure(() => client.balance('c-1'));
    client.close();
    expect(err.code).toBe('upstream_unavailable');
    expect(certainlyNotDelivered(err)).toBe(true);
  });

  it('an aborted call stops at once and is not an upstream failure', async () => {
    const { client } = once({ timeoutMs: 5000 });
    upstream.script(stall);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await failure(() => client.balance('c-1', { signal: ac.signal }));
    client.close();
    expect(err.code).toBe('upstream_call_aborted');
    expect(upstreamFailureKind(err)).toBeNull();
  });
});

describe('429', () => {
  it('is a 503 upstream_busy with Retry-After in seconds', async () => {
    const { client } = once();
    upstream.script(loyaltyError(429, 429, 'RateLimited', 'slow down', { 'Retry-After': '7' }));
    const err = await failure(() => client.coupons('c-1'));
    client.close();
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.code).toBe('upstream_busy');
    expect(err.retryAfterSeconds).toBe(7);
    expect(upstreamFailureKind(err)).toBe('rate_limited');
  });

  it('reads Retry-After as an HTTP date, against the injected clock', async () => {
    const now = Date.parse('2025-03-01T10:00:00Z');
    const { client } = once({ now: () => now });
    upstream.script(json(429, 'too many', { 'Retry-After': 'Sat, 01 Mar 2025 10:00:30 GMT' }));
    const err = await failure(() => client.coupons('c-1'));
    client.close();
    expect(err.code).toBe('upstream_busy');
    expect(err.retryAfterSeconds).toBe(30);
  });
});

describe('v4.0 error codes over HTTP', () => {
  it.each([
    [422, 9008, 'InsufficientPoints', UnprocessableError, 'insufficient_points'],
    [404, 9006, 'HoldReferenceNotFound', ConflictError, 'hold_not_active'],
    [422, 9004, 'DuplicateTransaction', ConflictError, 'duplicate_transaction'],
    [404, 7000, 'CustomerNotFound', NotFoundError, 'customer_not_found'],
    [404, 9005, 'ReversedTransactionNotFound', NotFoundError, 'original_transaction_not_found'],
    [422, 9001, 'AlreadyCancelled', ConflictError, 'hold_already_cancelled'],
    [400, 3000, 'MissingField', UnprocessableError, 'upstream_rejected'],
    [422, 3003, 'InvalidValue', UnprocessableError, 'upstream_rejected'],
    [400, 3016, 'InvalidPayload', UnprocessableError, 'upstream_rejected'],
    [422, 3003, 'OTPInvalid', UnprocessableError, 'otp_invalid'],
    [422, 3003, 'HashInvalid', UnprocessableError, 'hash_invalid'],
    // The published key codes: the keys were refused, nothing was done (src/upstream/keys.ts).
    [401, 1000, 'ApiKeyInvalid', ServiceUnavailableError, 'loyalty_key_refused'],
    [401, 1001, 'SecretKeyRequired', ServiceUnavailableError, 'loyalty_key_refused'],
    [403, 1002, 'Forbidden', ServiceUnavailableError, 'loyalty_key_refused'],
    [500, 5000, 'InternalError', ServiceUnavailableError, 'upstream_unavailable'],
  ])('%i/%i (%s) -> %p %s, loyaltyCode kept, upstream message not', async (status, code, type, cls, ours) => {
    const { client } = once();
    upstream.script(loyaltyError(status, code, type, 'UPSTREAM-TEXT-7f3 do not show'));
    const err = await failure(() => client.refund(refundRequest));
    client.close();
    expect(err).toBeInstanceOf(cls);
    expect(err.code).toBe(ours);
    if (code !== 5000) expect(err.loyaltyCode).toBe(code);
    expect(JSON.stringify(err) + err.message).not.toContain('UPSTREAM-TEXT-7f3');
    expect(JSON.stringify(err)).not.toContain(type);
  });

  it('logs an auth failure loudly, at error level', async () => {
    const { client, lines } = once();
    upstream.script(loyaltyError(401, 1001, 'SecretKeyRequired', 'secret key missing'));
    await failure(() => client.hash('c-1'));
    client.close();
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.level === 50);
    expect(line?.msg).toMatch(/LOYALTY_SECRET_KEY/);
    expect(line?.upstreamCode).toBe(1001);
  });

  it("keeps the answer body out of the till's error even when valid JSON of another shape", async () => {
    const { client } = once();
    upstream.script(json(400, { error: 'UPSTREAM-TEXT-7f3', code: 'weird' }));
    const err = await failure(() => client.hash('c-1'));
    client.close();
    expect(err.code).toBe('upstream_invalid_response');
    expect(JSON.stringify(err) + err.message).not.toContain('UPSTREAM-TEXT-7f3');
  });

  it('accepts a good answer after a bad one on the same client', async () => {
    const { client } = once();
    upstream.script(json(200, { nope: 1 }), json(200, bodies.hash));
    await failure(() => client.hash('c-1'));
    await expect(client.hash('c-1')).resolves.toEqual(bodies.hash);
    client.close();
  });
});

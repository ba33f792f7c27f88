import Redis from 'ioredis';
import { Stack, startStack } from '../support/e2e';
import { rawClient, RawResponse } from './support/raw-http';

/**
 * The brakes on a hostile or runaway caller, over real HTTP: requests per
 * terminal per minute (shared through Redis by every instance), failed
 * authentications per credential (per address without one), open redemptions per terminal, body
 * size and header count/size.
 */
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const problem = (res: RawResponse) => res.json as { code: string; detail: string; status: number; retryAfterSeconds?: number };

function expectRetryAfter(res: RawResponse) {
  const seconds = Number(res.headers['retry-after']);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

describe('per-terminal rate limit and auth-failure limit (Redis, two instances)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, env: { TERMINAL_RATE_LIMIT_PER_MINUTE: '4', AUTH_FAILURE_LIMIT_PER_MINUTE: '3' } });
    await s.seed('rl-alice', 100);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('counts one terminal across instances; the fifth request in the minute is 429 rate_limited with Retry-After', async () => {
    const a = rawClient(s.bffs[0].url);
    const b = rawClient(s.bffs[1].url);
    const get = (c: typeof a) => c.send({ method: 'GET', path: '/pos/v1/customers/rl-alice', headers: bearer(s.tokens.cashier) });
    const answers = [await get(a), await get(b), await get(a), await get(b)];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['3', '2', '1', '0']);
    const refused = await get(a);
    expect(refused.status).toBe(429);
    expect(problem(refused)).toMatchObject({ code: 'rate_limited', status: 429, limitPerMinute: 4 });
    expect(problem(refused).detail).toContain('more than 4 requests in a minute');
    expectRetryAfter(refused);
    expect((await get(b)).status).toBe(429);
    // Another terminal has its own budget.
    expect((await a.send({ method: 'GET', path: '/pos/v1/customers/rl-alice', headers: bearer(s.tokens.manager) })).status).toBe(200);
    // The counter is in Redis, under the BFF's key prefix.
    const redis = new Redis(process.env.TEST_REDIS_URL as string);
    expect(Number(await redis.get(`${s.redisPrefix}rl:terminal:${s.terminalIds.cashier}`))).toBeGreaterThanOrEqual(5);
    redis.disconnect();
    a.close();
    b.close();
  });

  it('refuses a credential with too many failed authentications (429, before it is checked), logged with the address, never the token', async () => {
    const a = rawClient(s.bffs[0].url);
    const b = rawClient(s.bffs[1].url);
    const wrong = `pt_${'w'.repeat(43)}`;
    // The same wrong token on either instance counts towards one fleet-wide limit.
    const tries = [
      await a.send({ method: 'GET', path: '/pos/v1/customers/rl-alice', headers: bearer(wrong) }),
      await b.send({ method: 'GET', path: '/pos/v1/customers/rl-alice', headers: bearer(wrong) }),
      await a.send({ method: 'GET', path: '/pos/v1/customers/rl-alice', headers: bearer(wrong) }),
    ];
    expect(tries.map((r) => r.status)).toEqual([401, 401, 401]);
    const blocked = await b.send({ method: 'GET', path: '/pos/v1/customers/rl-alice', headers: bearer(wrong) });
    expect(blocked.status).toBe(429);
    expect(problem(blocked).code).toBe('too_many_auth_failures');
    expect(problem(blocked).detail).toContain('with these credentials');
    expectRetryAfter(blocked);
    // A good token from the same address is not affected, on either instance.
    expect((await a.send({ method: 'GET', path: '/pos/v1/customers/rl-alice/hash', headers: bearer(s.tokens.kiosk) })).status).toBe(200);
    // Without credentials the address is what is counted.
    const revoked = await b.send({ method: 'GET', path: '/pos/v1/customers/rl-alice', headers: bearer(s.tokens.revoked) });
    expect(revoked.status).toBe(401);
    const bare = [];
    for (let i = 0; i < 4; i++) bare.push((await a.send({ method: 'GET', path: '/pos/v1/customers/rl-alice' })).status);
    expect(bare).toEqual([401, 401, 401, 429]);

    const failures = s.logs.filter((l) => l.includes('terminal authentication failed')).map((l) => JSON.parse(l));
    expect(failures.length).toBeGreaterThanOrEqual(3);
    for (const f of failures) expect(f.remoteAddress).toMatch(/127\.0\.0\.1$/);
    expect(failures.map((f) => f.reason)).toEqual(expect.arrayContaining(['unknown_token', 'revoked', 'missing_token']));
    expect(s.logs.some((l) => l.includes('terminal authentication refused') && l.includes('too_many_auth_failures'))).toBe(true);
    for (const t of [wrong, ...Object.values(s.tokens)]) expect(s.logs.join('\n')).not.toContain(t);
    for (const c of [a, b]) c.close();
  });
});

describe.each(['memory', 'redis'] as const)('open redemptions per terminal (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, env: { MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '2', TERMINAL_RATE_LIMIT_PER_MINUTE: '0' } });
    await s.seed('cap-alice', 1000);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses a third open redemption with 409 too_many_open_redemptions without touching the points; ending one frees a place', async () => {
    const start = (role: 'cashier' | 'manager' = 'cashier') => s.pos(role).post('/redemptions', { customerId: 'cap-alice', points: 10 });
    const first = await start().expect(201);
    const second = await start().expect(201);
    const before = await s.balance('cap-alice');
    const third = await start().expect(409);
    expect(third.body).toMatchObject({ code: 'too_many_open_redemptions', limit: 2, openRedemptions: 2 });
    expect(await s.balance('cap-alice')).toEqual(before);
    // Another terminal of the same store has its own cap.
    await start('manager').expect(201);

    await s.pos('cashier').post(`/redemptions/${first.body.id}/void`).expect(200);
    const again = await start().expect(201);
    await s
      .pos('cashier')
      .post('/payments', { customerId: 'cap-alice', paymentId: `cap-sale-${store}`, totalPaid: 10, redemptionId: second.body.id })
      .expect(201);
    await start().expect(201);
    await start().expect(409);
    // Past the hold period every open hold has expired: places free again.
    await s.advance(11 * 60_000);
    await start().expect(201);
    expect(again.body.state).toBe('held');
  });
});

describe('bounded bodies and headers', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { BODY_LIMIT_BYTES: '1024', MAX_HEADER_COUNT: '20', MAX_HEADER_BYTES: '4096' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers a body over BODY_LIMIT_BYTES with 413 payload_too_large (and an unauthenticated one with 401, unread)', async () => {
    const c = rawClient(s.bff.url);
    const body = JSON.stringify({ customerId: 'x', events: { big: { note: 'n'.repeat(2000) } } });
    const big = await c.send({ method: 'POST', path: '/pos/v1/events', headers: { ...bearer(s.tokens.kiosk), 'Content-Type': 'application/json' }, body });
    expect(big.status).toBe(413);
    expect(problem(big)).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(problem(big).detail).toContain('1024 bytes');
    const anonymous = await c.send({ method: 'POST', path: '/pos/v1/events', headers: { 'Content-Type': 'application/json' }, body });
    expect(anonymous.status).toBe(401);
    c.close();
  });

  it('answers more than MAX_HEADER_COUNT headers with 431 too_many_headers', async () => {
    const c = rawClient(s.bff.url);
    const extra = (k: number) => Object.fromEntries(Array.from({ length: k }, (_, i) => [`x-extra-${i}`, 'v']));
    // Host, Connection and Authorization come on top of the extras.
    const fine = await c.send({ method: 'GET', path: '/pos/v1/customers/nobody/hash', headers: { ...bearer(s.tokens.kiosk), ...extra(15) } });
    expect(fine.status).toBe(404);
    const many = await c.send({ method: 'GET', path: '/pos/v1/customers/nobody/hash', headers: { ...bearer(s.tokens.kiosk), ...extra(30) } });
    expect(many.status).toBe(431);
    expect(problem(many)).toMatchObject({ code: 'too_many_headers', status: 431 });
    expect(many.headers['content-type']).toMatch(/^application\/problem\+json/);
    c.close();
  });

  it('answers headers over MAX_HEADER_BYTES with 431 headers_too_large, and keeps serving', async () => {
    const c = rawClient(s.bff.url);
    const huge = await c.send({ method: 'GET', path: '/pos/v1/customers/nobody/hash', headers: { ...bearer(s.tokens.kiosk), 'x-padding': 'p'.repeat(6000) } });
    expect(huge.status).toBe(431);
    expect(huge.headers['content-type']).toBe('application/problem+json');
    expect(problem(huge)).toMatchObject({ code: 'headers_too_large', status: 431 });
    const fresh = rawClient(s.bff.url);
    expect((await fresh.send({ method: 'GET', path: '/healthz' })).status).toBe(200);
    fresh.close();
    c.close();
  });
});

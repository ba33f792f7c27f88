import Redis from 'ioredis';
import { startStack, Stack } from '../support/e2e';
import { rawClient } from './support/raw-http';

/**
 * A store behind one NAT: every till reaches the BFF from one address. One
 * till retrying with an old token (or a broken header) locks out only what it
 * presents; the till next to it, with a valid token, never waits. Requests
 * with no credentials at all are still counted per address.
 */
describe('two tills behind one address, one with a bad token (Redis, two instances)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '5', TERMINAL_RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const path = '/pos/v1/redemptions/rdm_nothinghere1';
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  it('the bad till is refused 429 after the limit; the good till keeps working throughout, on both instances', async () => {
    const bad = rawClient(s.bffs[0].url);
    const good = rawClient(s.bffs[1].url);
    const old = `pos_${'o'.repeat(43)}`; // an old token, deleted from the terminals file long ago
    const badStatuses: number[] = [];
    const goodStatuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      badStatuses.push((await bad.send({ method: 'GET', path, headers: bearer(old) })).status);
      goodStatuses.push((await good.send({ method: 'GET', path, headers: bearer(s.tokens.cashier) })).status);
    }
    expect(badStatuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    // 404: authenticated, there is just no such redemption. Never a 429 for the good till.
    expect(goodStatuses).toEqual(Array(12).fill(404));
    // The good till on the first instance too, where the bad till failed.
    expect((await bad.send({ method: 'GET', path, headers: bearer(s.tokens.manager) })).status).toBe(404);

    const refused = await bad.send({ method: 'GET', path, headers: bearer(old) });
    expect(refused.status).toBe(429);
    expect((refused.json as { code: string }).code).toBe('too_many_auth_failures');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // A revoked till is limited the same way, on its own.
    for (let i = 0; i < 5; i++) expect((await good.send({ method: 'GET', path, headers: bearer(s.tokens.revoked) })).status).toBe(401);
    expect((await good.send({ method: 'GET', path, headers: bearer(s.tokens.revoked) })).status).toBe(429);
    expect((await good.send({ method: 'GET', path, headers: bearer(s.tokens.otherCashier) })).status).toBe(404);
    bad.close();
    good.close();
  });

  it('counts requests with no credentials per address: that address is refused without them, never with a valid token', async () => {
    const noise = rawClient(s.bffs[0].url, { localAddress: '127.0.0.3' });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await noise.send({ method: 'GET', path })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect((await noise.send({ method: 'GET', path, headers: bearer(s.tokens.cashier) })).status).toBe(404);
    // Another bad credential from that address has its own count: a 401, not a 429.
    expect((await noise.send({ method: 'GET', path, headers: { Authorization: 'Token nope' } })).status).toBe(401);
    noise.close();
  });

  it('bounds guessing with a new token each time per address (ten times the limit), never refusing a valid token from it', async () => {
    const guesser = rawClient(s.bffs[0].url, { localAddress: '127.0.0.4' });
    const statuses: number[] = [];
    for (let i = 0; i < 52; i++) statuses.push((await guesser.send({ method: 'GET', path, headers: bearer(`pos_${String(i).padStart(43, 'g')}`) })).status);
    // Each guess is a new credential: its own count never trips; the address's does, after 10 x 5 failures.
    expect(statuses.slice(0, 49).every((st) => st === 401)).toBe(true);
    expect(statuses.slice(50)).toEqual([429, 429]);
    expect((await guesser.send({ method: 'GET', path, headers: bearer(s.tokens.cashier) })).status).toBe(404);
    guesser.close();
  });

  it('keeps tokens out of the limiter keys and the log; the log tells the failing credential apart by a short digest', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL as string);
    const keys = await redis.keys(`${s.redisPrefix}rl:auth-failures*`);
    redis.disconnect();
    expect(keys.some((k) => /credential:[0-9a-f]{40}$/.test(k))).toBe(true);
    expect(keys.some((k) => k.endsWith('address:127.0.0.3') || k.endsWith('address:::ffff:127.0.0.3'))).toBe(true);
    const all = [...keys, ...s.logs].join('\n');
    for (const t of [`pos_${'o'.repeat(43)}`, ...Object.values(s.tokens)]) expect(all).not.toContain(t);
    const failed = s.logs.filter((l) => l.includes('terminal authentication failed')).map((l) => JSON.parse(l) as { credential?: string; reason: string });
    const digests = new Set(failed.filter((f) => f.reason === 'unknown_token').map((f) => f.credential));
    expect([...digests].every((d) => /^[0-9a-f]{12}$/.test(d ?? ''))).toBe(true);
    expect(failed.filter((f) => f.reason === 'missing_token').every((f) => f.credential === undefined)).toBe(true);
  });
});

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../../src/platform/logger';
import { connectRedis, waitForRedis } from '../../../src/platform/redis';
import { certainlyNotDelivered } from '../../../src/upstream';
import { MemoryRateLimiter, RateLimits, rateLimitPolicy, RedisRateLimiter } from '../../../src/upstream/policies';
import { bodies } from '../fixtures';
import { captureLogger, failure, json, makeClient, useTestUpstream } from '../test-upstream';

const limits = (n: number): RateLimits => ({ transactions: n, coupons: n, orders: n, customers: n, events: n });

describe('MemoryRateLimiter (injected clock)', () => {
  it('hands out slots 1/limit s apart, up to the wait cap, and refuses beyond without taking a slot', async () => {
    let now = 5_000;
    const rl = new MemoryRateLimiter(limits(10), () => now);
    const got = [];
    for (let i = 0; i < 4; i++) got.push(await rl.reserve('transactions', 250));
    expect(got).toEqual([
      { ok: true, waitMs: 0 },
      { ok: true, waitMs: 100 },
      { ok: true, waitMs: 200 },
      { ok: false, retryAfterMs: 50 },
    ]);
    // The refusal took no slot: 100 ms later the next slot (at +300) is 200 ms away.
    now += 100;
    expect(await rl.reserve('transactions', 250)).toEqual({ ok: true, waitMs: 200 });
    // Groups are separate; an idle group starts at once.
    expect(await rl.reserve('customers', 0)).toEqual({ ok: true, waitMs: 0 });
    now += 10_000;
    expect(await rl.reserve('transactions', 0)).toEqual({ ok: true, waitMs: 0 });
  });

  it('0 means no limit', async () => {
    const rl = new MemoryRateLimiter({ ...limits(1), events: 0 });
    for (let i = 0; i < 100; i++) expect(await rl.reserve('events', 0)).toEqual({ ok: true, waitMs: 0 });
  });
});

describe('RedisRateLimiter (real Redis, shared by instances)', () => {
  const prefix = `test:rl:${randomUUID().slice(0, 8)}:`;
  const clients: Redis[] = [];
  const connect = async () => {
    const r = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
    await waitForRedis(r, 5000);
    clients.push(r);
    return r;
  };
  afterAll(async () => {
    const keys = await clients[0].keys(`${prefix}*`);
    if (keys.length) await clients[0].del(...keys);
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  });

  it('two instances share one schedule: 40 calls at 20/s within a 950 ms cap get exactly 20 slots, 50 ms apart', async () => {
    const a = new RedisRateLimiter(await connect(), { prefix, limits: limits(20), logger: silentLogger });
    const b = new RedisRateLimiter(await connect(), { prefix, limits: limits(20), logger: silentLogger });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).reserve('orders', 950)));
    const waits = results
      .filter((r) => r.ok)
      .map((r) => (r as { waitMs: number }).waitMs)
      .sort((x, y) => x - y);
    expect(waits).toHaveLength(20);
    expect(waits[0]).toBeLessThan(20);
    for (let i = 1; i < waits.length; i++) expect(waits[i] - waits[i - 1]).toBeGreaterThan(40);
    const refused = results.filter((r) => !r.ok) as { retryAfterMs: number }[];
    expect(refused).toHaveLength(20);
    for (const r of refused) expect(r.retryAfterMs).toBeGreaterThan(0);
    expect(await clients[0].pttl(`${prefix}ratelimit:orders`)).toBeGreaterThan(0);
  });

  it('falls back to a per-instance schedule when Redis is unreachable, and says so once', async () => {
    const r = await connect();
    const { logger, lines } = captureLogger();
    const rl = new RedisRateLimiter(r, { prefix, limits: limits(10), logger });
    r.disconnect();
    expect(await rl.reserve('coupons', 0)).toEqual({ ok: true, waitMs: 0 });
    expect(await rl.reserve('coupons', 0)).toMatchObject({ ok: false });
    expect(lines.filter((l) => l.includes('cannot reach Redis'))).toHaveLength(1);
  });
});

describe('rateLimitPolicy on the client', () => {
  const upstream = useTestUpstream();

  it('waits for the slot, then sends', async () => {
    const now = 0;
    const slept: number[] = [];
    const limiter = new MemoryRateLimiter(limits(4), () => now);
    const policy = rateLimitPolicy(limiter, {
      maxWaitMs: 1000,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    const { client } = makeClient(upstream, { retries: 0, policies: [policy] });
    upstream.always(json(200, bodies.balance));
    await client.balance('c-1');
    await client.balance('c-1');
    await client.balance('c-1');
    expect(slept).toEqual([250, 500]);
    expect(upstream.seen).toHaveLength(3);
    client.close();
  });

  it('over the cap: refused as upstream_rate_limited with Retry-After, nothing sent, then retried by the client when the slot is near', async () => {
    const limiter = new MemoryRateLimiter(limits(1), () => 0);
    const policy = rateLimitPolicy(limiter, { maxWaitMs: 0 });
    const { client, delays } = makeClient(upstream, { retries: 1, policies: [policy] });
    upstream.always(json(200, bodies.balance));
    await client.balance('c-1');
    const err = await failure(() => client.balance('c-1'));
    expect(err.code).toBe('upstream_rate_limited');
    expect(err.status).toBe(503);
    expect(err.retryAfterSeconds).toBe(1);
    expect(certainlyNotDelivered(err)).toBe(true);
    // One retry after the slot's time, refused again (the injected clock does not move).
    expect(delays).toEqual([1000]);
    expect(upstream.seen).toHaveLength(1);
    client.close();
  });
});

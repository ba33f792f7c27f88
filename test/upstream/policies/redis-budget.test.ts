import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../../src/platform/logger';
import { connectRedis, waitForRedis } from '../../../src/platform/redis';
import type { CallPriority } from '../../../src/upstream';
import { RedisBudget, type BudgetRules, type Reservation } from '../../../src/upstream/policies';
import { captureLogger } from '../test-upstream';
import { rules } from './budget-rules';

/**
 * The fleet's budget on the test run's real Redis: two instances (two
 * connections) reserving from the same keys, on Redis' own clock.
 */
const prefix = `test:budget:${randomUUID().slice(0, 8)}:`;
const clients: Redis[] = [];
const connect = async () => {
  const r = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
  await waitForRedis(r, 5000);
  clients.push(r);
  return r;
};
/** Two instances of one fleet: their own connections, one key prefix. */
const fleet = async (r: BudgetRules, p = `${prefix}${randomUUID().slice(0, 6)}:`) => [
  new RedisBudget(await connect(), { prefix: p, rules: r, logger: silentLogger }),
  new RedisBudget(await connect(), { prefix: p, rules: r, logger: silentLogger }),
];
const oks = (rs: Reservation[]) => rs.filter((r) => r.ok).length;

afterAll(async () => {
  const keys = await clients[0].keys(`${prefix}*`);
  if (keys.length) await clients[0].del(...keys);
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
});

describe('RedisBudget (real Redis, two instances)', () => {
  it('share one quota: 30 calls from both get exactly the quota, the rest are told when the window frees', async () => {
    const [a, b] = await fleet(rules({ rate: 0, quota: 12 }, { reserves: [0, 0] }));
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).reserve('transactionsWrite', 'cashier')));
    expect(oks(results)).toBe(12);
    for (const r of results.filter((x) => !x.ok) as { retryAfterMs: number }[]) {
      expect(r.retryAfterMs).toBeGreaterThan(29_000);
      expect(r.retryAfterMs).toBeLessThanOrEqual(30_000);
    }
    // The log expires with the window; nothing is left behind for good.
    const [log] = await clients[0].keys(`${prefix}*{budget:transactionsWrite}:log`);
    expect(await clients[0].pttl(log)).toBeGreaterThan(29_000);
  });

  it('room: one instance sees the slots the other took, and asking takes nothing', async () => {
    const [a, b] = await fleet(rules({ rate: 0, quota: 10 }));
    for (let i = 0; i < 9; i++) expect(await (i % 2 ? a : b).reserve('orders', 'cashier')).toMatchObject({ ok: true });
    // The cashier's 9 of 10 are taken (by both): no room for a cashier's call on either, room for a second leg.
    expect(await a.room('orders', 'cashier')).toMatchObject({ ok: false });
    expect(await b.room('orders', 'cashier')).toMatchObject({ ok: false });
    for (let i = 0; i < 3; i++) expect(await b.room('orders', 'secondLeg')).toMatchObject({ ok: true });
    // Those asks took nothing: exactly one second-leg slot is left.
    expect(await a.reserve('orders', 'secondLeg')).toMatchObject({ ok: true });
    expect(await b.reserve('orders', 'secondLeg', 0)).toMatchObject({ ok: false });
  });

  it('share one schedule: 40 calls at 20/s within a 950 ms wait get exactly 20 slots, 50 ms apart', async () => {
    const [a, b] = await fleet(rules({ rate: 20, quota: 0 }, { waits: [950, 950, 950] }));
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).reserve('orders', 'cashier')));
    const waits = results
      .filter((r) => r.ok)
      .map((r) => (r as { waitMs: number }).waitMs)
      .sort((x, y) => x - y);
    expect(waits).toHaveLength(20);
    expect(waits[0]).toBeLessThan(20);
    for (let i = 1; i < waits.length; i++) expect(waits[i] - waits[i - 1]).toBeGreaterThan(40);
  });

  it('keep the priorities across instances: background starves first, then cashiers, second legs last', async () => {
    const [a, b] = await fleet(rules({ rate: 0, quota: 10 }, { reserves: [10, 30] }));
    const take = async (budget: RedisBudget, p: CallPriority, n: number) =>
      oks(await Promise.all(Array.from({ length: n }, () => budget.reserve('coupons', p))));
    expect(await take(a, 'background', 10)).toBe(7);
    expect(await take(b, 'background', 3)).toBe(0);
    expect(await take(b, 'cashier', 5)).toBe(2);
    expect(await take(a, 'cashier', 1)).toBe(0);
    expect(await take(a, 'secondLeg', 3)).toBe(1);
  });

  it('slide the window on Redis time: a slot frees when the oldest call leaves it, not the whole window', async () => {
    const [a, b] = await fleet(rules({ rate: 0, quota: 3 }, { windowMs: 1500, reserves: [0, 0], waits: [0, 0, 0] }));
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    expect(await a.reserve('events', 'cashier')).toMatchObject({ ok: true });
    await sleep(700);
    for (const budget of [b, a]) expect(await budget.reserve('events', 'cashier')).toMatchObject({ ok: true });
    const refused = (await b.reserve('events', 'cashier')) as { ok: false; retryAfterMs: number };
    expect(refused.ok).toBe(false);
    // The first call leaves the window 1500 ms after it was made: at most 800 ms from now.
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(800);
    await sleep(refused.retryAfterMs + 20);
    expect(await b.reserve('events', 'cashier')).toMatchObject({ ok: true });
    // One slot freed, not three: the two later calls are still in the window (for about 700 ms more).
    expect(await a.reserve('events', 'cashier')).toMatchObject({ ok: false });
  });

  it('a pause set by one instance holds the other, every priority, until it ends; a shorter one does not cut it', async () => {
    const [a, b] = await fleet(rules({ rate: 0, quota: 0 }));
    await a.pause('customersRead', 2000);
    await b.pause('customersRead', 100);
    const second = await b.reserve('customersRead', 'secondLeg');
    expect(second).toMatchObject({ ok: false });
    expect((second as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(1000);
    expect(await b.reserve('customersRead', 'background')).toMatchObject({ ok: false });
    expect(await b.reserve('customersWrite', 'background')).toEqual({ ok: true, waitMs: 0 });
    await new Promise((r) => setTimeout(r, 1200));
    // Under a second left: a second leg may wait it out (1000), a cashier may not (250).
    const waited = await b.reserve('customersRead', 'secondLeg');
    expect(waited).toMatchObject({ ok: true });
    expect((waited as { waitMs: number }).waitMs).toBeGreaterThan(0);
    expect(await a.reserve('customersRead', 'cashier')).toMatchObject({ ok: false });
  });

  it('a booking made in Redis and confirmed once Redis is away goes at its slot (said once); one made in the fallback is confirmed there', async () => {
    const r = await connect();
    const { logger, lines } = captureLogger();
    const budget = new RedisBudget(r, { prefix: `${prefix}away:`, rules: rules({ rate: 10, quota: 0 }, { waits: [1000, 1000, 50] }), logger });
    await budget.reserve('coupons', 'cashier');
    const booked = (await budget.reserve('coupons', 'cashier')) as { ok: true; waitMs: number; booking: string };
    expect(booked.booking).toBeDefined();
    r.disconnect();
    // Its slot is in the fleet's schedule, which cannot be read now: it keeps it rather than failing the till.
    expect(await budget.confirm('coupons', booked.booking)).toEqual({ ok: true, waitMs: 0 });
    const t0 = Date.now();
    await budget.reserve('coupons', 'cashier');
    const local = (await budget.reserve('coupons', 'cashier')) as { ok: true; waitMs: number; booking: string };
    expect(local.booking).toMatch(/^memory:/);
    // A second leg moves it back in the fallback's schedule (100 -> 200 ms): its confirm, not Redis', says so.
    await budget.reserve('coupons', 'secondLeg');
    const confirmed = (await budget.confirm('coupons', local.booking)) as { ok: true; waitMs: number };
    expect(confirmed.ok).toBe(true);
    expect(confirmed.waitMs).toBeGreaterThanOrEqual(200 - (Date.now() - t0));
    expect(lines.filter((l) => l.includes('cannot reach Redis'))).toHaveLength(1);
  });

  it('falls back to a budget per instance when Redis is unreachable, and says so once', async () => {
    const r = await connect();
    const { logger, lines } = captureLogger();
    const budget = new RedisBudget(r, { prefix, rules: rules({ rate: 10, quota: 0 }, { waits: [0, 0, 0] }), logger });
    r.disconnect();
    expect(await budget.reserve('coupons', 'cashier')).toEqual({ ok: true, waitMs: 0 });
    expect(await budget.reserve('coupons', 'cashier')).toMatchObject({ ok: false });
    await budget.pause('coupons', 1000);
    expect(lines.filter((l) => l.includes('cannot reach Redis'))).toHaveLength(1);
  });
});

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../../src/platform/logger';
import { connectRedis, waitForRedis } from '../../../src/platform/redis';
import { MemoryBudget, RedisBudget, type BudgetRules, type Reservation, type UpstreamBudget } from '../../../src/upstream/policies';
import { rules } from './budget-rules';

/**
 * Second legs first: a second leg takes the earliest slot a lower priority
 * booked ahead, and the displaced booking moves to the tail (or is refused
 * past its own wait). The same cases run on MemoryBudget (a clock that stands
 * still) and on two RedisBudget instances of one fleet (real Redis, Redis'
 * clock: the few ms the calls themselves take are allowed for).
 */
const clients: Redis[] = [];
const prefix = `test:budget-legs:${randomUUID().slice(0, 8)}:`;
afterAll(async () => {
  if (!clients.length) return;
  const keys = await clients[0].keys(`${prefix}*`);
  if (keys.length) await clients[0].del(...keys);
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
});

async function redisFleet(r: BudgetRules): Promise<[UpstreamBudget, UpstreamBudget]> {
  const p = `${prefix}${randomUUID().slice(0, 6)}:`;
  const one = async () => {
    const c = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
    await waitForRedis(c, 5000);
    clients.push(c);
    return new RedisBudget(c, { prefix: p, rules: r, logger: silentLogger });
  };
  return [await one(), await one()];
}

const kinds: [string, (r: BudgetRules) => Promise<[UpstreamBudget, UpstreamBudget]>, number][] = [
  [
    'memory',
    async (r) => {
      const b = new MemoryBudget(r, () => 1_000_000);
      return [b, b];
    },
    0,
  ],
  ['Redis, two instances', redisFleet, 60],
];
const wait = (r: Reservation) => (r.ok ? r.waitMs : NaN);

describe.each(kinds)('second legs first (%s)', (_kind, fleet, slack) => {
  it('with cashier calls booked ahead, a second leg takes the earliest of them (about one interval), that one moves to the tail', async () => {
    const [a, b] = await fleet(rules({ rate: 10, quota: 0 }, { waits: [2000, 1000, 50] }));
    const cashiers: Reservation[] = [];
    for (let i = 0; i < 5; i++) cashiers.push(await a.reserve('transactionsWrite', 'cashier'));
    [0, 100, 200, 300, 400].forEach((w, i) => {
      expect(wait(cashiers[i])).toBeGreaterThanOrEqual(w - slack);
      expect(wait(cashiers[i])).toBeLessThanOrEqual(w);
    });
    // The first goes now: nothing to confirm. The others carry a booking.
    expect(cashiers[0]).not.toHaveProperty('booking');
    expect(cashiers.slice(1).every((c) => c.ok && c.booking)).toBe(true);
    const leg = await b.reserve('transactionsWrite', 'secondLeg');
    // Not behind the queue (500 ms) but in the first booked slot after now.
    expect(leg.ok).toBe(true);
    expect(wait(leg)).toBeGreaterThanOrEqual(100 - slack);
    expect(wait(leg)).toBeLessThanOrEqual(100);
    expect(leg).not.toHaveProperty('booking');
    // The displaced cashier learns its new slot (where the second leg would have gone) when it confirms; the rest keep theirs.
    const confirmed = [];
    for (const c of cashiers.slice(1)) confirmed.push(await a.confirm('transactionsWrite', (c as { booking: string }).booking));
    expect(confirmed.every((c) => c.ok)).toBe(true);
    const now = confirmed.map(wait);
    expect(now[0]).toBeGreaterThanOrEqual(500 - slack);
    expect(now[0]).toBeLessThanOrEqual(500);
    [200, 300, 400].forEach((w, i) => {
      expect(now[i + 1]).toBeGreaterThanOrEqual(w - slack);
      expect(now[i + 1]).toBeLessThanOrEqual(w);
    });
    // The schedule kept its count: the next call goes after the moved one.
    expect(wait(await b.reserve('transactionsWrite', 'secondLeg'))).toBeGreaterThanOrEqual(600 - slack);
  });

  it('a displaced call past its own max wait is refused (nothing to send), and the tail slot stays free', async () => {
    const [a, b] = await fleet(rules({ rate: 10, quota: 0 }, { waits: [2000, 300, 50] }));
    const cashiers: Reservation[] = [];
    for (let i = 0; i < 4; i++) cashiers.push(await a.reserve('transactionsWrite', 'cashier'));
    expect(cashiers.every((c) => c.ok)).toBe(true);
    expect(wait(await b.reserve('transactionsWrite', 'secondLeg'))).toBeLessThanOrEqual(100);
    const moved = await a.confirm('transactionsWrite', (cashiers[1] as { booking: string }).booking);
    // Its new slot (400) is past its 300-ms wait: refused, told when it would have been.
    expect(moved.ok).toBe(false);
    expect((moved as { retryAfterMs: number }).retryAfterMs).toBeGreaterThanOrEqual(400 - slack);
    // The refused call took no slot: the next free slot is 400, not 500 (past a cashier's wait, so it is told 400).
    const next = (await a.reserve('transactionsWrite', 'cashier')) as { ok: false; retryAfterMs: number };
    expect(next.ok).toBe(false);
    expect(next.retryAfterMs).toBeGreaterThanOrEqual(400 - slack);
    expect(next.retryAfterMs).toBeLessThanOrEqual(400);
  });

  it('a booking confirmed is not displaced; a quota share the moved call may not use refuses it', async () => {
    const [a, b] = await fleet(rules({ rate: 10, quota: 4 }, { reserves: [25, 50], waits: [2000, 1000, 1000] }));
    // The cashiers may use 3 of the 4: they book 0, 100, 200.
    const cashiers: Reservation[] = [];
    for (let i = 0; i < 3; i++) cashiers.push(await a.reserve('transactionsWrite', 'cashier'));
    expect(cashiers.every((c) => c.ok)).toBe(true);
    expect(await a.confirm('transactionsWrite', (cashiers[1] as { booking: string }).booking)).toMatchObject({ ok: true });
    // The second leg skips the confirmed one (100) and takes 200; moved to 300 that cashier would be a 4th in the window: refused.
    const leg = await b.reserve('transactionsWrite', 'secondLeg');
    expect(wait(leg)).toBeGreaterThanOrEqual(200 - slack);
    expect(wait(leg)).toBeLessThanOrEqual(200);
    expect(await a.confirm('transactionsWrite', (cashiers[2] as { booking: string }).booking)).toMatchObject({ ok: false });
    // The second legs' reserve is intact: one more second leg gets the 4th slot of the window.
    expect(await b.reserve('transactionsWrite', 'secondLeg')).toMatchObject({ ok: true });
    expect(await b.reserve('transactionsWrite', 'secondLeg')).toMatchObject({ ok: false });
  });

  it('a pause holds second legs too: they take no slot booked before it ends', async () => {
    const [a, b] = await fleet(rules({ rate: 10, quota: 0 }, { waits: [2000, 1000, 50] }));
    for (let i = 0; i < 5; i++) await a.reserve('transactionsWrite', 'cashier');
    await a.pause('transactionsWrite', 250);
    const leg = await b.reserve('transactionsWrite', 'secondLeg');
    expect(wait(leg)).toBeGreaterThanOrEqual(300 - slack);
    expect(wait(leg)).toBeLessThanOrEqual(300);
  });
});

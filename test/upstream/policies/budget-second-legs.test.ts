import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CallPriority } from '../../../src/upstream';
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

/** The key prefix of the last fleet made. */
let fleetPrefix = '';
async function redisFleet(r: BudgetRules): Promise<[UpstreamBudget, UpstreamBudget]> {
  const p = (fleetPrefix = `${prefix}${randomUUID().slice(0, 6)}:`);
  const one = async () => {
    const c = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
    await waitForRedis(c, 5000);
    clients.push(c);
    return new RedisBudget(c, { prefix: p, rules: r, logger: silentLogger });
  };
  return [await one(), await one()];
}

const kinds: [string, (r: BudgetRules) => Promise<[UpstreamBudget, UpstreamBudget]>, boolean][] = [
  [
    'memory',
    async (r) => {
      const b = new MemoryBudget(r, () => 1_000_000);
      return [b, b];
    },
    false,
  ],
  ['Redis, two instances', redisFleet, true],
];
const wait = (r: Reservation) => (r.ok ? r.waitMs : NaN);

describe.each(kinds)('second legs first (%s)', (_kind, makeFleet, realClock) => {
  // On Redis' clock a wait shrinks by the time the test has taken so far (on a busy machine, tens of ms).
  let t0 = 0;
  const slack = () => (realClock ? Date.now() - t0 + 2 : 0);
  const fleet = async (r: BudgetRules) => {
    const f = await makeFleet(r);
    t0 = Date.now();
    return f;
  };
  it('with cashier calls booked ahead, a second leg takes the earliest of them (about one interval), that one moves to the tail', async () => {
    const [a, b] = await fleet(rules({ rate: 10, quota: 0 }, { waits: [2000, 1000, 50] }));
    const cashiers: Reservation[] = [];
    for (let i = 0; i < 5; i++) cashiers.push(await a.reserve('transactionsWrite', 'cashier'));
    [0, 100, 200, 300, 400].forEach((w, i) => {
      expect(wait(cashiers[i])).toBeGreaterThanOrEqual(w - slack());
      expect(wait(cashiers[i])).toBeLessThanOrEqual(w);
    });
    // The first goes now: nothing to confirm. The others carry a booking.
    expect(cashiers[0]).not.toHaveProperty('booking');
    expect(cashiers.slice(1).every((c) => c.ok && c.booking)).toBe(true);
    const leg = await b.reserve('transactionsWrite', 'secondLeg');
    // Not behind the queue (500 ms) but in the first booked slot after now.
    expect(leg.ok).toBe(true);
    expect(wait(leg)).toBeGreaterThanOrEqual(100 - slack());
    expect(wait(leg)).toBeLessThanOrEqual(100);
    expect(leg).not.toHaveProperty('booking');
    // The displaced cashier learns its new slot (where the second leg would have gone) when it confirms; the rest keep theirs.
    const confirmed = [];
    for (const c of cashiers.slice(1)) confirmed.push(await a.confirm('transactionsWrite', (c as { booking: string }).booking));
    expect(confirmed.every((c) => c.ok)).toBe(true);
    const now = confirmed.map(wait);
    expect(now[0]).toBeGreaterThanOrEqual(500 - slack());
    expect(now[0]).toBeLessThanOrEqual(500);
    [200, 300, 400].forEach((w, i) => {
      expect(now[i + 1]).toBeGreaterThanOrEqual(w - slack());
      expect(now[i + 1]).toBeLessThanOrEqual(w);
    });
    // The schedule kept its count: the next call goes after the moved one.
    expect(wait(await b.reserve('transactionsWrite', 'secondLeg'))).toBeGreaterThanOrEqual(600 - slack());
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
    expect((moved as { retryAfterMs: number }).retryAfterMs).toBeGreaterThanOrEqual(400 - slack());
    // The refused call took no slot: the next free slot is 400, not 500 (past a cashier's wait, so it is told 400).
    const next = (await a.reserve('transactionsWrite', 'cashier')) as { ok: false; retryAfterMs: number };
    expect(next.ok).toBe(false);
    expect(next.retryAfterMs).toBeGreaterThanOrEqual(400 - slack());
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
    expect(wait(leg)).toBeGreaterThanOrEqual(200 - slack());
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
    expect(wait(leg)).toBeGreaterThanOrEqual(300 - slack());
    expect(wait(leg)).toBeLessThanOrEqual(300);
  });
});

describe('second legs first: the fleet schedule in Redis after a burst from two instances', () => {
  it('its slots stay 1/rate apart and within the quota, and count exactly the calls that will send', async () => {
    const [a, b] = await redisFleet(rules({ rate: 20, quota: 30 }, { waits: [2000, 1000, 300] }));
    // A fixed mix, fired at once from both instances: second legs land among cashier calls booked ahead.
    const mix = Array.from({ length: 60 }, (_, i): CallPriority => (i % 3 === 2 ? 'secondLeg' : i % 7 === 0 ? 'background' : 'cashier'));
    const got = await Promise.all(mix.map((p, i) => (i % 2 ? a : b).reserve('transactionsWrite', p)));
    const booked = got.filter((r): r is { ok: true; waitMs: number; booking: string } => r.ok && !!r.booking);
    // Each confirmed by the other instance: the booking is the fleet's, not the instance's.
    const confirmed = await Promise.all(booked.map((r, i) => (i % 2 ? b : a).confirm('transactionsWrite', r.booking)));
    const refusedOnConfirm = confirmed.filter((c) => !c.ok).length;
    // Some second legs went ahead of calls booked before them (else this test shows nothing).
    const legWaits = got.filter((r, i) => r.ok && mix[i] === 'secondLeg').map(wait);
    const lastCashier = Math.max(...got.filter((r, i) => r.ok && mix[i] === 'cashier').map(wait));
    expect(legWaits.some((w) => w < lastCashier)).toBe(true);
    const key = `${fleetPrefix}{budget:transactionsWrite}`;
    const slots = (await clients[0].zrange(`${key}:log`, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2).map(Number);
    expect(slots.length).toBe(got.filter((r) => r.ok).length - refusedOnConfirm);
    expect(slots.length).toBeLessThanOrEqual(30);
    for (let i = 1; i < slots.length; i++) expect(slots[i] - slots[i - 1]).toBeGreaterThanOrEqual(50_000);
    // Every booking was confirmed: nothing is left to move.
    expect(await clients[0].zcard(`${key}:ahead`)).toBe(0);
  });
});

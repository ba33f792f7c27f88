import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadConfig } from '../../../src/platform/config';
import { silentLogger } from '../../../src/platform/logger';
import { connectRedis, waitForRedis } from '../../../src/platform/redis';
import { MemoryBudget, RedisBudget, type BudgetRules, type Reservation, type UpstreamBudget } from '../../../src/upstream/policies';
import { rules } from './budget-rules';

/**
 * The margin: a call reaches the loyalty service a little after its slot
 * (a timer firing late, the network), and the service counts from arrival.
 * Slots exactly 1/rate apart put rate + 1 calls into one of its seconds as
 * soon as an early call arrives later than one a second after it (the peak-day
 * bench saw 44 such 429s at 4x capacity). So each window is counted
 * `marginMs` longer: `rate` calls per second + margin, `quota` per window + margin.
 */
const withMargin = (r: BudgetRules, marginMs: number): BudgetRules => ({ ...r, marginMs });
const waits = (rs: Reservation[]) => rs.map((r) => (r.ok ? r.waitMs : NaN));

async function slotsOf(budget: UpstreamBudget, n: number): Promise<Reservation[]> {
  const out: Reservation[] = [];
  for (let i = 0; i < n; i++) out.push(await budget.reserve('transactionsWrite', 'secondLeg'));
  return out;
}

describe('the budget counts each window longer by the margin (memory)', () => {
  it('rate: `rate` slots per second + margin, so the calls of any one second at the service stay within the rate', async () => {
    const budget = new MemoryBudget(withMargin(rules({ rate: 10, quota: 0 }, { waits: [5000, 5000, 5000] }), 100), () => 0);
    // 110 ms apart, not 100: slot 10 (the 11th call) is 1.1 s after slot 0.
    expect(waits(await slotsOf(budget, 11))).toEqual([0, 110, 220, 330, 440, 550, 660, 770, 880, 990, 1100]);
  });

  it('quota: a slot leaves the window `window + margin` after it was taken', async () => {
    let now = 0;
    const budget = new MemoryBudget(withMargin(rules({ rate: 0, quota: 2 }, { windowMs: 1000, reserves: [0, 0], waits: [1000, 100, 50] }), 100), () => now);
    await budget.reserve('orders', 'cashier');
    await budget.reserve('orders', 'cashier');
    // Full until the first slot (at 0) leaves a window of 1000 + 100 ms.
    now = 900;
    expect(await budget.reserve('orders', 'cashier')).toEqual({ ok: false, retryAfterMs: 200 });
    now = 1050;
    expect(await budget.reserve('orders', 'cashier')).toMatchObject({ ok: true, waitMs: 50 });
  });

  it('no margin: slots exactly 1/rate apart, as before', async () => {
    const budget = new MemoryBudget(rules({ rate: 10, quota: 0 }, { waits: [5000, 5000, 5000] }), () => 0);
    expect(waits(await slotsOf(budget, 3))).toEqual([0, 100, 200]);
  });

  it('the setting: 100 ms by default, UPSTREAM_LIMIT_MARGIN_MS sets it', () => {
    expect(loadConfig({}).upstream.budget.marginMs).toBe(100);
    expect(loadConfig({ UPSTREAM_LIMIT_MARGIN_MS: '0' }).upstream.budget.marginMs).toBe(0);
  });
});

describe('the budget counts each window longer by the margin (Redis, two instances)', () => {
  const clients: Redis[] = [];
  const prefix = `test:budget-margin:${randomUUID().slice(0, 8)}:`;
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

  it('the fleet paces at `rate` per second + margin', async () => {
    const r = withMargin(rules({ rate: 10, quota: 0 }, { waits: [5000, 5000, 5000] }), 100);
    const [a, b] = [
      new RedisBudget(await connect(), { prefix, rules: r, logger: silentLogger }),
      new RedisBudget(await connect(), { prefix, rules: r, logger: silentLogger }),
    ];
    // Each slot on the local clock: when it was asked for plus its wait (Redis' clock is this machine's).
    const slots: number[] = [];
    for (let i = 0; i < 11; i++) {
      const askedAt = Date.now();
      const got = await (i % 2 ? a : b).reserve('transactionsWrite', 'secondLeg');
      if (!got.ok) throw new Error(`slot ${i} refused`);
      slots.push(askedAt + got.waitMs);
    }
    // Ten intervals of 110 ms (without the margin: 1000 ms; the asking itself adds a few ms of noise).
    expect(slots[10] - slots[0]).toBeGreaterThan(1060);
    expect(slots[10] - slots[0]).toBeLessThan(1140);
  });
});

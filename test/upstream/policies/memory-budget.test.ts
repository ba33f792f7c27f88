import type { CallPriority } from '../../../src/upstream';
import { MemoryBudget, type Reservation } from '../../../src/upstream/policies';
import { rules } from './budget-rules';

/** The budget's rules on one process, with an injected clock (the Redis budget runs the same steps: redis-budget.test.ts). */
describe('MemoryBudget: the published rate', () => {
  it('hands out slots 1/rate s apart, up to the wait cap, and refuses beyond without taking a slot', async () => {
    let now = 5_000;
    const budget = new MemoryBudget(rules({ rate: 10, quota: 0 }), () => now);
    const got: Reservation[] = [];
    for (let i = 0; i < 4; i++) got.push(await budget.reserve('transactionsWrite', 'cashier'));
    expect(got).toMatchObject([
      { ok: true, waitMs: 0 },
      { ok: true, waitMs: 100 },
      { ok: true, waitMs: 200 },
      // The next slot is 300 ms away, over the cashier's 250: refused, told when it is.
      { ok: false, retryAfterMs: 300 },
    ]);
    // The refusal took no slot: 100 ms later the next slot (at +300) is 200 ms away.
    now += 100;
    expect(await budget.reserve('transactionsWrite', 'cashier')).toMatchObject({ ok: true, waitMs: 200 });
    // Buckets are separate; an idle bucket starts at once.
    expect(await budget.reserve('customersRead', 'background')).toMatchObject({ ok: true, waitMs: 0 });
    now += 10_000;
    expect(await budget.reserve('transactionsWrite', 'background')).toMatchObject({ ok: true, waitMs: 0 });
  });

  it('0 means no limit', async () => {
    const budget = new MemoryBudget(rules({ rate: 0, quota: 0 }), () => 0);
    for (let i = 0; i < 100; i++) expect(await budget.reserve('events', 'background')).toMatchObject({ ok: true, waitMs: 0 });
  });
});

describe('MemoryBudget: the 30-s quota', () => {
  it('lets `quota` calls through per sliding window, then tells when the oldest leaves it', async () => {
    let now = 0;
    const budget = new MemoryBudget(rules({ rate: 0, quota: 5 }, { windowMs: 30_000 }), () => now);
    // One call a second for five seconds: the whole quota, all second legs (they may use all of it).
    for (let i = 0; i < 5; i++) {
      now = i * 1000;
      expect(await budget.reserve('transactionsWrite', 'secondLeg')).toMatchObject({ ok: true, waitMs: 0 });
    }
    now = 10_000;
    // Full until the call at 0 leaves the window at 30 s: 20 s from now.
    expect(await budget.reserve('transactionsWrite', 'secondLeg')).toMatchObject({ ok: false, retryAfterMs: 20_000 });
    // Sliding, not fixed: at 30.5 s one slot is free (the call at 0 left), not five.
    now = 30_500;
    expect(await budget.reserve('transactionsWrite', 'secondLeg')).toMatchObject({ ok: true, waitMs: 0 });
    expect(await budget.reserve('transactionsWrite', 'secondLeg')).toMatchObject({ ok: true, waitMs: 500 });
    expect(await budget.reserve('transactionsWrite', 'secondLeg')).toMatchObject({ ok: false, retryAfterMs: 1500 });
  });

  it('waits for a slot leaving the window when that is within the priority wait', async () => {
    let now = 0;
    const budget = new MemoryBudget(rules({ rate: 0, quota: 2 }, { windowMs: 1000, reserves: [0, 0] }), () => now);
    await budget.reserve('orders', 'cashier');
    now = 100;
    await budget.reserve('orders', 'cashier');
    now = 800;
    expect(await budget.reserve('orders', 'cashier')).toMatchObject({ ok: true, waitMs: 200 });
    // That call is booked at 1000: the next one waits for the call at 100 to leave (1100).
    expect(await budget.reserve('orders', 'cashier')).toMatchObject({ ok: false, retryAfterMs: 300 });
  });

  it('rate and quota together: a call goes at the later of the two', async () => {
    const budget = new MemoryBudget(rules({ rate: 2, quota: 3 }, { windowMs: 2000, reserves: [0, 0], waits: [5000, 5000, 5000] }), () => 0);
    const waits = [];
    for (let i = 0; i < 5; i++) waits.push(await budget.reserve('coupons', 'cashier'));
    // Slots 500 ms apart (rate), but a fourth call in a 2-s window must wait for the first to leave (quota).
    expect(waits).toMatchObject([
      { ok: true, waitMs: 0 },
      { ok: true, waitMs: 500 },
      { ok: true, waitMs: 1000 },
      { ok: true, waitMs: 2000 },
      { ok: true, waitMs: 2500 },
    ]);
  });
});

describe('MemoryBudget: priorities', () => {
  it('background stops at its reserve, a cashier at the second legs reserve, a second leg uses the whole quota', async () => {
    const budget = new MemoryBudget(rules({ rate: 0, quota: 10 }, { reserves: [10, 30] }), () => 0);
    const take = async (p: CallPriority) => {
      let n = 0;
      while ((await budget.reserve('transactionsWrite', p)).ok) n += 1;
      return n;
    };
    // Background fills 70 %, then is refused while cashiers still get theirs (up to 90 %), and second legs the rest.
    expect(await take('background')).toBe(7);
    expect(await take('cashier')).toBe(2);
    expect(await take('background')).toBe(0);
    expect(await take('secondLeg')).toBe(1);
    expect(await take('cashier')).toBe(0);
  });

  it('a cashier never takes the second legs reserve, however many calls come', async () => {
    const budget = new MemoryBudget(rules({ rate: 0, quota: 360 }), () => 0);
    let cashier = 0;
    for (let i = 0; i < 1000; i++) if ((await budget.reserve('transactionsWrite', 'cashier')).ok) cashier += 1;
    expect(cashier).toBe(324);
    let secondLegs = 0;
    for (let i = 0; i < 100; i++) if ((await budget.reserve('transactionsWrite', 'secondLeg')).ok) secondLegs += 1;
    expect(secondLegs).toBe(36);
  });

  it('on the rate, a lower priority may book less far ahead: background is refused first, a second leg last', async () => {
    const budget = new MemoryBudget(rules({ rate: 10, quota: 0 }, { waits: [1000, 250, 0] }), () => 0);
    const got = [];
    for (const p of ['cashier', 'cashier', 'background', 'cashier', 'cashier', 'secondLeg'] as CallPriority[])
      got.push(await budget.reserve('transactionsWrite', p));
    expect(got).toMatchObject([
      { ok: true, waitMs: 0 },
      { ok: true, waitMs: 100 },
      { ok: false, retryAfterMs: 200 },
      { ok: true, waitMs: 200 },
      { ok: false, retryAfterMs: 300 },
      // The second leg goes first, in the slot the cashier booked at 100 (tests of this rule: budget-second-legs.test.ts).
      { ok: true, waitMs: 100 },
    ]);
    // That cashier's slot would be 300, past its 250-ms wait: it is refused when it confirms.
    expect(await budget.confirm('transactionsWrite', (got[1] as { booking: string }).booking)).toEqual({ ok: false, retryAfterMs: 300 });
  });
});

describe('MemoryBudget: a pause after a 429', () => {
  it('holds every priority until it ends; a shorter pause does not cut it', async () => {
    let now = 0;
    const budget = new MemoryBudget(rules({ rate: 0, quota: 0 }), () => now);
    await budget.pause('customersRead', 2000);
    await budget.pause('customersRead', 500);
    expect(await budget.reserve('customersRead', 'secondLeg')).toMatchObject({ ok: false, retryAfterMs: 2000 });
    expect(await budget.reserve('customersRead', 'cashier')).toMatchObject({ ok: false, retryAfterMs: 2000 });
    // Other buckets go on.
    expect(await budget.reserve('events', 'background')).toMatchObject({ ok: true, waitMs: 0 });
    now = 1500;
    // A second leg may wait out the last 500 ms; a cashier may not (250).
    expect(await budget.reserve('customersRead', 'secondLeg')).toMatchObject({ ok: true, waitMs: 500 });
    expect(await budget.reserve('customersRead', 'cashier')).toMatchObject({ ok: false, retryAfterMs: 500 });
    now = 2000;
    expect(await budget.reserve('customersRead', 'cashier')).toMatchObject({ ok: true, waitMs: 0 });
  });
});

describe('MemoryBudget: room, asked before a write whose next step needs another bucket', () => {
  it('tells whether a call of that priority could go now, taking nothing', async () => {
    const now = 0;
    // Quota 10: a cashier's call may see 9 taken (10 % reserved for second legs).
    const budget = new MemoryBudget(rules({ rate: 0, quota: 10 }), () => now);
    for (let i = 0; i < 8; i++) await budget.reserve('orders', 'cashier');
    // Asked any number of times, it takes no slot.
    for (let i = 0; i < 5; i++) expect(await budget.room('orders', 'cashier')).toMatchObject({ ok: true, waitMs: 0 });
    expect(await budget.reserve('orders', 'cashier')).toMatchObject({ ok: true });
    // The cashier's share is spent: no room for a cashier's call, while a second leg still has the reserve.
    expect(await budget.room('orders', 'cashier')).toMatchObject({ ok: false });
    expect(await budget.room('orders', 'secondLeg')).toMatchObject({ ok: true });
    expect(await budget.reserve('orders', 'secondLeg')).toMatchObject({ ok: true });
    // Another bucket is untouched.
    expect(await budget.room('transactionsWrite', 'cashier')).toMatchObject({ ok: true });
  });
});

describe('MemoryBudget: a priority may leave another share in one bucket', () => {
  it("the cashier's share of Orders is what UPSTREAM_ORDERS_SECOND_LEG_RESERVE_PERCENT leaves, elsewhere the general reserve", async () => {
    const r = rules({ rate: 0, quota: 100 });
    const budget = new MemoryBudget({ ...r, priorities: { ...r.priorities, cashier: { ...r.priorities.cashier, reservePercentIn: { orders: 5 } } } }, () => 0);
    const taken = async (bucket: 'orders' | 'transactionsWrite') => {
      let n = 0;
      while ((await budget.reserve(bucket, 'cashier')).ok) n += 1;
      return n;
    };
    expect(await taken('orders')).toBe(95);
    expect(await taken('transactionsWrite')).toBe(90);
  });
});

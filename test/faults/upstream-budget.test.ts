import { performance } from 'node:perf_hooks';
import { Exchange, Transport } from '../../src/upstream/transport';
import { startStack, Stack } from '../support/e2e';
import { eventually, paymentsOf, pending, setFaults } from '../pos/outbox/stack-helpers';
import { total } from '../metrics/prometheus';

/** When each request left a BFF (wrapping the e2e helper's recording transport). */
const sentAt: { method: string; path: string; at: number }[] = [];
const recordingSend = Transport.prototype.send;
Transport.prototype.send = function timedSend(this: Transport, e: Exchange) {
  sentAt.push({ method: e.method, path: e.path, at: Date.now() });
  return recordingSend.call(this, e);
};

/**
 * The fleet's upstream budget end to end: two BFF instances sharing one Redis,
 * against the sandbox over real HTTP, with small limits so each rule shows in
 * seconds. The sandbox's own limits are out of reach here and its fault API
 * injects the 429; upstream-budget-sandbox-limits.test.ts meets its enforcement.
 */
const LINES = [{ serviceId: 'sku-1', amount: 10 }];
const sale = (customerId: string, paymentId: string, totalPaid = 10) => ({ customerId, paymentId, totalPaid });
const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const v = await fn();
  return [v, performance.now() - t];
};

describe('the 30-s quota, fleet-wide: past it a till hears 503 upstream_busy at once, with Retry-After from the schedule', () => {
  let s: Stack;
  beforeAll(async () => {
    // Customer reads: 5 per 30 s for the whole fleet; a till's calls may use 4 of them (the rest is the second legs' reserve).
    s = await startStack({ store: 'redis', instances: 2, env: { UPSTREAM_QUOTA_CUSTOMERS_READ: '5' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a burst of reads over both instances: exactly the quota (less the reserve) reaches the sandbox, the rest are refused fast', async () => {
    await s.seed('q-ana', 0);
    const hashes = () => s.sentUpstream().filter((e) => e.path.endsWith('/customers/q-ana/hash')).length;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => s.pos('kiosk', i % 2).get('/customers/q-ana/hash')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(4);
    expect(hashes()).toBe(4);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(16);
    for (const a of refused) {
      expect(a.status).toBe(503);
      expect(a.body.code).toBe('upstream_busy');
      // When the first of those four leaves the 30-s window (counted UPSTREAM_LIMIT_MARGIN_MS longer, rounded up to whole seconds).
      expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(28);
      expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(31);
    }
    // One more, alone: answered at once (no wait for budget, no client retry; a loose bound on a shared machine), and still nothing sent.
    const [again, ms] = await timed(() => s.pos('kiosk', 1).get('/customers/q-ana/hash'));
    expect(again.status).toBe(503);
    expect(ms).toBeLessThan(500);
    expect(hashes()).toBe(4);
    // Each refusal is counted once, by the instance that refused it (pos_upstream_budget_refusals_total, what PosBudgetRefusals pages on).
    const refusals = await Promise.all(s.bffs.map(async (b) => total(await b.metrics.render(), 'pos_upstream_budget_refusals_total') ?? 0));
    expect(refusals[0] + refusals[1]).toBe(17);
    console.log(`quota: 4 of 20 sent, 16 refused; a refusal alone answered in ${ms.toFixed(1)} ms`);
  });
});

describe('cashier-first: a second leg passes where cashiers and background work are held; plain sales queue and drain once', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      instances: 2,
      env: {
        // Transaction writes: 10 per 3-s window (cashiers 9, background 7); the rate out of the way.
        UPSTREAM_QUOTA_WINDOW_SECONDS: '3',
        UPSTREAM_QUOTA_TRANSACTIONS_WRITE: '10',
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_BASE_MS: '50',
        OUTBOX_BACKOFF_MAX_MS: '500',
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the payment naming a held redemption goes through while queued sales wait, and every queued sale is delivered once', async () => {
    await s.seed('pri-ana', 500);
    const customers = Array.from({ length: 12 }, (_, i) => `pri-c${i}`);
    for (const c of customers) await s.seed(c, 0);
    // The hold: a cashier's call, the first of the window.
    const r = await s.pos('cashier').post('/redemptions', { customerId: 'pri-ana', points: 100 }).expect(201);
    // Twelve plain sales at once over both instances: 8 more fit the cashiers' 9, the rest queue (202).
    const answers = await Promise.all(customers.map((c, i) => s.pos('cashier', i % 2).post('/payments?receipt=none', sale(c, `pri-sale-${i}`))));
    const sent = answers.filter((a) => a.status === 201);
    const queued = answers.filter((a) => a.status === 202);
    expect(sent).toHaveLength(8);
    expect(queued).toHaveLength(4);
    for (const q of queued) expect(q.body.reason).toBe('upstream_busy');
    // The second leg: its reserve is there (and the outbox, background work, has not taken it).
    const paid = await s
      .pos('cashier', 1)
      .post('/payments?receipt=none', { customerId: 'pri-ana', paymentId: 'pri-redeem', totalPaid: 0, totalAmount: 10, redemptionId: r.body.id, lines: LINES });
    expect(paid.status).toBe(201);
    expect(paid.body.pointsRedeemed).toBe(100);
    expect(await pending(s)).toBe(4);
    // A cashier is out of budget now too: another plain sale queues.
    const late = await s.pos('cashier').post('/payments?receipt=none', sale('pri-c0', 'pri-sale-late'));
    expect(late.status).toBe(202);

    // As the window slides, the outbox delivers within the budget, each sale once.
    await eventually('the outbox to drain', async () => (await pending(s)) === 0, 20_000);
    for (const [i, c] of customers.entries()) {
      const expected = i === 0 ? [`pri-sale-0`, 'pri-sale-late'] : [`pri-sale-${i}`];
      expect(await paymentsOf(s, c)).toEqual(expected);
    }
    expect(await paymentsOf(s, 'pri-ana')).toEqual(['pri-redeem']);
    // Never more than the quota in any 3-s window, as they left the BFFs (less 50 ms for timers firing late).
    const writes = sentAt.filter((e) => e.method === 'POST' && /\/(payments|transactions\/hold)$/.test(e.path));
    expect(writes).toHaveLength(1 + 8 + 1 + 5);
    expect(Math.max(...writes.map((w) => writes.filter((u) => u.at >= w.at && u.at < w.at + 2950).length))).toBeLessThanOrEqual(10);
  });
});

describe('cashier-first with OTP: the OTP step is a second leg, a new start is refused fast', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      instances: 2,
      account: { otpEnabled: true },
      env: { UPSTREAM_QUOTA_WINDOW_SECONDS: '3', UPSTREAM_QUOTA_TRANSACTIONS_WRITE: '10' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the code places the hold while the tills are out of budget; a redemption, which cannot wait, is 503 upstream_busy at once', async () => {
    for (const c of ['otp-ana', 'otp-bob']) await s.seed(c, 500);
    const customers = Array.from({ length: 12 }, (_, i) => `otp-c${i}`);
    for (const c of customers) await s.seed(c, 0);
    // The code request: a cashier's call, the first of the window.
    const start = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'otp-ana', hash: await s.hash('otp-ana'), points: 100 })
      .expect(201);
    expect(start.body.state).toBe('otp_required');
    const answers = await Promise.all(customers.map((c, i) => s.pos('cashier', i % 2).post('/payments?receipt=none', sale(c, `otp-sale-${i}`))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(8);
    const held = await s
      .pos('cashier', 1)
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('otp-ana') })
      .expect(200);
    expect(held.body.state).toBe('held');
    const bob = { customerId: 'otp-bob', hash: await s.hash('otp-bob'), points: 100 };
    const [refused, ms] = await timed(() => s.pos('cashier').post('/redemptions', bob));
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('upstream_busy');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(ms).toBeLessThan(500);
    await eventually('the outbox to drain', async () => (await pending(s)) === 0, 20_000);
  });
});

describe('a 429 from the loyalty service pauses its bucket for the whole fleet', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2 });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('one instance sees the 429; the other sends nothing in that bucket until its Retry-After is over', async () => {
    await s.seed('p-ana', 0);
    const previews = () => s.sentUpstream().filter((e) => e.path.endsWith('/orders/reward-preview')).length;
    const preview = { customerId: 'p-ana', totalPaid: 10, lines: LINES };
    // The sandbox answers the next preview 429 with Retry-After: 1.
    await setFaults(s, [{ operation: 'rewardPreview', status: 429, times: 1 }]);
    const [first, firstMs] = await timed(() => s.pos('cashier', 0).post('/earn-preview', preview));
    expect(first.status).toBe(503);
    expect(first.body.code).toBe('upstream_busy');
    expect(first.headers['retry-after']).toBe('1');
    // Not after a second: the client's retry asked the budget, which refused at once.
    expect(firstMs).toBeLessThan(500);
    expect(previews()).toBe(1);
    // The other instance: refused without sending, in the same bucket only.
    const other = await s.pos('cashier', 1).post('/earn-preview', preview);
    expect(other.status).toBe(503);
    expect(other.body.code).toBe('upstream_busy');
    expect(previews()).toBe(1);
    await s.pos('cashier', 1).get('/customers/p-ana').expect(200);
    // After the pause, it goes.
    await new Promise((r) => setTimeout(r, 1000));
    await s.pos('cashier', 1).post('/earn-preview', preview).expect(200);
    expect(previews()).toBe(2);
    await setFaults(s, []);
  });
});

import { SALE_OPERATION, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { eventually, setFaults } from '../pos/outbox/stack-helpers';
import { heldRedemption, waitFor } from './helpers';

/**
 * Money rules of sales, refunds, voids and coupon locks, one `describe` each,
 * driven over HTTP against the sandbox with one Redis. Each fails when its
 * rule's line is broken.
 */
const coupons = [
  { code: 'WELCOME10', name: 'Welcome 10 EGP', value: 10, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z', limitPerCustomer: 1 },
];
const slow = { LOYALTY_TIMEOUT_MS: '500', LOYALTY_RETRIES: '0', BREAKER_FAILURE_THRESHOLD: '10000', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0' };
/** The upstream refuses the next payment outright: a definite refusal (a 4xx). */
const refuseNextPayment = [{ operation: SALE_OPERATION, status: 422, times: 1 }];

const onUpstream = (s: Stack, paymentId: string) =>
  waitFor(
    'the sandbox to record the payment',
    async () => (await s.sandboxAdmin.get(`/api/v4.0/integrations/orders/${paymentId}/transactions`).set(SANDBOX_KEYS)).status === 200,
    10_000,
  );

describe('sales with an unknown first attempt (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', account: { coupons }, env: slow });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(() => setFaults(s, []));

  describe("a retried sale or refund that is refused keeps its id's claim", () => {
    it("the first attempt landed: the id stays this store's, another store cannot take it", async () => {
      const r = await heldRedemption(s, 'mr4-1', 100, { seed: 500 });
      const sale = { customerId: 'mr4-1', paymentId: 'mr4-sale', totalPaid: 20, redemptionId: r.id };
      // Lands after the BFF gave up on it.
      await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 1500, times: 1 }]);
      expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
      await onUpstream(s, sale.paymentId);
      // The retry is refused; that says nothing of the first attempt.
      await setFaults(s, refuseNextPayment);
      const retry = await s.pos('cashier').post('/payments', sale);
      expect([retry.status, retry.body.code]).toEqual([503, 'retry_same_request']);
      await setFaults(s, []);

      const other = await s.pos('otherCashier').post('/payments', { customerId: 'mr4-1', paymentId: 'mr4-sale', totalPaid: 20 });
      expect([other.status, other.body.code]).toEqual([409, 'payment_id_taken']);
      await s.pos('cashier').get('/payments/mr4-sale').expect(200);
      await s.pos('otherCashier').get('/payments/mr4-sale').expect(404);
    });
  });

  describe("an id is settled `recorded` only from the upstream's record", () => {
    it('a sale whose payment never reached the upstream stays claimed, not recorded, when a void asks about it', async () => {
      const r = await heldRedemption(s, 'mr5-1', 100, { seed: 500 });
      const sale = { customerId: 'mr5-1', paymentId: 'mr5-sale', totalPaid: 20, redemptionId: r.id };
      // A 500 before anything was applied: the outcome is unknown here.
      await setFaults(s, [{ operation: SALE_OPERATION, status: 500, times: 1 }]);
      expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
      // A void settles the sale id from the upstream's record first; the record has no such sale.
      const voided = await s.pos('manager').post('/payments/mr5-sale/void', { customerId: 'mr5-1' });
      expect(voided.status).toBeGreaterThanOrEqual(400);
      expect((await s.bff.deps.sales.get('payment', 'mr5-sale'))?.state).toBe('recording');
      // The same request sent again lands, and then its record settles it.
      const again = await s.pos('cashier').post('/payments', sale).expect(201);
      expect(again.body.redemption).toEqual({ id: r.id, state: 'redeemed' });
      expect((await s.bff.deps.sales.get('payment', 'mr5-sale'))?.state).toBe('recorded');
    });
  });

  describe('a refused retry of a payment keeps its coupon lock as it was', () => {
    it('the lock stays claimed by the payment (the first attempt may have burned it), never locked again', async () => {
      await s.seed('mr10-1', 0);
      const lock = (
        await s
          .pos('cashier')
          .post('/coupon-locks', { customerId: 'mr10-1', codes: ['WELCOME10'], basketTotal: 50 })
          .expect(201)
      ).body;
      const sale = { customerId: 'mr10-1', paymentId: 'mr10-sale', totalPaid: 40, couponLockId: lock.id };
      await setFaults(s, [{ operation: SALE_OPERATION, status: 500, times: 1 }]);
      expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
      await setFaults(s, refuseNextPayment);
      const retry = await s.pos('cashier').post('/payments', sale);
      expect([retry.status, retry.body.code]).toEqual([503, 'retry_same_request']);
      const after = (await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body;
      expect(after).toMatchObject({ state: 'paying', paymentId: sale.paymentId });
    });
  });
});

describe("a second void under another refund id is not taken for the first void's retry (redis store)", () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { ...slow, OUTBOX_POLL_INTERVAL_MS: '60000' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('is refused as a void in progress while the first is unsettled', async () => {
    await s.seed('mr6-1', 0);
    await s.pos('cashier').post('/payments', { customerId: 'mr6-1', paymentId: 'mr6-sale', totalPaid: 40 }).expect(201);
    // The first void's refund times out: queued, or unknown; either way the sale stays claimed by it.
    await setFaults(s, [{ operation: 'refund', latencyMs: 1500 }]);
    const first = await s.pos('manager').post('/payments/mr6-sale/void', { customerId: 'mr6-1', refundId: 'mr6-void-a' });
    expect([202, 503]).toContain(first.status);
    const second = await s.pos('manager').post('/payments/mr6-sale/void', { customerId: 'mr6-1', refundId: 'mr6-void-b' });
    expect([second.status, second.body.code]).toEqual([409, 'sale_void_in_progress']);
    // The first void sent again is its retry, not refused as another.
    const retry = await s.pos('manager').post('/payments/mr6-sale/void', { customerId: 'mr6-1', refundId: 'mr6-void-a' });
    expect(retry.body.code).not.toBe('sale_void_in_progress');
    await setFaults(s, []);
  });
});

describe('a queued void whose refund went to the dead letters leaves the sale not voided (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      env: {
        LOYALTY_RETRIES: '0',
        BREAKER_FAILURE_THRESHOLD: '1',
        BREAKER_HALF_OPEN_AFTER_MS: '600000',
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_BASE_MS: '50',
        OUTBOX_MAX_ATTEMPTS: '1',
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the sale is recorded again, and can be voided', async () => {
    await s.seed('mr7-1', 0);
    await s.pos('cashier').post('/payments', { customerId: 'mr7-1', paymentId: 'mr7-sale', totalPaid: 40 }).expect(201);
    // One failed read opens the breaker: the void is queued, certainly not sent.
    await setFaults(s, [{ operation: '*', status: 500, times: 1 }]);
    expect((await s.pos('cashier').get('/customers/mr7-1')).status).toBeGreaterThanOrEqual(500);
    const queued = await s.pos('manager').post('/payments/mr7-sale/void', { customerId: 'mr7-1' }).expect(202);
    // Delivered once the breaker lets a call through, and refused outright: a dead letter that certainly did nothing.
    await setFaults(s, [{ operation: 'refund', status: 422 }]);
    await s.advance(600_001);
    const dead = await eventually(
      'the queued void to end',
      async () => {
        const b = (await s.pos('cashier').get(`/outbox/${queued.body.outboxId}`).expect(200)).body;
        return b.state === 'dead' || b.state === 'delivered' ? b : undefined;
      },
      20_000,
    );
    expect(dead.state).toBe('dead');
    await setFaults(s, []);
    const again = await s.pos('manager').post('/payments/mr7-sale/void', { customerId: 'mr7-1' });
    expect([again.status, again.body.refundId]).toEqual([200, 'void-mr7-sale']);
  });
});

// Whether two requests interleave inside the store is up to the scheduler: the race made certain is test/pos/money/rules-sale-records.test.ts.
describe.each(['memory', 'redis'] as const)('two voids racing on one sale over HTTP, one wins (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, env: slow });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('each sale is voided once: one void answered, the other refused as a void of the same sale, one refund sent upstream', async () => {
    const sales = ['a', 'b', 'c', 'd'].map((x) => `mr12-${store}-${x}`);
    await s.seed(`mr12-${store}`, 0);
    for (const paymentId of sales)
      await s
        .pos('cashier')
        .post('/payments', { customerId: `mr12-${store}`, paymentId, totalPaid: 40 })
        .expect(201);
    const from = s.sentUpstream().length;
    const answers = await Promise.all(
      sales.flatMap((paymentId) =>
        ['x', 'y'].map((v) => s.pos('manager').post(`/payments/${paymentId}/void`, { customerId: `mr12-${store}`, refundId: `${paymentId}-void-${v}` })),
      ),
    );
    for (let i = 0; i < sales.length; i++) {
      const pair = [answers[2 * i], answers[2 * i + 1]].map((a) => (a.status === 200 ? 200 : `${a.status} ${a.body.code}`)).sort();
      expect(pair[0]).toBe(200);
      expect(['409 sale_void_in_progress', '409 sale_already_voided']).toContain(pair[1]);
    }
    const refunds = s
      .sentUpstream()
      .slice(from)
      .filter((e) => e.method === 'POST' && e.path.includes('refund'));
    expect(refunds).toHaveLength(sales.length);
  });
});

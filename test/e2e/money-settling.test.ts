import { SALE_OPERATION, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { eventually, setFaults } from '../pos/outbox/stack-helpers';
import { heldRedemption, waitFor } from './helpers';

/**
 * Settling what may have landed: a write whose outcome is unknown keeps its
 * claims until the upstream's record shows what became of it. Its absence from
 * the record proves nothing (the write may still be in flight, or queued), and
 * a retry refused says nothing of the first attempt.
 */
const slow = { LOYALTY_TIMEOUT_MS: '500', LOYALTY_RETRIES: '0', BREAKER_FAILURE_THRESHOLD: '10000', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0' };
const redeemed = (s: Stack, id: string) =>
  eventually(
    'the redemption to be settled redeemed',
    async () => (await s.pos('cashier').get(`/redemptions/${id}`).expect(200)).body.state === 'redeemed' || undefined,
  );

describe('a sale whose payment is still in flight when it is first settled (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: slow });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("stays the store's once the payment lands: read back by it, not refundable by another store", async () => {
    const r = await heldRedemption(s, 'fly-1', 100, { seed: 500 });
    // Lands 3 s after it was sent: the first looks at the record find nothing.
    await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 3000, times: 1 }]);
    expect((await s.pos('cashier').post('/payments', { customerId: 'fly-1', paymentId: 'fly-sale-1', totalPaid: 20, redemptionId: r.id })).body.code).toBe(
      'retry_same_request',
    );
    await setFaults(s, []);
    await redeemed(s, r.id);
    await eventually('the sale to be read back', async () => (await s.pos('cashier').get('/payments/fly-sale-1')).status === 200 || undefined);
    const other = await s.pos('otherManager').post('/refunds', { customerId: 'fly-1', refundId: 'fly-ref-other', paymentId: 'fly-sale-1' });
    expect([other.status, other.body.code]).toEqual([404, 'sale_not_found']);
  });
});

describe('a retry of a payment that may have landed, refused by the open breaker (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { ...slow, BREAKER_FAILURE_THRESHOLD: '1', BREAKER_HALF_OPEN_AFTER_MS: '5000' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('is answered retry_same_request, never a refusal that frees the key', async () => {
    const r = await heldRedemption(s, 'rr-1', 100, { seed: 500 });
    await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 1500, times: 1 }]);
    const sale = { customerId: 'rr-1', paymentId: 'rr-sale-1', totalPaid: 20, redemptionId: r.id };
    expect((await s.pos('cashier').post('/payments', sale).set('Idempotency-Key', 'rr-k1')).body.code).toBe('retry_same_request');
    await setFaults(s, []);
    const retry = await s.pos('cashier').post('/payments', sale).set('Idempotency-Key', 'rr-k2');
    expect([retry.status, retry.body.code]).toEqual([503, 'retry_same_request']);
    await redeemed(s, r.id);
  });
});

describe('a payment with points retried on an account that merges channels (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', account: { channelMerging: 'email' }, env: slow });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers already_recorded for the very same sale, though the hold names the merged profile', async () => {
    const email = 'mx@example.com';
    await s.sandboxAdmin
      .post('/_sandbox/customers')
      .set(SANDBOX_KEYS)
      .send({ customerId: 'web-mx', points: 1000, email })
      .expect((res) => expect(res.status).toBeLessThan(300));
    const r = (
      await s
        .pos('cashier')
        .post('/redemptions', { customerId: 'pos-mx', hash: await s.hash('web-mx'), points: 100, email })
        .expect(201)
    ).body;
    await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 1200, times: 1 }]);
    const sale = { customerId: 'pos-mx', paymentId: 'mx-sale-1', totalPaid: 20, redemptionId: r.id, email };
    expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
    await setFaults(s, []);
    await new Promise((res) => setTimeout(res, 1500));
    const again = await s.pos('cashier').post('/payments', sale);
    expect([again.status, again.body.status ?? again.body.code]).toEqual([201, 'already_recorded']);
    await s.pos('cashier').get('/payments/mx-sale-1').expect(200);
  });
});

describe('queued sales and batch orders whose outcome is not known (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      account: { channelMerging: 'email' },
      env: { ...slow, LOYALTY_TIMEOUT_MS: '400', OUTBOX_MAX_ATTEMPTS: '1', OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_BACKOFF_BASE_MS: '50' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });
  const orderDate = '2026-01-15T18:00:00.000Z';

  it('a dead letter given up after timeouts keeps the sale id claimed: it may have landed, so no other store can take it', async () => {
    await s.seed('dl-1', 0);
    await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 800, times: 2 }]);
    const res = await s.pos('cashier').post('/payments', { customerId: 'dl-1', paymentId: 'dl-sale-1', totalPaid: 40 }).expect(202);
    const dead = await eventually('the delivery to end', async () => {
      const b = (await s.pos('cashier').get(`/outbox/${res.body.outboxId}`).expect(200)).body;
      return b.state === 'dead' || b.state === 'delivered' ? b : undefined;
    });
    expect(dead).toMatchObject({ state: 'dead', lastError: { code: 'upstream_timeout' } });
    await setFaults(s, []);
    await s.seed('dl-2', 0);
    const other = await s.pos('otherCashier').post('/payments', { customerId: 'dl-2', paymentId: 'dl-sale-1', totalPaid: 40 }).expect(409);
    expect(other.body.code).toBe('payment_id_taken');
  });

  it('reading an old batch job again does not free an order id a later job of the store accepted', async () => {
    await s.sandboxAdmin
      .post('/_sandbox/customers')
      .set(SANDBOX_KEYS)
      .send({ customerId: 'bf-1', points: 0, email: 'bf1@example.com' })
      .expect((r) => expect(r.status).toBeLessThan(300));
    const done = async (jobId: number) =>
      waitFor('the job', async () => (await s.pos('manager').get(`/orders/batch/${jobId}`).expect(200)).body.status === 'completed');
    // Refused: the account merges channels by email and the order has none.
    const j1 = (
      await s
        .pos('cashier')
        .post('/orders/batch', { orders: [{ customerId: 'bf-1', orderId: 'bf-o1', orderDate, totalPaid: 50 }] })
        .expect(202)
    ).body.jobId;
    await done(j1);
    const j2 = (
      await s
        .pos('cashier')
        .post('/orders/batch', { orders: [{ customerId: 'bf-1', orderId: 'bf-o1', orderDate, totalPaid: 50, email: 'bf1@example.com' }] })
        .expect(202)
    ).body.jobId;
    await done(j2);
    await s.pos('cashier').get('/payments/bf-o1').expect(200);
    await done(j1);
    await s.pos('cashier').get('/payments/bf-o1').expect(200);
    await s.pos('otherManager').post('/payments/bf-o1/void', { customerId: 'bf-1', email: 'bf1@example.com' }).expect(404);
  });
});

import { startStack, Stack } from '../support/e2e';
import { activity, eventually, paymentsOf, pending, setFaults } from '../pos/outbox/stack-helpers';

/**
 * What is queued during an outage and what never is: a redemption, or a
 * payment naming one, fails clearly (its hold would expire); reads fail fast;
 * sale voids, events (only when certainly not sent) and batch uploads are queued like payments and refunds,
 * and a customer's writes reach the upstream in the order they were made.
 */
describe('which writes wait in the outbox (Redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      env: {
        KIOSK_EVENTS: 'store_visit,review_written',
        LOYALTY_RETRIES: '0',
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_BASE_MS: '50',
        OUTBOX_BACKOFF_MAX_MS: '200',
        BREAKER_FAILURE_THRESHOLD: '10000',
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });

  it('a redemption, or a payment that names one, is never queued: 503, nothing kept for later', async () => {
    await s.seed('wr-ana', 1000);
    const hash = await s.hash('wr-ana');
    const held = await s.pos('cashier').post('/redemptions', { customerId: 'wr-ana', hash, points: 100 }).expect(201);
    await setFaults(s, [{ operation: '*', status: 503 }]);

    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId: 'wr-ana', paymentId: 'wr-sale-1', totalPaid: 50, redemptionId: held.body.id })
      .expect(503);
    // A 5xx may have been applied: never "nothing was done".
    expect(pay.body.code).toBe('retry_same_request');
    expect(pay.body.queued).toBeUndefined();
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'wr-ana', hash, points: 50 }).expect(503);
    expect(start.body.code).toBe('upstream_unavailable');
    const read = await s.pos('cashier').get('/customers/wr-ana').expect(503);
    expect(read.body.code).toBe('upstream_unavailable');
    expect(await pending(s)).toBe(0);

    await setFaults(s, []);
    // The claim is kept for the same payment id (unknown outcome), which goes through now.
    await s.pos('cashier').post('/payments', { customerId: 'wr-ana', paymentId: 'wr-sale-1', totalPaid: 50, redemptionId: held.body.id }).expect(201);
    expect(await paymentsOf(s, 'wr-ana')).toEqual(['wr-sale-1']);
  });

  it('a sale void, events and a batch upload are queued (202) and delivered later, each with its own ids', async () => {
    await s.seed('wr-bob', 0);
    await s.pos('cashier').post('/payments', { customerId: 'wr-bob', paymentId: 'wr-sale-2', totalPaid: 30 }).expect(201);
    // Events are queued only when they certainly never left (a 429): after a 5xx they may have been recorded (outbox-maybe-landed.test.ts).
    await setFaults(s, [
      { operation: 'events', status: 429 },
      { operation: '*', status: 503 },
    ]);

    const voided = await s.pos('manager').post('/payments/wr-sale-2/void', { customerId: 'wr-bob' }).expect(202);
    expect(voided.body).toMatchObject({ queued: true, kind: 'refund', refundId: 'void-wr-sale-2', paymentId: 'wr-sale-2', customerId: 'wr-bob' });
    const events = await s
      .pos('kiosk')
      .post('/events', { customerId: 'wr-cy', events: { store_visit: { aisle: 4 }, review_written: { stars: 5 } } })
      .expect(202);
    expect(events.body).toMatchObject({ queued: true, kind: 'events', customerId: 'wr-cy', accepted: ['store_visit', 'review_written'] });
    const tagged = await s
      .pos('kiosk')
      .post('/events', { customerId: 'wr-dee', eventId: 'kiosk-ev-77', events: { store_visit: {} } })
      .expect(202);
    const batch = await s
      .pos('cashier')
      .post('/orders/batch', { orders: [{ customerId: 'wr-eve', orderId: 'wr-order-1', orderDate: new Date().toISOString(), totalPaid: 20 }] })
      .expect(202);
    expect(batch.body).toMatchObject({ queued: true, kind: 'batchOrders', orders: 1 });
    expect(batch.body.jobId).toBeUndefined();
    // The kiosk may look up what it queued.
    const seen = (await s.pos('kiosk').get(`/outbox/${events.body.outboxId}`).expect(200)).body;
    expect(seen).toMatchObject({ kind: 'events', subject: { customerId: 'wr-cy', events: ['store_visit', 'review_written'] } });
    // Queued, or being tried by the worker right now (and failing: the outage goes on).
    expect(['queued', 'delivering']).toContain(seen.state);

    await setFaults(s, []);
    await eventually('the outbox to drain', async () => (await pending(s)) === 0, 20_000);
    const state = async (id: string) => (await s.pos('manager').get(`/outbox/${id}`).expect(200)).body;
    expect(await state(voided.body.outboxId)).toMatchObject({ state: 'delivered', result: { amountRefunded: 30, pointsReversed: 30 } });
    expect((await s.balance('wr-bob')).availablePointsBalance).toBe(0);
    // Each queued event carries a stable id in its metadata: the till's eventId, else the outbox id.
    const cy = (await activity(s, 'wr-cy')).filter((a) => a.type === 'store_visit' || a.type === 'review_written');
    expect(cy.map((a) => [a.type, a.properties.eventId])).toEqual([
      ['store_visit', events.body.outboxId],
      ['review_written', events.body.outboxId],
    ]);
    expect((await activity(s, 'wr-dee')).find((a) => a.type === 'store_visit')?.properties.eventId).toBe('kiosk-ev-77');
    expect((await state(tagged.body.outboxId)).state).toBe('delivered');
    // The batch got its job id on delivery; the till can follow it from there.
    const jobId = (await state(batch.body.outboxId)).result.jobId;
    expect(jobId).toEqual(expect.any(Number));
    await eventually('the batch job', async () => (await s.pos('cashier').get(`/orders/batch/${jobId}`).expect(200)).body.status === 'completed', 20_000);
    expect((await activity(s, 'wr-eve')).map((a) => a.type)).toContain('Order Processed');
  });

  it("a customer's later writes queue behind the queued ones, so a refund never overtakes its sale", async () => {
    await s.seed('wr-fay', 0);
    await setFaults(s, [{ operation: 'payment', status: 503 }]);
    const sale = await s.pos('cashier').post('/payments', { customerId: 'wr-fay', paymentId: 'wr-sale-3', totalPaid: 60 }).expect(202);
    // The upstream is fine for refunds, but the sale is still queued: the refund queues behind it instead of failing with 404.
    const refund = await s.pos('manager').post('/refunds', { customerId: 'wr-fay', refundId: 'wr-ref-3', paymentId: 'wr-sale-3', amount: 20 }).expect(202);
    expect(refund.body.reason).toBe('behind_queued');
    // So do the customer's events and another payment, though the upstream would take them now.
    const events = await s
      .pos('kiosk')
      .post('/events', { customerId: 'wr-fay', events: { store_visit: {} } })
      .expect(202);
    expect(events.body.reason).toBe('behind_queued');
    // Another customer is not held up.
    await s.seed('wr-gus', 0);
    await s.pos('manager').post('/refunds', { customerId: 'wr-gus', refundId: 'wr-ref-4', paymentId: 'wr-none', amount: 5 }).expect(404);

    await setFaults(s, []);
    await eventually('both delivered', async () => (await pending(s)) === 0);
    expect((await activity(s, 'wr-fay')).map((a) => a.type)).toEqual(['Payment Processed', 'Refund Processed', 'store_visit']);
    expect((await s.balance('wr-fay')).availablePointsBalance).toBe(40);
    expect((await s.pos('cashier').get(`/outbox/${sale.body.outboxId}`).expect(200)).body.state).toBe('delivered');
  });

  it("a payment queues behind the customer's queued refund, though the upstream would take it now", async () => {
    await s.seed('wr-hal', 0);
    await s.pos('cashier').post('/payments', { customerId: 'wr-hal', paymentId: 'wr-sale-5', totalPaid: 50 }).expect(201);
    await setFaults(s, [{ operation: 'refund', status: 503 }]);
    const refund = await s.pos('manager').post('/refunds', { customerId: 'wr-hal', refundId: 'wr-ref-5', paymentId: 'wr-sale-5', amount: 10 }).expect(202);
    expect(refund.body.reason).toBe('upstream_unavailable');
    const payment = await s.pos('cashier').post('/payments', { customerId: 'wr-hal', paymentId: 'wr-sale-6', totalPaid: 30 }).expect(202);
    expect(payment.body.reason).toBe('behind_queued');
    expect(await paymentsOf(s, 'wr-hal')).toHaveLength(1);
    await setFaults(s, []);
    await eventually('both delivered', async () => (await pending(s)) === 0);
    expect((await activity(s, 'wr-hal')).map((a) => a.type)).toEqual(['Payment Processed', 'Refund Processed', 'Payment Processed']);
  });
});

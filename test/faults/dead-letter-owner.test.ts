import { startStack, Stack } from '../support/e2e';
import { eventually, paymentsOf, setFaults } from '../pos/outbox/stack-helpers';

/**
 * A queued sale the upstream refused (a 4xx) dies and frees its id; retried
 * by the store's manager, it claims the id again before it is delivered, so
 * the sale stays the store's: its store reads it back, another store's
 * manager can neither refund nor void it. An id taken by another write while
 * the letter was dead refuses the retry, and the dead letter stays.
 */
describe('a retried dead letter keeps its owner (two stores, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      instances: 2,
      env: { LOYALTY_RETRIES: '0', OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_BACKOFF_BASE_MS: '50', OUTBOX_BACKOFF_MAX_MS: '200' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  const stateOf = async (id: string) => (await s.pos('cashier').get(`/outbox/${id}`).expect(200)).body;

  /** Store A's sale queued during an outage, then refused (422) on delivery: a dead letter. */
  async function deadSale(customerId: string, paymentId: string): Promise<string> {
    await s.seed(customerId, 0);
    await setFaults(s, [{ operation: 'payment', status: 503 }]);
    const queued = await s.pos('cashier').post('/payments', { customerId, paymentId, totalPaid: 100 }).expect(202);
    await setFaults(s, [{ operation: 'payment', status: 422 }]);
    const id = queued.body.outboxId as string;
    await eventually('the dead letter', async () => (await stateOf(id)).state === 'dead', 20_000);
    await setFaults(s, []);
    // Refused for good: the claim is gone, as if it was never taken.
    expect(await s.bff.deps.sales.get('payment', paymentId)).toBeNull();
    return id;
  }

  it("retried and delivered, the sale is its store's: read back by it, not refunded or voided by another store", async () => {
    const id = await deadSale('dlo-ana', 'dlo-sale-1');
    await s.pos('manager').post(`/outbox/dead/${id}/retry`).expect(200);
    await eventually('the delivery', async () => (await stateOf(id)).state === 'delivered', 20_000);
    expect(await paymentsOf(s, 'dlo-ana')).toEqual(['dlo-sale-1']);
    expect(await s.bff.deps.sales.get('payment', 'dlo-sale-1')).toMatchObject({ storeId: 'store-001', state: 'recorded' });

    const read = await s.pos('cashier', 1).get('/payments/dlo-sale-1').expect(200);
    expect(read.body).toMatchObject({ paymentId: 'dlo-sale-1', customerId: 'dlo-ana', amountPaid: 100 });
    const refunded = await s.pos('otherManager').post('/refunds', { customerId: 'dlo-ana', refundId: 'dlo-ref-B', paymentId: 'dlo-sale-1', amount: 30 });
    const voided = await s.pos('otherManager', 1).post('/payments/dlo-sale-1/void', { customerId: 'dlo-ana' });
    expect([refunded.status, refunded.body.code]).toEqual([404, 'sale_not_found']);
    expect([voided.status, voided.body.code]).toEqual([404, 'sale_not_found']);
    expect((await s.balance('dlo-ana')).availablePointsBalance).toBe(100);
  });

  it('an id taken by another write meanwhile refuses the retry (dead_letter_id_taken); the dead letter stays', async () => {
    const id = await deadSale('dlo-bo', 'dlo-sale-2');
    // Store B rings up a sale of its own under the freed id.
    await s.pos('otherCashier').post('/payments', { customerId: 'dlo-bo', paymentId: 'dlo-sale-2', totalPaid: 20 }).expect(201);
    const retried = await s.pos('manager').post(`/outbox/dead/${id}/retry`);
    expect([retried.status, retried.body.code]).toEqual([409, 'dead_letter_id_taken']);
    expect((await stateOf(id)).state).toBe('dead');
    expect((await s.pos('manager').get('/outbox/dead').expect(200)).body.deadLetters.map((d: { outboxId: string }) => d.outboxId)).toContain(id);
    // Store B's sale is untouched: still its own.
    expect(await s.bff.deps.sales.get('payment', 'dlo-sale-2')).toMatchObject({ storeId: 'store-002', state: 'recorded' });
    expect(await paymentsOf(s, 'dlo-bo')).toEqual(['dlo-sale-2']);
  });

  it("a claim of the same store under the letter's refund id that asserted another refund (99, not 10) refuses the retry", async () => {
    await s.seed('dlo-cy', 0);
    await s.pos('cashier').post('/payments', { customerId: 'dlo-cy', paymentId: 'dlo-sale-3', totalPaid: 100 }).expect(201);
    await setFaults(s, [{ operation: 'refund', status: 503 }]);
    const queued = await s.pos('manager').post('/refunds', { customerId: 'dlo-cy', refundId: 'dlo-ref-3', paymentId: 'dlo-sale-3', amount: 10 }).expect(202);
    await setFaults(s, [{ operation: 'refund', status: 422 }]);
    const id = queued.body.outboxId as string;
    await eventually('the dead letter', async () => (await stateOf(id)).state === 'dead', 20_000);
    await setFaults(s, []);
    expect(await s.bff.deps.sales.get('refund', 'dlo-ref-3')).toBeNull();
    // Meanwhile this store's till claimed the refund id for a refund of 99 of the same sale (its outcome still open).
    const other = {
      kind: 'refund' as const,
      id: 'dlo-ref-3',
      storeId: 'store-001',
      customerId: 'dlo-cy',
      paymentId: 'dlo-sale-3',
      refundAmount: 99,
      refundLines: null,
      wholeRefund: false,
    };
    expect((await s.bff.deps.sales.claim(other)).ok).toBe(true);
    const retried = await s.pos('manager').post(`/outbox/dead/${id}/retry`);
    expect([retried.status, retried.body.code]).toEqual([409, 'dead_letter_id_taken']);
    expect((await stateOf(id)).state).toBe('dead');
    expect(await s.bff.deps.sales.get('refund', 'dlo-ref-3')).toMatchObject({ refundAmount: 99, state: 'recording' });
    expect((await s.balance('dlo-cy')).availablePointsBalance).toBe(100);
  });
});

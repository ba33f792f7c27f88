import type { Redis } from 'ioredis';
import { isProblem } from '../../../src/platform/problem';
import { claimAgain } from '../../../src/pos/outbox/retry-claims';
import type { OutboxEntry, OutboxWork } from '../../../src/pos/outbox/types';
import { createSaleRecords, type SaleRecords } from '../../../src/pos/sales/records';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';

/*
 * A dead letter's retry claims again every id its write claimed (a payment, a
 * refund, each order of a batch; events none), on a real redis-server and in
 * memory: an id still this write's claim is kept, one another write took
 * refuses the retry and frees what the retry had claimed.
 */

const T = '2025-06-01T10:00:00.000Z';
const dead = (work: OutboxWork): OutboxEntry => ({
  id: 'obx_1',
  work,
  orderKey: 'c-1',
  storeId: 'store-001',
  terminalId: 't-1',
  requestId: 'r-1',
  reason: 'upstream_unavailable',
  state: 'dead',
  attempts: 1,
  nextAttemptAt: 0,
  createdAt: 0,
  updatedAt: 0,
});
const payment: OutboxWork = { kind: 'payment', request: { customerId: 'c-1', paymentId: 'p-1', paymentDate: T, totalPaid: 40 } };
const refund: OutboxWork = {
  kind: 'refund',
  request: { customerId: 'c-1', refundTransactionId: 'r-1', reverseTransactionId: 'p-0', transactionTime: T, refundAmount: 10 },
};
const batch: OutboxWork = {
  kind: 'batchOrders',
  request: {
    body: [
      { customerId: 'c-1', orderId: 'o-1', orderDate: T, totalPaid: 10 },
      { customerId: 'c-2', orderId: 'o-2', orderDate: T, totalPaid: 20 },
    ],
  } as Extract<OutboxWork, { kind: 'batchOrders' }>['request'],
};

describe.each(['redis', 'memory'] as const)('claiming a dead letter’s ids again (%s)', (kind) => {
  let redis: Redis | undefined;
  let prefix: string;
  let records: SaleRecords;
  beforeEach(async () => {
    prefix = uniquePrefix('retry-claims');
    if (kind === 'redis') redis ??= await testRedis();
    records = createSaleRecords({ redis, prefix, ttlDays: 1 });
  });
  afterEach(async () => {
    if (redis) await deleteKeys(redis, prefix);
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it("claims a payment's, a refund's and each order's id for the store (recording); events claim none", async () => {
    await claimAgain(records, dead(payment));
    await claimAgain(records, dead(refund));
    await claimAgain(records, dead(batch));
    await claimAgain(records, dead({ kind: 'events', request: { customerId: 'c-1', events: { visit: {} } } } as OutboxWork));
    expect(await records.get('payment', 'p-1')).toMatchObject({ storeId: 'store-001', customerId: 'c-1', paymentId: 'p-1', totalPaid: 40, state: 'recording' });
    expect(await records.get('refund', 'r-1')).toMatchObject({ storeId: 'store-001', paymentId: 'p-0', refundAmount: 10, state: 'recording' });
    expect(await records.get('payment', 'o-1')).toMatchObject({ customerId: 'c-1', state: 'recording' });
    expect(await records.get('payment', 'o-2')).toMatchObject({ customerId: 'c-2', totalPaid: 20, state: 'recording' });
  });

  it("a sale queued as a tracked order is claimed as one, so a till's retry of it goes out the same way", async () => {
    await claimAgain(records, dead({ ...payment, recordedAs: 'order' } as OutboxWork));
    expect(await records.get('payment', 'p-1')).toMatchObject({ paymentId: 'p-1', recordedAs: 'order', state: 'recording' });
    await claimAgain(records, dead({ ...payment, request: { ...payment.request, paymentId: 'p-2' } } as OutboxWork));
    expect(await records.get('payment', 'p-2')).not.toHaveProperty('recordedAs');
  });

  it('keeps a claim the same write still holds, and frees what it claimed when another write took an id', async () => {
    // The write's own claim stands (its attempts may have landed): the retry carries on.
    await records.claim({ kind: 'payment', id: 'p-1', storeId: 'store-001', customerId: 'c-1', paymentId: 'p-1' });
    await expect(claimAgain(records, dead(payment))).resolves.toEqual(expect.any(Function));
    // Another store's order under o-2: the batch is refused, and o-1, claimed by this retry, is freed again.
    await records.claim({ kind: 'payment', id: 'o-2', storeId: 'store-002', customerId: 'c-2', paymentId: 'o-2' });
    const refused = await claimAgain(records, dead(batch)).catch((e: unknown) => e);
    expect(isProblem(refused, 'dead_letter_id_taken')).toBe(true);
    expect(await records.get('payment', 'o-1')).toBeNull();
    expect(await records.get('payment', 'o-2')).toMatchObject({ storeId: 'store-002' });
    // The same store's refund recorded under the id, nothing it records differing: this write landed already (said so).
    await records.claim({ kind: 'refund', id: 'r-1', storeId: 'store-001', customerId: 'c-1', paymentId: 'p-0', refundAmount: 10 });
    await records.apply('refund', 'r-1', 'recorded');
    const recorded = await claimAgain(records, dead(refund)).catch((e: unknown) => e);
    expect([isProblem(recorded, 'dead_letter_already_recorded'), (recorded as Error).message]).toEqual([true, expect.not.stringMatching(/another write/)]);
  });

  describe('a claim this store holds is kept only when nothing its entry records differs from the queued write', () => {
    it.each([
      ['another amount', { refundAmount: 99 }],
      ['another customer', { customerId: 'c-9' }],
      ['another sale', { paymentId: 'p-9' }],
      ['a whole refund', { refundAmount: null, refundLines: null, wholeRefund: true }],
    ])('a held refund claim of %s refuses the retry, and is left as it was', async (_what, differs) => {
      const held = { kind: 'refund' as const, id: 'r-1', storeId: 'store-001', customerId: 'c-1', paymentId: 'p-0', refundAmount: 10, ...differs };
      await records.claim(held);
      const refused = await claimAgain(records, dead(refund)).catch((e: unknown) => e);
      expect(isProblem(refused, 'dead_letter_id_taken')).toBe(true);
      expect(await records.get('refund', 'r-1')).toMatchObject({ ...held, state: 'recording' });
    });

    it("a held payment claim of another total or another coupon lock refuses it; the write's own claim is kept", async () => {
      const mine = { kind: 'payment' as const, id: 'p-1', storeId: 'store-001', customerId: 'c-1', paymentId: 'p-1', totalPaid: 40, couponLockReference: null };
      await records.claim({ ...mine, totalPaid: 50 });
      expect(isProblem(await claimAgain(records, dead(payment)).catch((e: unknown) => e), 'dead_letter_id_taken')).toBe(true);
      await records.free('payment', 'p-1', 'store-001');
      await records.claim({ ...mine, couponLockReference: 'lock-1', couponCodes: ['C1'] });
      expect(isProblem(await claimAgain(records, dead(payment)).catch((e: unknown) => e), 'dead_letter_id_taken')).toBe(true);
      await records.free('payment', 'p-1', 'store-001');
      await records.claim(mine);
      await expect(claimAgain(records, dead(payment))).resolves.toEqual(expect.any(Function));
    });
  });
});

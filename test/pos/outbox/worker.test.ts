import request from 'supertest';
import { silentLogger } from '../../../src/platform/logger';
import { DeliveryOutcome, MemoryOutboxStore, OutboxEntry, OutboxWorker } from '../../../src/pos/outbox';
import type { LoyaltyClient } from '../../../src/upstream';
import { startOutboxSandbox } from './sandbox';
import { SANDBOX_KEYS } from '../../support/e2e';
import { anEntry, paymentWork, T0 } from './harness';
import { queuedWrite, type IdRecordOf } from '../../../src/pos/outbox/deliver';
import { recordOf } from '../../../src/pos/money/ids/same-write';
import { createSaleRecords } from '../../../src/pos/sales/records';

/** The worker against a real sandbox over HTTP, with the in-process store. */
let up: Awaited<ReturnType<typeof startOutboxSandbox>>;
let admin: ReturnType<typeof request>;
let loyalty: LoyaltyClient;
beforeAll(async () => {
  up = await startOutboxSandbox();
  ({ admin, loyalty } = up);
});
afterAll(() => up.close());
beforeEach(() => up.clearFaults());

async function eventually<T>(fn: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function setup(idRecordOf?: IdRecordOf) {
  const store = new MemoryOutboxStore({ leaseMs: 5000, statusTtlSeconds: 3600 });
  const outcomes: [OutboxEntry, DeliveryOutcome][] = [];
  const worker = new OutboxWorker({
    store,
    loyalty,
    idRecordOf,
    logger: silentLogger,
    pollIntervalMs: 20,
    concurrency: 4,
    leaseMs: 5000,
    maxAttempts: 10,
    backoffBaseMs: 20,
    backoffMaxMs: 100,
    onOutcome: (e, o) => outcomes.push([e, o]),
  });
  return { store, worker, outcomes, drained: () => eventually(async () => (await store.counts()).pending === 0) };
}

const activity = async (customerId: string) =>
  (await admin.get(`/_sandbox/customers/${customerId}/activity`).set(SANDBOX_KEYS).expect(200)).body.activity as {
    type: string;
    properties: Record<string, unknown>;
  }[];
const seed = (customerId: string, points = 0) =>
  admin
    .post('/_sandbox/customers')
    .set(SANDBOX_KEYS)
    .send({ customerId, points })
    .expect((r) => r.status < 300);

it('delivers in order per customer (a refund queued after its payment lands after it), and records what came back', async () => {
  await seed('w-ana');
  await seed('w-bob');
  const { store, worker, outcomes, drained } = setup();
  const pay = await store.enqueue(anEntry(paymentWork('w-ana', 'w-pay-1', 40)), T0);
  const refund = await store.enqueue(
    anEntry({
      kind: 'refund',
      request: { customerId: 'w-ana', refundTransactionId: 'w-ref-1', reverseTransactionId: 'w-pay-1', transactionTime: '2025-03-01T11:00:00.000Z' },
    }),
    T0 + 1,
  );
  const bob = await store.enqueue(anEntry(paymentWork('w-bob', 'w-pay-2', 25)), T0 + 2);
  worker.start();
  await drained();
  await worker.stop();
  expect(await store.get(pay.id, T0)).toMatchObject({ state: 'delivered', attempts: 1, result: { pointsEarned: 40, pointsRedeemed: 0 } });
  expect(await store.get(refund.id, T0)).toMatchObject({ state: 'delivered', result: { amountRefunded: 40, pointsReversed: 40 } });
  expect(await store.get(bob.id, T0)).toMatchObject({ state: 'delivered', result: { pointsEarned: 25 } });
  expect((await activity('w-ana')).map((a) => a.type)).toEqual(['Payment Processed', 'Refund Processed']);
  expect(outcomes.map(([e, o]) => [e.id, o.kind])).toEqual(
    expect.arrayContaining([
      [pay.id, 'delivered'],
      [refund.id, 'delivered'],
      [bob.id, 'delivered'],
    ]),
  );
  expect(worker.deliveredCount).toBe(3);
});

it('retries through 503s with backoff, and the upstream has the payment once', async () => {
  await seed('w-cy');
  await admin
    .put('/_sandbox/faults')
    .set(SANDBOX_KEYS)
    .send({ rules: [{ operation: 'payment', status: 503, times: 3 }] })
    .expect(200);
  const { store, worker, outcomes, drained } = setup();
  const e = await store.enqueue(anEntry(paymentWork('w-cy', 'w-pay-3', 30)), T0);
  worker.start();
  await drained();
  await worker.stop();
  expect(await store.get(e.id, T0)).toMatchObject({ state: 'delivered', attempts: 4, lastError: { code: 'upstream_unavailable', status: 503 } });
  expect(outcomes.map(([, o]) => o.kind)).toEqual(['retry', 'retry', 'retry', 'delivered']);
  expect((await activity('w-cy')).filter((a) => a.type === 'Payment Processed')).toHaveLength(1);
});

it('an upstream duplicate means delivered (an earlier attempt landed); a refusal is a dead letter', async () => {
  await seed('w-dee');
  await loyalty.payment({ customerId: 'w-dee', paymentId: 'w-pay-4', paymentDate: '2025-03-01T10:00:00.000Z', totalPaid: 20, channel: 'pos' });
  // The sale's id entry, as the till's claim stored it when the sale was queued: the duplicate is compared with it.
  const sales = createSaleRecords({ prefix: 'unused:', ttlDays: 1 });
  const work = paymentWork('w-dee', 'w-pay-4', 20);
  if (work.kind !== 'payment') throw new Error('a payment');
  await sales.claim({
    kind: 'payment',
    id: 'w-pay-4',
    storeId: anEntry(work).storeId,
    ...recordOf(queuedWrite(work)),
    customerId: 'w-dee',
    paymentId: 'w-pay-4',
  });
  const { store, worker, drained } = setup((kind, id) => sales.get(kind, id));
  const dup = await store.enqueue(anEntry(work), T0);
  const unknown = await store.enqueue(
    anEntry({
      kind: 'refund',
      request: { customerId: 'w-dee', refundTransactionId: 'w-ref-9', reverseTransactionId: 'w-no-such-sale', transactionTime: '2025-03-01T11:00:00.000Z' },
    }),
    T0,
  );
  worker.start();
  await drained();
  await worker.stop();
  expect(await store.get(dup.id, T0)).toMatchObject({ state: 'delivered', result: { alreadyRecorded: true } });
  expect(await store.get(unknown.id, T0)).toMatchObject({ state: 'dead', attempts: 1, lastError: { code: 'original_transaction_not_found', status: 404 } });
  expect((await store.listDead('store-001', 10, T0)).map((x) => x.id)).toEqual([unknown.id]);
  expect((await activity('w-dee')).filter((a) => a.type === 'Payment Processed')).toHaveLength(1);
});

it('stop() finishes the delivery in hand, then takes nothing more', async () => {
  await seed('w-eve');
  await admin
    .put('/_sandbox/faults')
    .set(SANDBOX_KEYS)
    .send({ rules: [{ operation: 'payment', latencyMs: 300, times: 1 }] })
    .expect(200);
  const { store, worker } = setup();
  const slow = await store.enqueue(anEntry(paymentWork('w-eve', 'w-pay-5', 15)), T0);
  worker.start();
  await eventually(async () => (await store.get(slow.id, T0))?.state === 'delivering');
  const stopping = Date.now();
  await worker.stop();
  expect(Date.now() - stopping).toBeGreaterThan(100);
  expect(await store.get(slow.id, T0)).toMatchObject({ state: 'delivered', result: { pointsEarned: 15 } });
  const later = await store.enqueue(anEntry(paymentWork('w-eve', 'w-pay-6', 15)), T0);
  await new Promise((r) => setTimeout(r, 100));
  expect((await store.get(later.id, T0))?.state).toBe('queued');
});

it('refuses bad settings', () => {
  const store = new MemoryOutboxStore({ leaseMs: 1000, statusTtlSeconds: 60 });
  expect(
    () =>
      new OutboxWorker({
        store,
        loyalty,
        logger: silentLogger,
        pollIntervalMs: 0,
        concurrency: 1,
        leaseMs: 1000,
        maxAttempts: 1,
        backoffBaseMs: 1,
        backoffMaxMs: 1,
      }),
  ).toThrow(RangeError);
});

it("delivers a write whatever its answer's keeper does: a keeper that throws is logged, the write is not sent again", async () => {
  await seed('w-keep');
  const store = new MemoryOutboxStore({ leaseMs: 5000, statusTtlSeconds: 3600 });
  const kept: string[] = [];
  const worker = new OutboxWorker({
    store,
    loyalty,
    logger: silentLogger,
    pollIntervalMs: 20,
    concurrency: 1,
    leaseMs: 5000,
    maxAttempts: 10,
    backoffBaseMs: 20,
    backoffMaxMs: 100,
    recordAnswer: (entry) => {
      kept.push(entry.id);
      return Promise.reject(new Error('keeper down'));
    },
  });
  const pay = await store.enqueue(anEntry(paymentWork('w-keep', 'w-keep-1', 30)), T0);
  worker.start();
  await eventually(async () => (await store.counts()).pending === 0);
  await worker.stop();
  expect(await store.get(pay.id, T0)).toMatchObject({ state: 'delivered', attempts: 1 });
  expect(kept).toEqual([pay.id]);
  expect((await activity('w-keep')).filter((a) => a.type === 'Payment Processed')).toHaveLength(1);
});

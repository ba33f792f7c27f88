import request from 'supertest';
import { silentLogger } from '../../../src/platform/logger';
import { DeliveryOutcome, OutboxEntry, OutboxWork, OutboxWorker } from '../../../src/pos/outbox';
import type { LoyaltyClient } from '../../../src/upstream';
import { startOutboxSandbox } from './sandbox';
import { waitFor } from '../../e2e/helpers';
import { SANDBOX_KEYS } from '../../support/e2e';
import { anEntry, memoryOutbox, OutboxHarness, redisOutbox, T0 } from './harness';

/**
 * Events carry no id the loyalty service could refuse a copy by, so a queued
 * event is sent at most once: a send that started and was never recorded (its
 * worker killed mid-send, its lease run out) ends the entry as a dead letter,
 * unsent; a send that certainly never left is tried again. A real sandbox over
 * HTTP, the Redis and memory outbox stores.
 */
let up: Awaited<ReturnType<typeof startOutboxSandbox>>;
let admin: ReturnType<typeof request>;
let loyalty: LoyaltyClient;
beforeAll(async () => {
  up = await startOutboxSandbox();
  ({ admin, loyalty } = up);
});
afterAll(() => up.close());
beforeEach(() => up.clearFaults());

const visit = (customerId: string): OutboxWork => ({ kind: 'events', request: { customerId, events: { store_visit: { aisle: 3 } } } }) as OutboxWork;
const visits = async (customerId: string) =>
  ((await admin.get(`/_sandbox/customers/${customerId}/activity`).set(SANDBOX_KEYS).expect(200)).body.activity as { type: string }[]).filter(
    (a) => a.type === 'store_visit',
  ).length;

function workerOn(h: OutboxHarness, outcomes: [OutboxEntry, DeliveryOutcome][]) {
  return new OutboxWorker({
    store: h.store,
    loyalty,
    logger: silentLogger,
    pollIntervalMs: 20,
    concurrency: 2,
    leaseMs: h.leaseMs,
    maxAttempts: 10,
    backoffBaseMs: 20,
    backoffMaxMs: 100,
    onOutcome: (e, o) => outcomes.push([e, o]),
  });
}

describe.each([
  ['Redis', redisOutbox],
  ['memory', memoryOutbox],
])('a queued event is sent at most once (%s outbox)', (_name, make) => {
  let h: OutboxHarness;
  afterEach(async () => h?.cleanup());

  it('a send that started under a worker that died is never sent again: a dead letter event_maybe_recorded', async () => {
    h = await make({ leaseMs: 2000 });
    const customerId = `once-${_name}-a`;
    await admin.post('/_sandbox/customers').set(SANDBOX_KEYS).send({ customerId, points: 0 });
    const entry = await h.store.enqueue(anEntry(visit(customerId)), T0);
    // The worker that took it first marked its send and was killed before it recorded anything.
    expect(await h.store.startSend(entry.id)).toBe(true);
    const outcomes: [OutboxEntry, DeliveryOutcome][] = [];
    const worker = workerOn(h, outcomes);
    worker.start();
    try {
      await waitFor('the entry to end', () => outcomes.length > 0, 15_000);
    } finally {
      await worker.stop();
    }
    expect(outcomes[0][1]).toMatchObject({ kind: 'dead', error: { code: 'event_maybe_recorded' } });
    expect(await visits(customerId)).toBe(0);
  });

  it('a send that certainly never left (the service refused it at its limit, 429) is sent again, and lands once', async () => {
    h = await make({ leaseMs: 2000 });
    const customerId = `once-${_name}-b`;
    await admin.post('/_sandbox/customers').set(SANDBOX_KEYS).send({ customerId, points: 0 });
    await admin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'events', status: 429, times: 1 }] })
      .expect(200);
    await h.store.enqueue(anEntry(visit(customerId)), T0);
    const outcomes: [OutboxEntry, DeliveryOutcome][] = [];
    const worker = workerOn(h, outcomes);
    worker.start();
    try {
      await waitFor('the entry to be delivered', () => outcomes.some(([, o]) => o.kind === 'delivered'), 15_000);
    } finally {
      await worker.stop();
    }
    expect(outcomes.map(([, o]) => o.kind)).toEqual(['retry', 'delivered']);
    expect(await visits(customerId)).toBe(1);
  });
  it('a send mark that cannot be written (Redis away) sends nothing and is tried again later, not given up', async () => {
    h = await make({ leaseMs: 2000 });
    const customerId = `once-${_name}-c`;
    await admin.post('/_sandbox/customers').set(SANDBOX_KEYS).send({ customerId, points: 0 });
    await h.store.enqueue(anEntry(visit(customerId)), T0);
    const startSend = h.store.startSend.bind(h.store);
    let failures = 0;
    h.store.startSend = (id: string) => (failures++ === 0 ? Promise.reject(new Error('Redis is unavailable')) : startSend(id));
    const outcomes: [OutboxEntry, DeliveryOutcome][] = [];
    const worker = workerOn(h, outcomes);
    worker.start();
    try {
      await waitFor('the entry to be delivered', () => outcomes.some(([, o]) => o.kind === 'delivered'), 15_000);
    } finally {
      await worker.stop();
    }
    expect(outcomes.map(([, o]) => o.kind)).toEqual(['retry', 'delivered']);
    expect(outcomes[0][1]).toMatchObject({ kind: 'retry', counted: false });
    expect(await visits(customerId)).toBe(1);
  });
});

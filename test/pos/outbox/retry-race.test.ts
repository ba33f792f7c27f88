import { silentLogger } from '../../../src/platform/logger';
import { isProblem } from '../../../src/platform/problem';
import type { CallContext } from '../../../src/pos/context';
import { retryDeadLetter, type DeadLetterDeps } from '../../../src/pos/outbox/operations';
import type { OutboxStore } from '../../../src/pos/outbox';
import { createSaleRecords, type SaleRecords } from '../../../src/pos/sales/records';
import { anEntry, paymentWork, redisOutbox, T0, type OutboxHarness } from './harness';

/*
 * Two managers retrying one dead letter at once, on two instances sharing a
 * real redis-server: the first claims the sale id again, the second finds it
 * this write's claim and puts the letter back first. The first's own
 * put-back then finds no dead letter, and must not free the claim the queued
 * letter's delivery depends on. The interleaving is made certain by holding
 * the first instance's put-back until the second retry has finished.
 */

const ctx = { requestId: 'rq-1', identity: { store: { id: 'store-001' }, terminal: { id: 'mgr-1' } } } as unknown as CallContext;

let h: OutboxHarness;
let sales: SaleRecords;
beforeEach(async () => {
  h = await redisOutbox();
  sales = createSaleRecords({ redis: h.redis, prefix: h.prefix!, ttlDays: 1 });
});
afterEach(async () => {
  await h.cleanup();
});

/** A sale queued, then refused for good on delivery (a dead letter), its claim freed as the outbox frees it. */
async function deadSale(paymentId: string): Promise<string> {
  const e = await h.store.enqueue(anEntry(paymentWork('c-race', paymentId, 40)), T0);
  const [taken] = await h.store.take('w-1', T0, 1);
  await h.store.finish(taken, 'w-1', { kind: 'dead', error: { code: 'upstream_rejected', message: 'refused', status: 422, at: T0 } }, T0);
  expect(await h.store.get(e.id, T0)).toMatchObject({ state: 'dead' });
  expect(await sales.get('payment', paymentId)).toBeNull();
  return e.id;
}

/** An instance whose put-back waits at `gate` (after its claims were taken) and then does `then`. */
function heldAtPutBack(store: OutboxStore, then: 'put back' | 'fail') {
  let reached!: () => void;
  let release!: () => void;
  const atGate = new Promise<void>((r) => (reached = r));
  const gate = new Promise<void>((r) => (release = r));
  const outbox: OutboxStore = Object.create(store, {
    retryDead: {
      value: async (id: string, storeId: string, now: number) => {
        reached();
        await gate;
        if (then === 'fail') throw new Error('Redis connection lost');
        return store.retryDead(id, storeId, now);
      },
    },
  });
  return { outbox, atGate, release };
}

const depsWith = (outbox: OutboxStore): DeadLetterDeps => ({ outbox, sales, logger: silentLogger, clock: () => T0 });

describe('a retried dead letter keeps its claims', () => {
  it('two retries at once: the one that finds the letter already put back frees nothing the queued letter needs', async () => {
    const id = await deadSale('p-race-1');
    const first = heldAtPutBack(h.store, 'put back');
    const firstRetry = retryDeadLetter(depsWith(first.outbox), ctx, id).catch((e: unknown) => e);
    await first.atGate;
    expect(await sales.get('payment', 'p-race-1')).toMatchObject({ storeId: 'store-001', state: 'recording' });

    const second = await retryDeadLetter(depsWith(await h.twin()), ctx, id);
    expect(second).toMatchObject({ outboxId: id, state: 'queued' });
    first.release();
    expect(isProblem(await firstRetry, 'outbox_entry_not_found')).toBe(true);

    // The letter is queued again and its sale id still claimed for its store, as its delivery needs.
    expect(await h.store.get(id, T0)).toMatchObject({ state: 'queued' });
    expect(await sales.get('payment', 'p-race-1')).toMatchObject({ storeId: 'store-001', customerId: 'c-race', totalPaid: 40, state: 'recording' });
  });

  it('a put-back that fails while the letter is still dead frees what it claimed (no claim left behind)', async () => {
    const id = await deadSale('p-race-2');
    const failing = heldAtPutBack(h.store, 'fail');
    const retry = retryDeadLetter(depsWith(failing.outbox), ctx, id).catch((e: unknown) => e);
    await failing.atGate;
    expect(await sales.get('payment', 'p-race-2')).toMatchObject({ state: 'recording' });
    failing.release();
    expect(await retry).toEqual(new Error('Redis connection lost'));
    expect(await h.store.get(id, T0)).toMatchObject({ state: 'dead' });
    expect(await sales.get('payment', 'p-race-2')).toBeNull();
  });
});

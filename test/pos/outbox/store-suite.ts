import type { DeliveryOutcome, OutboxEntry, OutboxStore } from '../../../src/pos/outbox';
import { anEntry, OutboxHarness, OutboxHarnessFactory, paymentWork, T0 } from './harness';

const delivered = (result: Record<string, unknown> = { pointsEarned: 10 }): DeliveryOutcome => ({ kind: 'delivered', result });
const failure = (code = 'upstream_unavailable', status = 503) => ({ code, message: `failed: ${code}`, status, at: T0 });
const ids = (entries: OutboxEntry[]) => entries.map((e) => e.id);

/** Takes and delivers until nothing is left, alternating consumers; returns ids in delivery order. */
async function drain(stores: { store: OutboxStore; consumer: string }[], now: number): Promise<string[]> {
  const order: string[] = [];
  for (let round = 0, idle = 0; idle < stores.length * 2 && round < 1000; round++) {
    const { store, consumer } = stores[round % stores.length];
    const taken = await store.take(consumer, now, 3);
    idle = taken.length ? 0 : idle + 1;
    for (const e of taken) {
      await store.finish(e, consumer, delivered(), now);
      order.push(e.id);
    }
  }
  return order;
}

/** The behaviour every OutboxStore must have; run against each implementation. */
export function outboxStoreSuite(name: string, make: OutboxHarnessFactory): void {
  describe(`${name}: OutboxStore contract`, () => {
    let h: OutboxHarness;
    let store: OutboxStore;
    beforeEach(async () => {
      h = await make();
      store = h.store;
    });
    afterEach(() => h.cleanup());

    it('enqueues and reads back every field, queued with no attempts', async () => {
      const entry = anEntry(paymentWork('ana', 'pay|"1"', 12.5), { reason: 'upstream_timeout' });
      const back = await store.enqueue(entry, T0);
      const want = { ...entry, state: 'queued', attempts: 0, nextAttemptAt: 0, createdAt: T0, updatedAt: T0 };
      expect(back).toEqual(want);
      expect(await store.get(entry.id, T0)).toEqual(want);
      expect(await store.get('obx_missing00', T0)).toBeNull();
      expect(await store.hasPending('customer:ana')).toBe(true);
      expect(await store.hasPending('customer:bob')).toBe(false);
      expect(await store.counts()).toEqual({ pending: 1, dead: 0 });
      await expect(store.enqueue(entry, T0)).rejects.toThrow(/already exists/);
    });

    it('hands out only the oldest entry of each key, leases the key, and moves on once it is delivered', async () => {
      const a1 = await store.enqueue(anEntry(paymentWork('a', 'a1')), T0);
      const a2 = await store.enqueue(anEntry(paymentWork('a', 'a2')), T0 + 1);
      const b1 = await store.enqueue(anEntry(paymentWork('b', 'b1')), T0 + 2);
      const first = await store.take('c1', T0, 10);
      expect(ids(first).sort()).toEqual([a1.id, b1.id].sort());
      expect(first.every((e) => e.state === 'delivering')).toBe(true);
      expect((await store.get(a1.id, T0))?.state).toBe('delivering');
      // Both keys are leased: nobody (not even c1) gets more of them now.
      expect(await store.take('c1', T0, 10)).toEqual([]);
      const twin = await h.twin();
      expect(await twin.take('c2', T0, 10)).toEqual([]);

      await store.finish(
        first.find((e) => e.id === a1.id)!,
        'c1',
        delivered({ pointsEarned: 7 }),
        T0 + 10,
      );
      expect(ids(await store.take('c1', T0 + 10, 10))).toEqual([a2.id]);
      const a1Now = await store.get(a1.id, T0);
      expect(a1Now).toMatchObject({ state: 'delivered', attempts: 1, deliveredAt: T0 + 10, updatedAt: T0 + 10, result: { pointsEarned: 7 } });
      expect(await store.counts()).toEqual({ pending: 2, dead: 0 });
    });

    it('a retry waits for its time and keeps its place; only sends that went out count as attempts', async () => {
      const a1 = await store.enqueue(anEntry(paymentWork('a', 'a1')), T0);
      const a2 = await store.enqueue(anEntry(paymentWork('a', 'a2')), T0);
      const [taken] = await store.take('c1', T0, 1);
      await store.finish(taken, 'c1', { kind: 'retry', error: failure(), nextAttemptAt: T0 + 5000, counted: true }, T0);
      expect(await store.get(a1.id, T0)).toMatchObject({ state: 'queued', attempts: 1, nextAttemptAt: T0 + 5000, lastError: failure() });
      expect(await store.take('c1', T0 + 4999, 5)).toEqual([]);
      const again = await store.take('c1', T0 + 5000, 5);
      expect(ids(again)).toEqual([a1.id]);
      await store.finish(again[0], 'c1', { kind: 'retry', error: failure('upstream_circuit_open'), nextAttemptAt: T0 + 6000, counted: false }, T0 + 5000);
      expect(await store.get(a1.id, T0)).toMatchObject({ state: 'queued', attempts: 1, lastError: { code: 'upstream_circuit_open' } });
      const third = await store.take('c1', T0 + 6000, 5);
      expect(ids(third)).toEqual([a1.id]);
      await store.finish(third[0], 'c1', delivered(), T0 + 6000);
      expect(ids(await store.take('c1', T0 + 6000, 5))).toEqual([a2.id]);
      expect((await store.get(a1.id, T0))?.attempts).toBe(2);
    });

    it("order across instances: while a key's first entry waits for its retry, another consumer holding the next one does not deliver it first", async () => {
      const twin = await h.twin();
      const sale = await store.enqueue(anEntry(paymentWork('a', 'sale')), T0);
      const [taken] = await store.take('c1', T0, 5);
      expect(taken.id).toBe(sale.id);
      // The refund is queued after c1 took the sale, so the other instance (c2) is the one that reads it.
      const refund = await store.enqueue(anEntry(paymentWork('a', 'refund')), T0 + 1);
      expect(await twin.take('c2', T0 + 1, 5)).toEqual([]);
      // The sale fails and waits 5 s; its lease is given back, so only its place at the head protects the order.
      await store.finish(taken, 'c1', { kind: 'retry', error: failure(), nextAttemptAt: T0 + 5000, counted: true }, T0 + 2);
      expect(await twin.take('c2', T0 + 10, 5)).toEqual([]);
      expect(await twin.take('c2', T0 + 4999, 5)).toEqual([]);
      expect((await store.get(refund.id, T0))?.state).toBe('queued');
      // Once the sale is due, it goes first (from whoever holds it); then the refund.
      const order = await drain(
        [
          { store: twin, consumer: 'c2' },
          { store, consumer: 'c1' },
        ],
        T0 + 5000,
      );
      expect(order).toEqual([sale.id, refund.id]);
    });

    it('dead letters: the key moves on; listed for their store only; retried to the end of the key, or discarded', async () => {
      const a1 = await store.enqueue(anEntry(paymentWork('a', 'a1')), T0);
      const a2 = await store.enqueue(anEntry(paymentWork('a', 'a2')), T0);
      const other = await store.enqueue(anEntry(paymentWork('z', 'z1'), { storeId: 'store-002' }), T0);
      const taken = await store.take('c1', T0, 5);
      await store.finish(
        taken.find((e) => e.id === a1.id)!,
        'c1',
        { kind: 'dead', error: failure('original_transaction_not_found', 404) },
        T0 + 1,
      );
      await store.finish(
        taken.find((e) => e.id === other.id)!,
        'c1',
        { kind: 'dead', error: failure('upstream_rejected', 422) },
        T0 + 2,
      );
      expect(await store.get(a1.id, T0)).toMatchObject({
        state: 'dead',
        deadAt: T0 + 1,
        attempts: 1,
        lastError: { code: 'original_transaction_not_found', status: 404 },
      });
      expect(await store.counts()).toEqual({ pending: 1, dead: 2 });
      expect(ids(await store.listDead('store-001', 10, T0))).toEqual([a1.id]);
      expect(ids(await store.listDead('store-002', 10, T0))).toEqual([other.id]);
      expect(await store.listDead('store-003', 10, T0)).toEqual([]);

      // Another store cannot touch it.
      expect(await store.retryDead(a1.id, 'store-002', T0)).toBeNull();
      expect(await store.discardDead(a1.id, 'store-002', T0)).toBeNull();
      expect(await store.retryDead(a2.id, 'store-001', T0)).toBeNull();

      const retried = await store.retryDead(a1.id, 'store-001', T0 + 3);
      expect(retried).toMatchObject({ id: a1.id, state: 'queued', attempts: 0, nextAttemptAt: 0, updatedAt: T0 + 3 });
      expect(retried?.deadAt).toBeUndefined();
      expect(await store.listDead('store-001', 10, T0)).toEqual([]);
      // Back at the end of its key: a2 first.
      const [a2Taken] = await store.take('c1', T0 + 3, 5);
      expect(a2Taken.id).toBe(a2.id);
      expect(await store.take('c1', T0 + 3, 5)).toEqual([]);
      await store.finish(a2Taken, 'c1', delivered(), T0 + 3);
      expect(ids(await store.take('c1', T0 + 3, 5))).toEqual([a1.id]);

      const discarded = await store.discardDead(other.id, 'store-002', T0 + 4);
      expect(discarded).toMatchObject({ id: other.id, state: 'discarded', updatedAt: T0 + 4 });
      expect(await store.discardDead(other.id, 'store-002', T0 + 5)).toBeNull();
      expect(await store.retryDead(other.id, 'store-002', T0 + 5)).toBeNull();
      expect(await store.listDead('store-002', 10, T0)).toEqual([]);
      expect(await store.counts()).toEqual({ pending: 1, dead: 0 });
    });

    it('lists dead letters newest first, up to the limit', async () => {
      const dead: string[] = [];
      for (let i = 0; i < 5; i++) {
        const e = await store.enqueue(anEntry(paymentWork(`d${i}`, `p${i}`)), T0);
        const [t] = await store.take('c1', T0, 1);
        expect(t.id).toBe(e.id);
        await store.finish(t, 'c1', { kind: 'dead', error: failure('upstream_rejected', 422) }, T0 + i);
        dead.push(e.id);
      }
      expect(ids(await store.listDead('store-001', 3, T0))).toEqual([dead[4], dead[3], dead[2]]);
    });

    it('a finish from a consumer whose lease ran out does not undo what another recorded', async () => {
      await h.cleanup();
      h = await make({ leaseMs: 150 });
      store = h.store;
      const a1 = await store.enqueue(anEntry(paymentWork('a', 'a1')), T0);
      const [mine] = await store.take('c1', T0, 1);
      expect(await store.renew(mine, 'c1')).toBe(true);
      const twin = await h.twin();
      expect(await twin.renew(mine, 'c2')).toBe(false);
      await h.passLease();
      expect(await store.renew(mine, 'c1')).toBe(false);
      // c1 "died"; c2 takes the entry over once the lease (and, for Redis, the idle time) has passed.
      const theirs = await twin.take('c2', T0, 1);
      expect(ids(theirs)).toEqual([a1.id]);
      await twin.finish(theirs[0], 'c2', delivered({ pointsEarned: 3 }), T0 + 1);
      await store.finish(mine, 'c1', { kind: 'retry', error: failure(), nextAttemptAt: T0 + 9, counted: true }, T0 + 2);
      expect(await store.get(a1.id, T0)).toMatchObject({ state: 'delivered', attempts: 1, result: { pointsEarned: 3 } });
      expect(await store.take('c1', T0 + 10, 5)).toEqual([]);
      expect(await store.hasPending('customer:a')).toBe(false);
    });

    it('release: a consumer stopping cleanly lets another take what it held at once', async () => {
      const a1 = await store.enqueue(anEntry(paymentWork('a', 'a1')), T0);
      const [t] = await store.take('c1', T0, 1);
      await store.finish(t, 'c1', { kind: 'retry', error: failure(), nextAttemptAt: T0, counted: true }, T0);
      await store.release('c1');
      const twin = await h.twin();
      expect(ids(await twin.take('c2', T0, 1))).toEqual([a1.id]);
    });

    it('two consumers deliver 60 entries over 6 keys exactly once each, in order per key', async () => {
      const byKey = new Map<string, string[]>();
      for (let i = 0; i < 60; i++) {
        const key = `k${i % 6}`;
        const e = await store.enqueue(anEntry(paymentWork(key, `p${i}`)), T0 + i);
        byKey.set(`customer:${key}`, [...(byKey.get(`customer:${key}`) ?? []), e.id]);
      }
      const twin = await h.twin();
      const order = await drain(
        [
          { store, consumer: 'c1' },
          { store: twin, consumer: 'c2' },
        ],
        T0 + 100,
      );
      expect(order).toHaveLength(60);
      expect(new Set(order).size).toBe(60);
      for (const [key, want] of byKey) {
        expect(order.filter((id) => want.includes(id))).toEqual(want);
        expect(await store.hasPending(key)).toBe(false);
      }
      expect(await store.counts()).toEqual({ pending: 0, dead: 0 });
    });
  });
}

import { memoryOutbox, anEntry, paymentWork, T0 } from './harness';
import { outboxStoreSuite } from './store-suite';

outboxStoreSuite('MemoryOutboxStore', memoryOutbox);

describe('MemoryOutboxStore retention (the in-memory twin of Redis TTLs)', () => {
  it('forgets delivered and discarded records after the status TTL, keeps queued and dead ones', async () => {
    const h = await memoryOutbox({ statusTtlSeconds: 60 });
    const { store } = h;
    const done = await store.enqueue(anEntry(paymentWork('a', 'a1')), T0);
    const dead = await store.enqueue(anEntry(paymentWork('b', 'b1')), T0);
    const waiting = await store.enqueue(anEntry(paymentWork('a', 'a2')), T0);
    for (const e of await store.take('c1', T0, 5)) {
      await store.finish(
        e,
        'c1',
        e.id === done.id ? { kind: 'delivered', result: {} } : { kind: 'dead', error: { code: 'upstream_rejected', message: 'no', at: T0 } },
        T0,
      );
    }
    h.passSeconds(59);
    expect((await store.get(done.id, T0))?.state).toBe('delivered');
    h.passSeconds(1);
    expect(await store.get(done.id, T0)).toBeNull();
    expect((await store.get(dead.id, T0))?.state).toBe('dead');
    expect((await store.get(waiting.id, T0))?.state).toBe('queued');
    await store.discardDead(dead.id, 'store-001', T0);
    h.passSeconds(60);
    // A later enqueue purges what is due, too.
    await store.enqueue(anEntry(paymentWork('c', 'c1')), T0);
    expect(await store.get(dead.id, T0)).toBeNull();
  });
});

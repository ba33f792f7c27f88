import { MemoryIdempotencyStore } from '../../../src/pos/idempotency';
import { idempotencyStoreSuite, LEASE, slot, T0 } from './store-suite';

idempotencyStoreSuite('MemoryIdempotencyStore', async () => {
  const store = new MemoryIdempotencyStore();
  return { store, twin: async () => store, cleanup: () => store.close() };
});

describe('MemoryIdempotencyStore housekeeping', () => {
  it('purges lapsed records as claims go on, so memory does not grow for the whole TTL', async () => {
    const store = new MemoryIdempotencyStore();
    for (let i = 0; i < 600; i++) await store.begin(slot(`k${i}`), { fingerprint: 'f', owner: 'o', now: T0, leaseMs: LEASE });
    expect(store.size).toBe(600);
    for (let i = 0; i < 512; i++) await store.begin(slot(`later${i}`), { fingerprint: 'f', owner: 'o', now: T0 + LEASE, leaseMs: LEASE });
    expect(store.size).toBeLessThan(600);
  });
});

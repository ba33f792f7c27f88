import { randomUUID } from 'node:crypto';
import type { IdempotencySlot, IdempotencyStore, StoredResponse } from '../../../src/pos/idempotency';

export const T0 = 1_760_000_000_000;
export const LEASE = 30_000;
export const TTL = 24 * 3_600_000;

export interface IdempotencyHarness {
  store: IdempotencyStore;
  /** Another store over the same records (for Redis: its own connection, as a second BFF instance). */
  twin(): Promise<IdempotencyStore>;
  cleanup(): Promise<void>;
}

const created: StoredResponse = {
  status: 201,
  contentType: 'application/json; charset=utf-8',
  location: '/pos/v1/redemptions/rdm_1',
  body: '{"id":"rdm_1","note":"ünïcødé ✓"}',
};

export function slot(key = `k-${randomUUID()}`, terminalId = 'store-001-cashier'): IdempotencySlot {
  return { terminalId, key };
}

function claim(fingerprint = 'fp-a', now = T0, owner: string = randomUUID()) {
  return { fingerprint, owner, now, leaseMs: LEASE };
}

/** The behaviour every IdempotencyStore must have; run against each implementation. */
export function idempotencyStoreSuite(name: string, makeHarness: () => Promise<IdempotencyHarness>): void {
  describe(`${name}: IdempotencyStore contract`, () => {
    let h: IdempotencyHarness;
    let store: IdempotencyStore;
    beforeEach(async () => {
      h = await makeHarness();
      store = h.store;
    });
    afterEach(() => h.cleanup());

    it('claims a free key once; a second claim sees it running, then done with the response', async () => {
      const s = slot();
      const first = claim();
      expect(await store.begin(s, first)).toEqual({ kind: 'claimed' });
      expect(await store.begin(s, claim('fp-a', T0 + 1))).toEqual({ kind: 'running', fingerprint: 'fp-a', expiresAt: T0 + LEASE });
      expect(await store.complete(s, first.owner, 'fp-a', created, T0 + 5, TTL)).toBe(true);
      expect(await store.begin(s, claim('fp-a', T0 + 6))).toEqual({ kind: 'done', fingerprint: 'fp-a', response: created });
    });

    it('reports the stored fingerprint to a different request under the same key', async () => {
      const s = slot();
      const first = claim('fp-a');
      await store.begin(s, first);
      expect(await store.begin(s, claim('fp-b'))).toMatchObject({ kind: 'running', fingerprint: 'fp-a' });
      await store.complete(s, first.owner, 'fp-a', created, T0, TTL);
      expect(await store.begin(s, claim('fp-b'))).toMatchObject({ kind: 'done', fingerprint: 'fp-a' });
    });

    it("frees a crashed request's key when its lease lapses; the old owner can then change nothing", async () => {
      const s = slot();
      const crashed = claim('fp-a', T0);
      await store.begin(s, crashed);
      expect((await store.begin(s, claim('fp-a', T0 + LEASE - 1))).kind).toBe('running');
      const next = claim('fp-a', T0 + LEASE);
      expect(await store.begin(s, next)).toEqual({ kind: 'claimed' });
      expect(await store.renew(s, crashed.owner, T0 + LEASE + 1, LEASE)).toBe(false);
      expect(await store.complete(s, crashed.owner, 'fp-a', created, T0 + LEASE + 1, TTL)).toBe(false);
      expect(await store.release(s, crashed.owner)).toBe(false);
      expect(await store.begin(s, claim('fp-a', T0 + LEASE + 2))).toMatchObject({ kind: 'running', expiresAt: T0 + 2 * LEASE });
    });

    it('renewing moves the lease forward from the renewal time', async () => {
      const s = slot();
      const c = claim('fp-a', T0);
      await store.begin(s, c);
      expect(await store.renew(s, c.owner, T0 + 20_000, LEASE)).toBe(true);
      expect(await store.begin(s, claim('fp-a', T0 + 40_000))).toEqual({ kind: 'running', fingerprint: 'fp-a', expiresAt: T0 + 50_000 });
      expect((await store.begin(s, claim('fp-a', T0 + 50_000))).kind).toBe('claimed');
    });

    it('an owner past its lease that nobody replaced still completes', async () => {
      const s = slot();
      const c = claim('fp-a', T0);
      await store.begin(s, c);
      expect(await store.complete(s, c.owner, 'fp-a', created, T0 + LEASE + 1000, TTL)).toBe(true);
      expect((await store.begin(s, claim('fp-a', T0 + LEASE + 2000))).kind).toBe('done');
    });

    it('release frees the key for its owner only', async () => {
      const s = slot();
      const c = claim();
      await store.begin(s, c);
      expect(await store.release(s, randomUUID())).toBe(false);
      expect((await store.begin(s, claim())).kind).toBe('running');
      expect(await store.release(s, c.owner)).toBe(true);
      expect(await store.release(s, c.owner)).toBe(false);
      expect((await store.begin(s, claim())).kind).toBe('claimed');
    });

    it('a done record cannot be completed or released again, and lives exactly the TTL', async () => {
      const s = slot();
      const c = claim();
      await store.begin(s, c);
      await store.complete(s, c.owner, 'fp-a', created, T0, TTL);
      expect(await store.complete(s, c.owner, 'fp-a', { ...created, status: 500 }, T0, TTL)).toBe(false);
      expect(await store.release(s, c.owner)).toBe(false);
      expect(await store.begin(s, claim('fp-a', T0 + TTL - 1))).toMatchObject({ kind: 'done', response: created });
      expect((await store.begin(s, claim('fp-a', T0 + TTL))).kind).toBe('claimed');
    });

    it('scopes keys to the terminal', async () => {
      await store.begin(slot('shared-key', 'till-a'), claim());
      expect((await store.begin(slot('shared-key', 'till-b'), claim())).kind).toBe('claimed');
      expect((await store.begin(slot('shared-key', 'till-a'), claim())).kind).toBe('running');
    });

    it('keeps keys with any visible ASCII apart, and a response without optional fields', async () => {
      const keys = ['{a}', 'a:b', 'a"b\\c', "~!@#$%^&*()_+`-=[]|;',./<>?", 'x'.repeat(255)];
      for (const k of keys) {
        const c = claim(`fp-${k}`);
        expect((await store.begin(slot(k), c)).kind).toBe('claimed');
        await store.complete(slot(k), c.owner, `fp-${k}`, { status: 200, body: k }, T0, TTL);
      }
      for (const k of keys) expect(await store.begin(slot(k), claim())).toEqual({ kind: 'done', fingerprint: `fp-${k}`, response: { status: 200, body: k } });
    });

    it('lets exactly one of 20 concurrent claims (from two instances) win', async () => {
      const other = await h.twin();
      const s = slot();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).begin(s, claim('fp-a', T0 + i))));
      expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'running')).toHaveLength(19);
    });
  });
}

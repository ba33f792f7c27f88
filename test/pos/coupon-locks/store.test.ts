import { silentLogger } from '../../../src/platform/logger';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../../src/platform/errors';
import {
  type CouponLock,
  type CouponLockStore,
  CouponLockSweeper,
  MemoryCouponLockStore,
  RECHECK_MS,
  RedisCouponLockStore,
} from '../../../src/pos/coupons/locks';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';
import { aLock, T0 } from './harness';
import { DEFAULT_CLAIM_LEASE_MS } from '../../../src/pos/money/lease';
import type { IdEntry } from '../../../src/pos/money/ids/records';
import type { WriteRecord } from '../../../src/pos/money/ids/same-write';

const noTransactions = async (): Promise<never> => {
  throw new NotFoundError('transaction_not_found', 'The transaction was not found');
};
/** The sale ids' records as the sweeper reads them: the entries of the payments that claimed locks. */
const salesOf = (...entries: (IdEntry & WriteRecord)[]) => ({ get: async (_kind: 'payment', id: string) => entries.find((e) => e.id === id) ?? null });
const noSales = salesOf();
const noHold = async (): Promise<never> => {
  throw new Error("a coupon lock's payment uses no hold: never looked up");
};

interface Harness {
  store: CouponLockStore;
  twin(): Promise<CouponLockStore>;
  cleanup(): Promise<void>;
}

async function memoryHarness(): Promise<Harness> {
  const store = new MemoryCouponLockStore();
  return { store, twin: async () => store, cleanup: async () => undefined };
}

/** Two instances on one private test Redis, each on its own connection. */
async function redisHarness(): Promise<Harness> {
  const prefix = uniquePrefix('cpl');
  const connections = [await testRedis()];
  return {
    store: new RedisCouponLockStore(connections[0], { prefix }),
    twin: async () => {
      connections.push(await testRedis());
      return new RedisCouponLockStore(connections[connections.length - 1], { prefix });
    },
    cleanup: async () => {
      await deleteKeys(connections[0], prefix);
      await Promise.all(connections.map((c) => c.quit()));
    },
  };
}

describe.each([
  ['memory', memoryHarness],
  ['redis', redisHarness],
] as const)('CouponLockStore over %s', (_kind, makeHarness) => {
  let h: Harness;
  beforeEach(async () => {
    h = await makeHarness();
  });
  afterEach(() => h.cleanup());

  it('creates a lock once and reads it back', async () => {
    const lock = aLock();
    await h.store.create(lock);
    expect(await h.store.get(lock.id)).toEqual(lock);
    await expect(h.store.create(lock)).rejects.toMatchObject({ code: 'coupon_lock_exists' });
    expect(await h.store.get('cpl_missing')).toBeNull();
    expect(await h.store.countOpen()).toBe(1);
  });

  it('remembers the codes a payment burned through a lock once it is used, and only then', async () => {
    const lock = aLock({
      coupons: [
        { code: 'WELCOME10', type: 'fixed', value: 10, worth: 10 },
        { code: 'SAVE5', type: 'fixed', value: 5, worth: 5 },
      ],
    });
    await h.store.create(lock);
    await h.store.change(lock.id, T0 + 1, (l) => ({ ...l, state: 'paying', paymentId: 'sale-1', paidTotal: 35 }));
    // Claimed, not burned yet.
    expect(await h.store.usedBy('sale-1')).toBeNull();
    await h.store.change(lock.id, T0 + 2, (l) => ({ ...l, state: 'used' }));
    expect(await h.store.usedBy('sale-1')).toEqual(['WELCOME10', 'SAVE5']);
    expect(await (await h.twin()).usedBy('sale-1')).toEqual(['WELCOME10', 'SAVE5']);
    // A released lock burned nothing.
    const other = aLock();
    await h.store.create(other);
    await h.store.change(other.id, T0 + 3, (l) => ({ ...l, state: 'releasing' }));
    await h.store.change(other.id, T0 + 3, (l) => ({ ...l, state: 'released' }));
    expect(await h.store.usedBy('sale-2')).toBeNull();
  });

  it('bumps the version on each change, keeps a paying lock in the due index, keeps ending states final, and drops ended locks from it', async () => {
    const lock = aLock();
    await h.store.create(lock);
    const paying = await h.store.change(lock.id, T0 + 4, (l) => ({ ...l, state: 'paying', paymentId: 'sale-1', paidTotal: 20 }));
    // A claim carries its lease (money/lease.ts): due at its end, dropped when the claim ends.
    const lease = { at: T0 + 4, until: T0 + 4 + DEFAULT_CLAIM_LEASE_MS };
    expect(paying).toEqual({ ok: true, lock: { ...lock, state: 'paying', paymentId: 'sale-1', paidTotal: 20, version: 2, updatedAt: T0 + 4, lease } });
    expect(await h.store.countOpen()).toBe(1);
    const used = await h.store.change(lock.id, T0 + 5, (l) => ({ ...l, state: 'used' }));
    expect(used).toEqual({ ok: true, lock: { ...lock, state: 'used', paymentId: 'sale-1', paidTotal: 20, version: 3, updatedAt: T0 + 5 } });
    expect(await h.store.countOpen()).toBe(0);
    for (const state of ['released', 'locked', 'paying', 'abandoned'] as const) {
      const again = await h.store.change(lock.id, T0 + 6, (l) => ({ ...l, state }));
      expect(again).toMatchObject({ ok: false, reason: 'rejected', lock: { state: 'used', version: 3 } });
    }
    expect(await h.store.change('cpl_missing', T0, (l) => l)).toEqual({ ok: false, reason: 'not_found' });
  });

  it('refuses what its table does not allow (locked -> used must go through paying; a paying lock needs its paymentId), writing nothing', async () => {
    const lock = aLock();
    await h.store.create(lock);
    const direct = await h.store.change(lock.id, T0 + 5, (l) => ({ ...l, state: 'used', paymentId: 'sale-1' }));
    expect(direct).toMatchObject({
      ok: false,
      reason: 'rejected',
      lock: { state: 'locked', version: 1 },
      detail: expect.stringContaining('cannot become used'),
    });
    const anonymous = await h.store.change(lock.id, T0 + 5, (l) => ({ ...l, state: 'paying' }));
    expect(anonymous).toMatchObject({ ok: false, reason: 'rejected', detail: expect.stringContaining('paymentId') });
    expect(await h.store.get(lock.id)).toEqual(lock);
    expect(await h.store.countOpen()).toBe(1);
  });

  it('keeps a releasing lock in the due index until it is released', async () => {
    const lock = aLock();
    await h.store.create(lock);
    expect(await h.store.change(lock.id, T0 + 5, (l) => ({ ...l, state: 'releasing' }))).toMatchObject({ ok: true, lock: { state: 'releasing', version: 2 } });
    expect(await h.store.countOpen()).toBe(1);
    expect(await h.store.change(lock.id, T0 + 6, (l) => ({ ...l, state: 'released' }))).toMatchObject({ ok: true, lock: { state: 'released', version: 3 } });
    expect(await h.store.countOpen()).toBe(0);
  });

  it('abandons only due locks, up to the limit, each once', async () => {
    const due = [1, 2, 3].map((i) => aLock({ releaseAt: T0 + i }));
    const later = aLock({ releaseAt: T0 + 100 });
    for (const l of [...due, later]) await h.store.create(l);
    const first = await h.store.sweepDue(T0 + 3, 2);
    const second = await h.store.sweepDue(T0 + 3, 10);
    expect(first).toHaveLength(2);
    expect([...first, ...second].map((l) => l.id).sort()).toEqual(due.map((l) => l.id).sort());
    expect([...first, ...second].every((l) => l.state === 'abandoned' && l.version === 2)).toBe(true);
    expect(await h.store.sweepDue(T0 + 3, 10)).toEqual([]);
    expect(await h.store.countOpen()).toBe(1);
  });

  it('hands over a due paying lock as it is, keeps it in the index, and hands it over again after the recheck time', async () => {
    const paying = aLock({ state: 'paying', releaseAt: T0, paymentId: 'sale-1001', paidTotal: 20 });
    await h.store.create(paying);
    expect(await h.store.sweepDue(T0 + 1, 10)).toEqual([paying]);
    expect(await h.store.countOpen()).toBe(1);
    expect(await h.store.sweepDue(T0 + RECHECK_MS, 10)).toEqual([]);
    expect(await h.store.sweepDue(T0 + 1 + RECHECK_MS, 10)).toEqual([paying]);
    // The payment's claim freed (a definite refusal): locked again, due at its releaseAt again, and abandoned.
    await h.store.change(paying.id, T0 + 2 + RECHECK_MS, (l) => ({ ...l, state: 'locked', paymentId: undefined, paidTotal: undefined }));
    expect((await h.store.sweepDue(T0 + 2 + RECHECK_MS, 10)).map((l) => [l.id, l.state])).toEqual([[paying.id, 'abandoned']]);
    expect(await h.store.countOpen()).toBe(0);
  });

  it('hands over a due releasing lock as it is (not abandoned), and again after the recheck time', async () => {
    const releasing = aLock({ state: 'releasing', releaseAt: T0 });
    await h.store.create(releasing);
    expect(await h.store.sweepDue(T0 + 1, 10)).toEqual([releasing]);
    expect(await h.store.get(releasing.id)).toEqual(releasing);
    expect(await h.store.sweepDue(T0 + RECHECK_MS, 10)).toEqual([]);
    expect(await h.store.sweepDue(T0 + 1 + RECHECK_MS, 10)).toEqual([releasing]);
    expect(await h.store.countOpen()).toBe(1);
  });

  it('releases every due lock upstream once when two instances sweep at once', async () => {
    const locks = Array.from({ length: 200 }, (_, i) => aLock({ releaseAt: T0 + (i % 20) }));
    await Promise.all(locks.map((l) => h.store.create(l)));
    const released: string[] = [];
    const loyalty = {
      couponRelease: async (ref: string) => {
        released.push(ref);
      },
      orderTransactions: noTransactions,
      holdLookup: noHold,
    };
    const sweeperOn = (store: CouponLockStore, batchSize: number) =>
      new CouponLockSweeper({ store, sales: noSales, loyalty, intervalMs: 1000, logger: silentLogger, clock: () => T0 + 100, batchSize });
    const a = sweeperOn(h.store, 7);
    const b = sweeperOn(await h.twin(), 11);
    // Started (their timers are long), so a short batch is the only thing that could end a sweep early.
    a.start();
    b.start();
    try {
      const [na, nb] = await Promise.all([a.sweepOnce(), b.sweepOnce()]);
      expect(na + nb).toBe(200);
      expect(released.sort()).toEqual(locks.map((l) => l.lockReference).sort());
      expect(await h.store.countOpen()).toBe(0);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('does not end a sweep on a short batch, which only means another instance took some of the ids read', async () => {
    const locks = Array.from({ length: 20 }, (_, i) => aLock({ releaseAt: T0 + i }));
    for (const l of locks) await h.store.create(l);
    // Every batch comes back short, as when a second sweeper claims part of each read.
    const raced: CouponLockStore = Object.assign(Object.create(h.store) as CouponLockStore, {
      sweepDue: (now: number, limit: number) => h.store.sweepDue(now, Math.max(1, limit - 3)),
    });
    const released: string[] = [];
    const loyalty = {
      couponRelease: async (ref: string) => {
        released.push(ref);
      },
      orderTransactions: noTransactions,
      holdLookup: noHold,
    };
    const sweeper = new CouponLockSweeper({
      store: raced,
      sales: noSales,
      loyalty,
      intervalMs: 60_000,
      logger: silentLogger,
      clock: () => T0 + 100,
      batchSize: 5,
    });
    sweeper.start();
    try {
      expect(await sweeper.sweepOnce()).toBe(20);
      expect(released).toHaveLength(20);
      expect(await h.store.countOpen()).toBe(0);
    } finally {
      await sweeper.stop();
    }
  });

  describe('a due paying lock (the BFF stopped mid-payment)', () => {
    const paymentId = 'sale-2002';
    const held = () => aLock({ state: 'paying', releaseAt: T0, expiresAt: T0 + 30_000, paymentId, paidTotal: 20 });
    const paidWith = (id: string, amount: number) => ({ transactions: [{ transactionType: 'PaymentReward', transactionId: id, amount }] });
    /** The payment's own claim of its id, as this release writes it: it names the lock it carried. */
    const claimOf = (l: CouponLock, over: Partial<IdEntry & WriteRecord> = {}): IdEntry & WriteRecord => ({
      kind: 'payment',
      id: l.paymentId as string,
      storeId: l.storeId,
      state: 'recording',
      customerId: l.customerId,
      paymentId: l.paymentId as string,
      totalPaid: 20,
      holdReference: null,
      couponLockReference: l.lockReference,
      couponCodes: l.coupons.map((c) => c.code).sort(),
      ...over,
    });
    let sales = noSales;
    beforeEach(() => {
      sales = noSales;
    });
    const sweep = (answer: (id: string) => Promise<{ transactions: unknown[] }>, now: number) => {
      const asked: string[] = [];
      const loyalty = {
        couponRelease: async () => {
          throw new Error('a lock a payment holds is never released');
        },
        orderTransactions: async (id: string) => {
          asked.push(id);
          return (await answer(id)) as never;
        },
        holdLookup: noHold,
      };
      const sweeper = new CouponLockSweeper({ store: h.store, sales, loyalty, intervalMs: 60_000, logger: silentLogger, clock: () => now });
      return { asked, sweeper, count: sweeper.sweepOnce() };
    };

    it('is left as it is while its upstream lock may still be burned by that payment (not on record yet)', async () => {
      const l = held();
      await h.store.create(l);
      const { asked, count } = sweep(async () => ({ transactions: [] }), T0 + 10_000);
      expect(await count).toBe(0);
      expect(asked).toEqual([paymentId]);
      expect(await h.store.get(l.id)).toEqual(l);
      expect(await h.store.countOpen()).toBe(1);
    });

    it('becomes used before its upstream lock ends once the upstream has that payment with the same total', async () => {
      const l = held();
      await h.store.create(l);
      sales = salesOf(claimOf(l));
      const { count } = sweep(async (id) => paidWith(id, 20), T0 + 10_000);
      expect(await count).toBe(1);
      expect(await h.store.get(l.id)).toMatchObject({ state: 'used', paymentId, paidTotal: 20 });
      expect(await h.store.countOpen()).toBe(0);
    });

    it('becomes used when the upstream has that payment with the same total, abandoned when it has none', async () => {
      const [paid, lost] = [held(), aLock({ state: 'paying', releaseAt: T0, expiresAt: T0 + 30_000, paymentId: 'sale-lost', paidTotal: 20 })];
      await h.store.create(paid);
      await h.store.create(lost);
      sales = salesOf(claimOf(paid));
      const { count, sweeper } = sweep(async (id) => {
        if (id === paymentId) return paidWith(paymentId, 20);
        throw new NotFoundError('transaction_not_found', 'The transaction was not found');
      }, T0 + 31_000);
      expect(await count).toBe(2);
      expect(await h.store.get(paid.id)).toMatchObject({ state: 'used', paymentId });
      expect(await h.store.get(lost.id)).toMatchObject({ state: 'abandoned', paymentId: 'sale-lost' });
      expect(sweeper.abandonedCount).toBe(1);
      expect(await h.store.countOpen()).toBe(0);
    });

    it('is not marked used by a transaction under that payment id with another total (another sale took the id): left before its upstream lock ends, abandoned at the recheck after it', async () => {
      const l = held();
      await h.store.create(l);
      const early = sweep(async (id) => paidWith(id, 35), T0 + 10_000);
      expect(await early.count).toBe(0);
      expect(early.asked).toEqual([paymentId]);
      expect(await h.store.get(l.id)).toEqual(l);
      const late = sweep(async (id) => paidWith(id, 35), T0 + 10_000 + RECHECK_MS);
      expect(await late.count).toBe(1);
      expect(await h.store.get(l.id)).toMatchObject({ state: 'abandoned', paymentId });
      expect(late.sweeper.abandonedCount).toBe(1);
      expect(await h.store.countOpen()).toBe(0);
    });

    it('is never marked used from its own record: with no entry of its payment (lost, expired) it is left paying, the same total on record or not', async () => {
      const l = held();
      await h.store.create(l);
      const { count } = sweep(async (id) => paidWith(id, 20), T0 + 31_000);
      expect(await count).toBe(0);
      expect(await h.store.get(l.id)).toEqual(l);
    });

    it("is not marked used when its payment's entry names no lock (the payment on record is another write under the id): abandoned", async () => {
      const l = held();
      await h.store.create(l);
      sales = salesOf(claimOf(l, { state: 'recorded', couponLockReference: null, couponCodes: null }));
      const { count } = sweep(async (id) => paidWith(id, 20), T0 + 31_000);
      expect(await count).toBe(1);
      expect(await h.store.get(l.id)).toMatchObject({ state: 'abandoned' });
    });

    it('is not marked used by a transaction of another kind under that payment id', async () => {
      const l = held();
      await h.store.create(l);
      const { count } = sweep(async (id) => ({ transactions: [{ transactionType: 'Refund', transactionId: id, amount: 20 }] }), T0 + 31_000);
      expect(await count).toBe(1);
      expect(await h.store.get(l.id)).toMatchObject({ state: 'abandoned' });
    });

    it('stays paying and in the index when the upstream cannot say', async () => {
      const l = held();
      await h.store.create(l);
      const { asked, count } = sweep(async () => {
        throw new ServiceUnavailableError('upstream_unavailable', 'down');
      }, T0 + 31_000);
      expect(await count).toBe(0);
      expect(asked).toEqual([paymentId]);
      expect(await h.store.get(l.id)).toEqual(l);
      expect(await h.store.countOpen()).toBe(1);
    });
  });

  describe('a due releasing lock (the BFF stopped mid-release)', () => {
    const releasing = () => aLock({ state: 'releasing', releaseAt: T0, expiresAt: T0 + 30_000 });
    const sweeperWith = (couponRelease: (ref: string) => Promise<void>) =>
      new CouponLockSweeper({
        store: h.store,
        sales: noSales,
        loyalty: { couponRelease, orderTransactions: noTransactions, holdLookup: noHold },
        intervalMs: 60_000,
        logger: silentLogger,
        clock: () => T0 + 1,
      });

    it('is released again upstream and recorded released', async () => {
      const l = releasing();
      await h.store.create(l);
      const released: string[] = [];
      const sweeper = sweeperWith(async (ref) => {
        released.push(ref);
      });
      expect(await sweeper.sweepOnce()).toBe(1);
      expect(released).toEqual([l.lockReference]);
      expect(await h.store.get(l.id)).toMatchObject({ state: 'released', version: 2 });
      expect(sweeper.abandonedCount).toBe(0);
      expect(await h.store.countOpen()).toBe(0);
    });

    it('is recorded released when the upstream says the lock is no longer active (released already)', async () => {
      const l = releasing();
      await h.store.create(l);
      const sweeper = sweeperWith(async () => {
        throw new ConflictError('coupon_lock_not_active', 'not active');
      });
      expect(await sweeper.sweepOnce()).toBe(1);
      expect(await h.store.get(l.id)).toMatchObject({ state: 'released' });
    });

    it('stays releasing and in the index when the release fails', async () => {
      const l = releasing();
      await h.store.create(l);
      const sweeper = sweeperWith(async () => {
        throw new ServiceUnavailableError('upstream_unavailable', 'down');
      });
      expect(await sweeper.sweepOnce()).toBe(0);
      expect(await h.store.get(l.id)).toEqual(l);
      expect(await h.store.countOpen()).toBe(1);
    });
  });
});

describe("a payment's used coupons outlive its lock record", () => {
  const DAY = 24 * 3600_000;

  it('memory: kept for usedKeepMs, dropped by the sweep after', async () => {
    const store = new MemoryCouponLockStore(RECHECK_MS, 30 * DAY);
    const lock = aLock();
    await store.create(lock);
    await store.change(lock.id, T0, (l) => ({ ...l, paymentId: 'sale-old', paidTotal: 20, state: 'paying' }));
    await store.change(lock.id, T0, (l) => ({ ...l, state: 'used' }));
    await store.sweepDue(T0 + 2 * DAY, 10);
    expect(await store.get(lock.id)).toBeNull();
    expect(await store.usedBy('sale-old')).toEqual(['WELCOME10']);
    await store.sweepDue(T0 + 31 * DAY, 10);
    expect(await store.usedBy('sale-old')).toBeNull();
  });

  it('redis: the used codes carry their own, longer expiry', async () => {
    const prefix = uniquePrefix('cpl');
    const redis = await testRedis();
    try {
      const store = new RedisCouponLockStore(redis, { prefix, usedKeepMs: 30 * DAY });
      const lock = aLock();
      await store.create(lock);
      await store.change(lock.id, T0, (l) => ({ ...l, paymentId: 'sale-old', paidTotal: 20, state: 'paying' }));
      await store.change(lock.id, T0, (l) => ({ ...l, state: 'used' }));
      const [recordTtl, usedTtl] = await Promise.all([redis.pttl(`${prefix}{cpl}:r:${lock.id}`), redis.pttl(`${prefix}{cpl}:paid:sale-old`)]);
      expect(recordTtl).toBeLessThanOrEqual(DAY);
      expect(usedTtl).toBeGreaterThan(29 * DAY);
    } finally {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });
});

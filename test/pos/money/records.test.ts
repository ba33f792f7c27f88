import type { Redis } from 'ioredis';
import { RedisCouponLockStore, couponLockRules, type CouponLock } from '../../../src/pos/coupons/locks';
import { COUPON_LOCK_LAYOUT } from '../../../src/pos/coupons/locks/redis-store';
import { RedisRecordStore, type RecordScripts } from '../../../src/pos/money/records/redis-store';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';
import { aLock } from '../coupon-locks/harness';

/*
 * The shared record store where the feature suites do not pin it: a record
 * ended by a compare-and-set after the sweep's claim (coupon locks), and the
 * records such a store writes, read as earlier versions wrote them.
 */

const DAY = 24 * 3600_000;
const RECHECK_MS = 30_000;

describe('the shared record store in Redis, ending due records by compare-and-set (coupon locks)', () => {
  let redis: Redis;
  let prefix: string;
  beforeEach(async () => {
    redis = await testRedis();
    prefix = uniquePrefix('records');
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  /** The coupon lock store, with `wrap` around its scripts. */
  const storeWith = (wrap: (real: RecordScripts) => RecordScripts) =>
    new RedisRecordStore<CouponLock>(
      redis,
      couponLockRules(DAY),
      { ...COUPON_LOCK_LAYOUT, scripts: (r) => wrap(COUPON_LOCK_LAYOUT.scripts(r)) },
      { prefix, maxAttempts: 8, recheckMs: RECHECK_MS },
    );

  it('leaves a due record to a claim that took it between the sweep and its write, and hands it over as claimed next time', async () => {
    const T0 = 1_760_000_000_000;
    const lock = aLock({ releaseAt: T0 + 1 }, T0);
    const payment = new RedisCouponLockStore(redis, { prefix });
    const store = storeWith((real) => ({
      ...real,
      sweep: async (...args) => {
        const reply = await real.sweep(...args);
        await payment.change(lock.id, T0 + 2, (l) => ({ ...l, state: 'paying', paymentId: 'sale-1', paidTotal: 20 }));
        return reply;
      },
    }));
    await store.create(lock);
    expect(await store.sweepDue(T0 + 2, 10)).toEqual([]);
    expect(await store.get(lock.id)).toMatchObject({ state: 'paying', version: 2 });
    // The payment's write put it back at its releaseAt: due, and now claimed.
    expect(await redis.zscore(`${prefix}{cpl}:due`, lock.id)).toBe(String(T0 + 1));
    expect(await payment.sweepDue(T0 + 3, 10)).toEqual([expect.objectContaining({ id: lock.id, state: 'paying' })]);
  });

  it('keeps a due record whose ending write failed in the index, and ends it at the recheck time', async () => {
    const T0 = 1_760_000_000_000;
    const lock = aLock({ releaseAt: T0 + 1 }, T0);
    // The first write after the first sweep is lost.
    let sweeps = 0;
    let lost = 0;
    const store = storeWith((real) => ({
      ...real,
      sweep: async (...args) => {
        sweeps += 1;
        return real.sweep(...args);
      },
      write: async (...args) => {
        if (sweeps !== 1 || lost++ > 0) return real.write(...args);
        throw new Error('connection lost');
      },
    }));
    await store.create(lock);
    await expect(store.sweepDue(T0 + 2, 10)).rejects.toMatchObject({ code: 'redis_unavailable' });
    expect(await store.get(lock.id)).toMatchObject({ state: 'locked', version: 1 });
    expect(await redis.zscore(`${prefix}{cpl}:due`, lock.id)).toBe(String(T0 + 2 + RECHECK_MS));
    expect(await store.sweepDue(T0 + 1 + RECHECK_MS, 10)).toEqual([]);
    expect(await store.sweepDue(T0 + 2 + RECHECK_MS, 10)).toEqual([expect.objectContaining({ id: lock.id, state: 'abandoned', version: 2 })]);
    expect(await store.countOpen()).toBe(0);
  });

  it('writes a coupon lock as earlier versions did (its JSON, TTL to expiry + 24 h, due at releaseAt; used codes by payment) and sweeps one an earlier version claimed as claimed', async () => {
    const now = Date.now();
    const store = new RedisCouponLockStore(redis, { prefix, usedKeepMs: 30 * DAY });
    const lock = aLock({}, now);
    await store.create(lock);
    const key = `${prefix}{cpl}:r:${lock.id}`;
    expect(await redis.get(key)).toBe(JSON.stringify(lock));
    expect(await redis.pttl(key)).toBeGreaterThan(600_000 + DAY - 5000);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(600_000 + DAY);
    expect(await redis.zscore(`${prefix}{cpl}:due`, lock.id)).toBe(String(lock.releaseAt));
    await store.change(lock.id, now, (l) => ({ ...l, state: 'paying', paymentId: 'sale-9', paidTotal: 20 }));
    await store.change(lock.id, now, (l) => ({ ...l, state: 'used' }));
    expect(await redis.get(`${prefix}{cpl}:paid:sale-9`)).toBe('["WELCOME10"]');
    expect(await redis.pttl(`${prefix}{cpl}:paid:sale-9`)).toBeGreaterThan(30 * DAY - 5000);
    expect(await redis.zscore(`${prefix}{cpl}:due`, lock.id)).toBeNull();

    // A payment's claim as an earlier version wrote it: `locked` with its paymentId.
    const earlier = { ...aLock({ releaseAt: now - 1 }, now), paymentId: 'sale-old' };
    await redis.set(`${prefix}{cpl}:r:${earlier.id}`, JSON.stringify(earlier), 'PX', DAY);
    await redis.zadd(`${prefix}{cpl}:due`, earlier.releaseAt, earlier.id);
    expect(await store.sweepDue(now, 10)).toEqual([expect.objectContaining({ id: earlier.id, state: 'paying', paymentId: 'sale-old', version: 1 })]);
    expect(await redis.get(`${prefix}{cpl}:r:${earlier.id}`)).toBe(JSON.stringify(earlier));
  });
});

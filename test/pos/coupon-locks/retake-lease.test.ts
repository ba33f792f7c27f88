import pino from 'pino';
import type { CallContext } from '../../../src/pos/context';
import { createCouponLockStore } from '../../../src/pos/coupons/locks';
import { couponLockForPayment, type CouponLockClaimDeps } from '../../../src/pos/coupons/locks/claims';
import { asTaker, setClaimLeaseMs } from '../../../src/pos/money/lease';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';
import { aLock, T0 } from './harness';

/*
 * A payment's retry (the same payment taking its coupon lock again after an
 * unknown outcome) renews the claim's lease, so the lease sweep leaves it to
 * the retry until the new lease ends. Memory and the real Redis store.
 */
describe.each([
  ['memory', false],
  ['redis', true],
])("a payment's retry renews its coupon lock's lease (%s)", (_name, onRedis) => {
  it('stamps a new lease naming the retry', async () => {
    const redis = onRedis ? await testRedis() : undefined;
    const prefix = uniquePrefix('retake');
    try {
      let now = T0 + 1000;
      setClaimLeaseMs(60_000);
      const couponLocks = createCouponLockStore({ redis, prefix });
      const lock = aLock({}, T0);
      await couponLocks.create(lock);
      const deps = { couponLocks, clock: () => now, logger: pino({ level: 'silent' }) } as unknown as CouponLockClaimDeps;
      const ctx = { identity: { store: { id: lock.storeId } } } as unknown as CallContext;
      const who = { customerId: lock.customerId, paymentId: 'P1', totalPaid: 20 };
      const first = couponLockForPayment(deps, ctx, lock.id, who);
      await asTaker({ requestId: 'req-1' }, () => first.take());
      expect(first.claimed.lease).toMatchObject({ at: now, until: now + 60_000, requestId: 'req-1' });
      now += 30_000;
      const retry = couponLockForPayment(deps, ctx, lock.id, who);
      await asTaker({ requestId: 'req-2' }, () => retry.take());
      expect(retry.again).toBe(true);
      expect(retry.claimed.lease).toMatchObject({ at: now, until: now + 60_000, requestId: 'req-2' });
    } finally {
      if (redis) {
        await deleteKeys(redis, prefix);
        await redis.quit();
      }
    }
  });
});

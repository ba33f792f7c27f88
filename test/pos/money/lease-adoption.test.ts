import type { Redis } from 'ioredis';
import pino from 'pino';
import { ADOPTED_MARKER, adoptLeaselessClaims, redisAdoptionMarker } from '../../../src/pos/claim-leases';
import { createCouponLockStore } from '../../../src/pos/coupons/locks';
import { setClaimLeaseMs } from '../../../src/pos/money/lease';
import { MemoryRedemptionStore } from '../../../src/pos/redemptions';
import { createSaleRecords, type SaleEntry, type SaleRecords } from '../../../src/pos/sales/records';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';

/*
 * The claims the release before leases wrote (no lease, in no lease index)
 * are adopted once across the fleet and for good: one instance scans (a lock),
 * the marker is written only after a whole scan, a scan stopped by shutdown
 * leaves no marker, and a leaseless claim a change meets later gets a lease
 * there. A real redis-server.
 */
const LEASE_MS = 1000;
const now = 1_790_000_000_000;
const logger = pino({ level: 'silent' });
const oldClaim = (id: string) => ({ kind: 'payment', id, storeId: 'store-001', customerId: 'c-1', paymentId: id, totalPaid: 40, state: 'recording' });

describe('claims of the release before leases are adopted once, for good', () => {
  let redis: Redis;
  let prefix: string;
  let sales: SaleRecords;
  const deps = () => ({
    clock: () => now,
    logger,
    redemptions: new MemoryRedemptionStore(),
    couponLocks: createCouponLockStore({ prefix }),
    sales,
  });
  const writeOld = (id: string) => redis.set(`${prefix}sale:payment:${id}`, JSON.stringify(oldClaim(id)), 'EX', 3600);
  const listed = () => redis.zrange(`${prefix}sale-leases`, 0, -1);

  beforeAll(() => setClaimLeaseMs(LEASE_MS));
  beforeEach(async () => {
    redis = await testRedis();
    prefix = uniquePrefix('adoption');
    sales = createSaleRecords({ redis, prefix, ttlDays: 1, clock: () => now });
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('lists every leaseless claim over several batches, marks it done, and never scans again', async () => {
    const ids = Array.from({ length: 2500 }, (_, i) => `OLD${i}`);
    for (const id of ids) await writeOld(id);
    await adoptLeaselessClaims(deps(), redisAdoptionMarker(redis, prefix), () => false);
    expect((await listed()).length).toBe(2500);
    expect(await redis.exists(`${prefix}${ADOPTED_MARKER}`)).toBe(1);
    expect(await redis.exists(`${prefix}${ADOPTED_MARKER}:lock`)).toBe(0);

    await writeOld('LATE');
    await adoptLeaselessClaims(deps(), redisAdoptionMarker(redis, prefix), () => false);
    expect(await listed()).not.toContain('payment:LATE');
  });

  it('leaves it to the instance holding the lock, and leaves no marker when stopped before the scan ends', async () => {
    await writeOld('OLD1');
    const other = redisAdoptionMarker(redis, prefix);
    expect(await other.doneOrBusy()).toBe(false);
    await adoptLeaselessClaims(deps(), redisAdoptionMarker(redis, prefix), () => false);
    expect(await listed()).toEqual([]);
    await other.release();

    await adoptLeaselessClaims(deps(), redisAdoptionMarker(redis, prefix), () => true);
    expect(await redis.exists(`${prefix}${ADOPTED_MARKER}`)).toBe(0);
    expect(await redis.exists(`${prefix}${ADOPTED_MARKER}:lock`)).toBe(0);
    expect(await listed()).toEqual([]);
  });

  it('gives a leaseless claim a lease, and lists it, at the first change that meets it', async () => {
    await writeOld('OLD2');
    const changed = await sales.change('payment', 'OLD2', (cur: SaleEntry) => ({ ...cur, totalPaid: 40 }));
    expect(changed.ok && changed.entry.lease?.until).toBe(now + LEASE_MS);
    expect(await redis.zscore(`${prefix}sale-leases`, 'payment:OLD2')).toBe(String(now + LEASE_MS));
  });
});

import { withRedemptionScripts } from '../../../src/pos/redemptions/redis-scripts';
import { toBase36 } from '../../../src/pos/redemptions/redis-codec';
import { deleteKeys, testRedis } from '../../support/redis';
import { aHold, T0, uniquePrefix } from './harness';
import { RedisRedemptionStore } from '../../../src/pos/redemptions';

/**
 * The sweep script gets its candidates' records in KEYS (Redis Cluster needs
 * every key named), found due by a read just before. Between that read and the
 * script the index may have changed, so the script claims only what is still
 * in the index and due.
 */
describe('redemption sweep with its keys in KEYS', () => {
  it('claims a candidate only while it is in the index and due', async () => {
    const redis = await testRedis();
    const prefix = uniquePrefix();
    try {
      const store = new RedisRedemptionStore(redis, { prefix });
      const due = aHold({ expiresAt: T0 + 1000 });
      const later = aHold({ expiresAt: T0 + 600_000 });
      await store.create(due);
      await store.create(later);
      const scripts = withRedemptionScripts(redis);
      const open = `${prefix}{rdm}:open`;
      const sweep = (ids: string[], now: number) =>
        scripts.rdmSweep(
          1 + ids.length,
          open,
          ...ids.map((id) => `${prefix}{rdm}:r:${id}`),
          String(now),
          toBase36(now),
          '60000',
          '0',
          String(now + 30_000),
          ...ids,
        );
      // A stale candidate list naming a hold that is not due: left alone.
      expect(await sweep([later.id], T0 + 2000)).toEqual([]);
      expect((await store.get(later.id, T0 + 2000))?.state).toBe('held');
      expect(await redis.zscore(open, later.id)).not.toBeNull();
      // The due one is claimed once: a second sweeper with the same list gets nothing.
      expect((await sweep([due.id], T0 + 2000))[0]).toBe(due.id);
      expect(await sweep([due.id], T0 + 2000)).toEqual([]);
      expect(await store.sweepDue(T0 + 2000, 10)).toEqual([]);
    } finally {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { silentLogger } from '../../src/platform/logger';
import { connectRedis, type RedisClient } from '../../src/platform/redis';
import { type CouponLock, RedisCouponLockStore } from '../../src/pos/coupons/locks';
import { RedisRedemptionStore } from '../../src/pos/redemptions';
import { aHold, T0 } from '../pos/redemptions/harness';
import { RedisCluster, startRedisCluster } from '../support/redis-topologies';

function aLock(n: number): CouponLock {
  const id = `cpl_${randomUUID()}`;
  return {
    id,
    storeId: 'store-001',
    terminalId: 'till-03',
    customerId: `c-${n}`,
    lockReference: `LCK-${id}`,
    basketTotal: 10,
    coupons: [],
    state: 'locked',
    expiresAt: T0 + 30_000,
    releaseAt: T0 + 1,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
  };
}

/**
 * The scripts whose key count varies (their first argument) run on a cluster
 * in the same tick as plain commands to every node, as a busy BFF sends them:
 * auto-pipelining must not put them in another node's pipeline.
 */
describe('variable-key scripts beside other commands on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let redis: RedisClient;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    redis = connectRedis({ kind: 'cluster', nodes: cluster.nodes }, silentLogger);
  }, 60_000);
  afterAll(async () => {
    await redis?.quit();
    await cluster?.close();
  });

  it('sweeps holds and claims coupon locks of every batch size while other keys are written, none refused', async () => {
    const prefix = `t${randomUUID().slice(0, 6)}:`;
    const holds = new RedisRedemptionStore(redis, { prefix });
    const locks = new RedisCouponLockStore(redis, { prefix });
    // Other writes all the while, to keys on every node, as the till traffic of a busy BFF.
    let writing = true;
    const refused: string[] = [];
    const writer = (async () => {
      for (let round = 0; writing; round++) {
        const batch = Array.from({ length: 20 }, (_, i) => redis.set(`${prefix}other:${round}:${i}`, 'x', 'PX', 60_000));
        for (const w of await Promise.allSettled(batch)) if (w.status === 'rejected') refused.push((w.reason as Error).message);
      }
    })();
    try {
      // Batch sizes 1..12: the key-count argument takes twelve values, so its slot falls on every node.
      for (let n = 1; n <= 12; n++) {
        for (let i = 0; i < n; i++) {
          await holds.create(aHold({ expiresAt: T0 + 1 }));
          await locks.create(aLock(n));
        }
        const [swept, claimed] = await Promise.all([holds.sweepDue(T0 + 2, 100), locks.sweepDue(T0 + 2, 100)]);
        expect([n, swept.length, claimed.length]).toEqual([n, n, n]);
      }
    } finally {
      writing = false;
      await writer;
    }
    expect(refused).toEqual([]);
  });
});

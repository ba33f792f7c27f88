import { randomBytes, randomUUID } from 'node:crypto';
import { deleteKeys, testRedis } from '../../support/redis';
import { MemoryRedemptionStore, RedisRedemptionStore, type Redemption, type RedemptionStore, type RetentionPolicy } from '../../../src/pos/redemptions';

/** One backing state, as several BFF instances would share it. */
export interface StoreHarness {
  kind: 'memory' | 'redis';
  store: RedemptionStore;
  /** Another store over the same state; for Redis, on its own connection (a second BFF instance). */
  twin(): Promise<RedemptionStore>;
  cleanup(): Promise<void>;
}

export type HarnessFactory = (policy?: Partial<RetentionPolicy>) => Promise<StoreHarness>;

export const memoryHarness: HarnessFactory = async (policy) => {
  const store = new MemoryRedemptionStore(policy);
  return { kind: 'memory', store, twin: async () => store, cleanup: () => store.close() };
};

export function uniquePrefix(): string {
  return `test:rdm:${randomUUID().slice(0, 8)}:`;
}

/** A store on the private test Redis under a fresh prefix; cleanup deletes its keys and closes its connections. */
export const redisHarness: HarnessFactory = async (policy) => {
  const prefix = uniquePrefix();
  const connections = [await testRedis()];
  const store = new RedisRedemptionStore(connections[0], { prefix, ...policy });
  return {
    kind: 'redis',
    store,
    twin: async () => {
      const redis = await testRedis();
      connections.push(redis);
      return new RedisRedemptionStore(redis, { prefix, ...policy });
    },
    cleanup: async () => {
      await deleteKeys(connections[0], prefix);
      await Promise.all(connections.map((c) => c.quit()));
    },
  };
};

export const T0 = 1_760_000_000_000;

/** A held redemption as the orchestration would create it. */
export function aHold(overrides: Partial<Redemption> = {}): Redemption {
  return {
    id: `rdm_${randomBytes(12).toString('base64url')}`,
    storeId: 'store-001',
    terminalId: 'till-03',
    customerId: 'cust-000123',
    ask: { kind: 'amount', amount: 25.5 },
    state: 'held',
    holdReference: `HLD-${randomBytes(8).toString('hex')}`,
    holdAmount: 25.5,
    holdPoints: 2550,
    expiresAt: T0 + 600_000,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    ...overrides,
  };
}

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ServiceUnavailableError } from '../../../src/platform/errors';
import { createIdempotencyStore, MemoryIdempotencyStore, RedisIdempotencyStore } from '../../../src/pos/idempotency';
import { deleteKeys, testRedis } from '../../support/redis';
import { idempotencyStoreSuite, LEASE, slot, T0, TTL } from './store-suite';

const prefixOf = () => `test:idem:${randomUUID().slice(0, 8)}:`;

idempotencyStoreSuite('RedisIdempotencyStore', async () => {
  const prefix = prefixOf();
  const connections = [await testRedis()];
  return {
    store: new RedisIdempotencyStore(connections[0], prefix),
    twin: async () => {
      const r = await testRedis();
      connections.push(r);
      return new RedisIdempotencyStore(r, prefix);
    },
    cleanup: async () => {
      await deleteKeys(connections[0], prefix);
      for (const c of connections) await c.quit();
    },
  };
});

describe('RedisIdempotencyStore in Redis', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisIdempotencyStore;
  beforeEach(async () => {
    redis = await testRedis();
    prefix = prefixOf();
    store = new RedisIdempotencyStore(redis, prefix);
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it("keeps one key per record under the terminal's hash tag, with a TTL a little past the lease, then the 24 h", async () => {
    const s = slot('till-key-1', 'store-001-cashier');
    await store.begin(s, { fingerprint: 'f', owner: 'o1', now: Date.now(), leaseMs: LEASE });
    const key = `${prefix}idem:{store-001-cashier}:till-key-1`;
    expect(store.key(s)).toBe(key);
    const leaseTtl = await redis.pttl(key);
    expect(leaseTtl).toBeGreaterThan(LEASE);
    expect(leaseTtl).toBeLessThanOrEqual(LEASE + 5000);
    await store.complete(s, 'o1', 'f', { status: 201, body: '{}' }, Date.now(), TTL);
    const doneTtl = await redis.pttl(key);
    expect(doneTtl).toBeGreaterThan(TTL);
    expect(doneTtl).toBeLessThanOrEqual(TTL + 5000);
  });

  it('treats an unreadable record as absent instead of failing every retry', async () => {
    const s = slot();
    await redis.set(store.key(s), 'not json', 'PX', 60_000);
    expect((await store.begin(s, { fingerprint: 'f', owner: 'o', now: T0, leaseMs: LEASE })).kind).toBe('claimed');
  });

  it('answers 503 redis_unavailable (Retry-After 1) when the connection is gone', async () => {
    const gone = await testRedis();
    gone.disconnect();
    const err = await new RedisIdempotencyStore(gone, prefix).begin(slot(), { fingerprint: 'f', owner: 'o', now: T0, leaseMs: LEASE }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ code: 'redis_unavailable', retryAfterSeconds: 1 });
  });

  it('createIdempotencyStore picks Redis with a connection and memory without', () => {
    expect(createIdempotencyStore({ redis, prefix }).kind).toBe('redis');
    expect(createIdempotencyStore({ prefix })).toBeInstanceOf(MemoryIdempotencyStore);
  });
});

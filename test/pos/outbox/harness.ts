import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { deleteKeys, testRedis } from '../../support/redis';
import { MemoryOutboxStore, newOutboxId, NewOutboxEntry, OutboxStore, OutboxWork, RedisOutboxStore } from '../../../src/pos/outbox';

/** One outbox state, as several BFF instances would share it. */
export interface OutboxHarness {
  kind: 'memory' | 'redis';
  store: OutboxStore;
  leaseMs: number;
  /** Another store over the same state; for Redis on its own connection (a second instance). */
  twin(): Promise<OutboxStore>;
  /** Lets a lease run out: memory moves its wall clock; Redis really waits (leases and idle times run on Redis' clock). */
  passLease(): Promise<void>;
  /** Lets `s` seconds of record TTL pass (memory only; Redis tests read the TTL instead). */
  passSeconds(s: number): void;
  redis?: Redis;
  prefix?: string;
  cleanup(): Promise<void>;
}

export type OutboxHarnessFactory = (opts?: { leaseMs?: number; statusTtlSeconds?: number }) => Promise<OutboxHarness>;

export const memoryOutbox: OutboxHarnessFactory = async (opts = {}) => {
  let wall = 1_000_000;
  const leaseMs = opts.leaseMs ?? 30_000;
  const store = new MemoryOutboxStore({ leaseMs, statusTtlSeconds: opts.statusTtlSeconds ?? 3600 }, () => wall);
  return {
    kind: 'memory',
    store,
    leaseMs,
    twin: async () => store,
    passLease: async () => {
      wall += leaseMs + 1;
    },
    passSeconds: (s) => {
      wall += s * 1000;
    },
    cleanup: () => store.close(),
  };
};

export const redisOutbox: OutboxHarnessFactory = async (opts = {}) => {
  const prefix = `test:obx:${randomUUID().slice(0, 8)}:`;
  const leaseMs = opts.leaseMs ?? 30_000;
  const make = (r: Redis) => new RedisOutboxStore(r, { prefix, leaseMs, statusTtlSeconds: opts.statusTtlSeconds ?? 3600 });
  const connections = [await testRedis()];
  return {
    kind: 'redis',
    store: make(connections[0]),
    leaseMs,
    redis: connections[0],
    prefix,
    twin: async () => {
      const r = await testRedis();
      connections.push(r);
      return make(r);
    },
    passLease: () => new Promise((resolve) => setTimeout(resolve, leaseMs + 60)),
    passSeconds: () => {
      throw new Error('Redis TTLs are checked with PTTL, not waited for');
    },
    cleanup: async () => {
      await deleteKeys(connections[0], prefix);
      await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
    },
  };
};

export const T0 = 1_760_000_000_000;

export function paymentWork(customerId: string, paymentId: string, totalPaid = 10): OutboxWork {
  return {
    kind: 'payment',
    request: {
      customerId,
      paymentId,
      paymentDate: '2025-03-01T10:00:00.000Z',
      totalPaid,
      channel: 'pos',
      merchant: { uniqueId: 'm-1', name: 'Test "Retail"', branch: { uniqueId: 'b-1', name: 'Branch 1' } },
    },
  };
}

export function anEntry(work: OutboxWork, overrides: Partial<NewOutboxEntry> = {}): NewOutboxEntry {
  const customerId = work.kind === 'batchOrders' ? 'store-001' : work.request.customerId;
  return {
    id: newOutboxId(),
    work,
    orderKey: `customer:${customerId}`,
    storeId: 'store-001',
    terminalId: 'till-01',
    requestId: `rq-${randomUUID().slice(0, 8)}`,
    reason: 'upstream_unavailable',
    ...overrides,
  };
}

import { deleteKeys, testRedis } from '../../support/redis';
import { anEntry, paymentWork, redisOutbox, T0 } from './harness';
import { outboxStoreSuite } from './store-suite';

outboxStoreSuite('RedisOutboxStore', redisOutbox);

describe('RedisOutboxStore in Redis', () => {
  const prefixOf = (h: { prefix?: string }) => `${h.prefix}{obx}:`;

  it('keeps everything under one hash tag: the stream with its group, the record, the key queue; delivered entries leave the stream and their record gets the TTL', async () => {
    const h = await redisOutbox({ statusTtlSeconds: 600 });
    try {
      const r = h.redis!;
      const p = prefixOf(h);
      const e = await h.store.enqueue(anEntry(paymentWork('ana', 'pay-1')), T0);
      expect(await r.xlen(`${p}stream`)).toBe(1);
      expect(await r.lrange(`${p}q:customer:ana`, 0, -1)).toEqual([e.id]);
      expect(await r.hget(`${p}e:${e.id}`, 'state')).toBe('queued');
      expect(await r.pttl(`${p}e:${e.id}`)).toBe(-1);

      const [t] = await h.store.take('c1', T0, 1);
      const groups = (await r.xinfo('GROUPS', `${p}stream`)) as unknown[][];
      expect(groups.map((g) => g[1])).toEqual(['delivery']);
      expect(await r.get(`${p}l:customer:ana`)).toBe('c1');
      await h.store.finish(t, 'c1', { kind: 'delivered', result: { pointsEarned: 10 } }, T0 + 1);
      expect(await r.xlen(`${p}stream`)).toBe(0);
      expect(await r.exists(`${p}q:customer:ana`, `${p}l:customer:ana`)).toBe(0);
      const ttl = await r.pttl(`${p}e:${e.id}`);
      expect(ttl).toBeGreaterThan(595_000);
      expect(ttl).toBeLessThanOrEqual(600_000);
    } finally {
      await h.cleanup();
    }
  });

  it('a dead letter is an entry of the dead-letter stream, its record kept without TTL until discarded', async () => {
    const h = await redisOutbox({ statusTtlSeconds: 600 });
    try {
      const r = h.redis!;
      const p = prefixOf(h);
      const e = await h.store.enqueue(anEntry(paymentWork('ana', 'pay-1')), T0);
      const [t] = await h.store.take('c1', T0, 1);
      await h.store.finish(t, 'c1', { kind: 'dead', error: { code: 'upstream_rejected', message: 'no', status: 422, at: T0 } }, T0);
      const dead = (await r.xrange(`${p}dead`, '-', '+')) as [string, string[]][];
      expect(dead.map(([, f]) => f)).toEqual([['id', e.id, 'storeId', 'store-001']]);
      expect(await r.pttl(`${p}e:${e.id}`)).toBe(-1);
      await h.store.discardDead(e.id, 'store-001', T0);
      expect(await r.xlen(`${p}dead`)).toBe(0);
      expect(await r.pttl(`${p}e:${e.id}`)).toBeGreaterThan(0);
    } finally {
      await h.cleanup();
    }
  });

  it('XAUTOCLAIM: entries a consumer read and then left (it died) are claimed by another after the idle time, and delivered once', async () => {
    const h = await redisOutbox({ leaseMs: 200 });
    try {
      const p = prefixOf(h);
      const entries = [];
      for (let i = 0; i < 5; i++) entries.push(await h.store.enqueue(anEntry(paymentWork(`k${i}`, `p${i}`)), T0));
      // c1 reads all five into its pending list, starts on two, and dies.
      expect(await h.store.take('c1', T0, 2)).toHaveLength(2);
      const pendingBefore = (await h.redis!.xpending(`${p}stream`, 'delivery', '-', '+', 10)) as [string, string][];
      expect(pendingBefore.map((x) => x[1])).toEqual(Array(5).fill('c1'));

      const twin = await h.twin();
      expect(await twin.take('c2', T0, 10)).toEqual([]);
      await h.passLease();
      const got = await twin.take('c2', T0, 10);
      expect(got.map((e) => e.id).sort()).toEqual(entries.map((e) => e.id).sort());
      const owners = (await h.redis!.xpending(`${p}stream`, 'delivery', '-', '+', 10)) as [string, string][];
      expect(owners.map((x) => x[1])).toEqual(Array(5).fill('c2'));
      for (const e of got) await twin.finish(e, 'c2', { kind: 'delivered', result: {} }, T0);
      expect(await h.store.counts()).toEqual({ pending: 0, dead: 0 });
      expect(await h.redis!.xpending(`${p}stream`, 'delivery')).toEqual([0, null, null, null]);
    } finally {
      await h.cleanup();
    }
  });

  it('recreates its consumer group if Redis lost it (e.g. restarted without persistence) and delivers what is in the stream', async () => {
    const h = await redisOutbox();
    try {
      const e = await h.store.enqueue(anEntry(paymentWork('ana', 'p1')), T0);
      await h.store.take('c1', T0, 0);
      await h.redis!.xgroup('DESTROY', `${prefixOf(h)}stream`, 'delivery');
      const err = await h.store.take('c1', T0, 1).catch((x: unknown) => x);
      expect(err).toMatchObject({ status: 503, code: 'redis_unavailable' });
      const [t] = await h.store.take('c1', T0, 1);
      expect(t.id).toBe(e.id);
    } finally {
      await h.cleanup();
    }
  });

  it('release forgets a consumer with nothing pending', async () => {
    const h = await redisOutbox();
    try {
      const p = prefixOf(h);
      await h.store.enqueue(anEntry(paymentWork('ana', 'p1')), T0);
      const [t] = await h.store.take('c1', T0, 1);
      await h.store.finish(t, 'c1', { kind: 'delivered', result: {} }, T0);
      await h.store.take('c2', T0, 1);
      const names = async () => ((await h.redis!.xinfo('CONSUMERS', `${p}stream`, 'delivery')) as unknown[][]).map((c) => c[1]);
      expect((await names()).sort()).toEqual(['c1', 'c2']);
      await h.store.release('c1');
      expect(await names()).toEqual(['c2']);
    } finally {
      await h.cleanup();
    }
  });

  it('Redis unreachable: 503 redis_unavailable, never a crash', async () => {
    const h = await redisOutbox();
    const r = await testRedis();
    try {
      const { RedisOutboxStore } = await import('../../../src/pos/outbox');
      const store = new RedisOutboxStore(r, { prefix: h.prefix!, leaseMs: 1000, statusTtlSeconds: 60 });
      r.disconnect();
      for (const op of [
        () => store.enqueue(anEntry(paymentWork('a', 'p')), T0),
        () => store.take('c1', T0, 1),
        () => store.hasPending('customer:a'),
        () => store.counts(),
        () => store.get('obx_whatever1', T0),
      ]) {
        await expect(op()).rejects.toMatchObject({ status: 503, code: 'redis_unavailable' });
      }
    } finally {
      await deleteKeys(h.redis!, h.prefix!);
      await h.cleanup();
    }
  });
});

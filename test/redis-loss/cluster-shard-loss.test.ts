import Redis from 'ioredis';
import { waitFor } from '../e2e/helpers';
import { redisDurabilityProblems } from '../../src/platform/redis-durability';
import { startStack, type Stack } from '../support/e2e';
import { startRedisCluster, type RedisCluster } from '../support/redis-topologies';

/** On a Redis Cluster each master holds a marker of its own, so one shard emptied alone is noticed and named. */
describe('a Redis Cluster shard flushed alone', () => {
  let cluster: RedisCluster;
  let s: Stack;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    s = await startStack({ store: 'memory', instances: 2, env: { REDIS_CLUSTER_NODES: cluster.env, REDIS_DATASET_CHECK_MS: '200' } });
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    await cluster?.close();
  });

  it('the start-up durability check asks every master (these run without persistence)', async () => {
    const problems = await redisDurabilityProblems(s.bff.redis!, 'cluster');
    const named = problems.map((p) => /master 127\.0\.0\.1:(\d+) does not persist/.exec(p)?.[1]);
    expect(named.map(Number).sort()).toEqual(cluster.nodes.map((n) => n.port).sort());
  });

  it('every master holds a marker; flushing one is noticed by both instances, naming that shard, and recorded once', async () => {
    const nodes = cluster.nodes.map((n) => new Redis(n.port, n.host));
    try {
      const markers = await Promise.all(nodes.map((n) => n.keys(`${s.redisPrefix}dataset:{*}`)));
      // One marker per master, each on its own master.
      expect(markers.map((m) => m.length)).toEqual([1, 1, 1]);
      const flushedTag = /\{(.+)\}/.exec(markers[1][0])![1];

      await nodes[1].flushall();
      const losses = () => s.logs.map((l) => JSON.parse(l)).filter((l) => /^Redis data set lost/.test(l.msg));
      await waitFor('both instances to log the loss', () => new Set(losses().map((l) => l.instance)).size === 2, 15_000);
      for (const line of losses()) expect(line.shards).toEqual([flushedTag]);
      // The other shards' markers are untouched, and the flushed one is back.
      expect((await nodes[0].keys(`${s.redisPrefix}dataset:{*}`)).length).toBe(1);
      expect(await nodes[1].keys(`${s.redisPrefix}dataset:{*}`)).toEqual(markers[1]);
      const cl = s.bff.redis!;
      await waitFor('the window recorded', async () => (await cl.zcard(`${s.redisPrefix}dataset:losses`)) === 1, 10_000);
      const [window] = (await cl.zrange(`${s.redisPrefix}dataset:losses`, 0, -1)).map((w) => JSON.parse(w));
      expect(window.shards).toEqual([flushedTag]);
      expect(losses()).toHaveLength(2);
    } finally {
      for (const n of nodes) n.disconnect();
    }
  }, 60_000);
});

import { ConfigError, describeConfig, loadConfig } from '../../src/platform/config';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('Redis topology settings', () => {
  it('one node by REDIS_URL, a cluster by REDIS_CLUSTER_NODES, a master through REDIS_SENTINELS + REDIS_SENTINEL_NAME', () => {
    expect(loadConfig({}).redis.target).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/0' }).redis.target).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379/0' });
    expect(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.7:6379, redis-b.internal:7000,[::1]:7001', REDIS_PASSWORD: 'pw' }).redis.target).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.7', port: 6379 },
        { host: 'redis-b.internal', port: 7000 },
        { host: '::1', port: 7001 },
      ],
      username: undefined,
      password: 'pw',
    });
    expect(
      loadConfig({ REDIS_SENTINELS: '10.0.0.7:26379,10.0.0.8:26379', REDIS_SENTINEL_NAME: 'posbff', REDIS_SENTINEL_PASSWORD: 'spw' }).redis.target,
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.7', port: 26379 },
        { host: '10.0.0.8', port: 26379 },
      ],
      name: 'posbff',
      username: undefined,
      password: undefined,
      sentinelPassword: 'spw',
    });
  });

  it('refuses a mix, a missing master name, a malformed node and stray credentials, naming the variable', () => {
    expect(problemsOf({ REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'b:2' })).toEqual([
      expect.stringMatching(/^REDIS_URL, REDIS_CLUSTER_NODES: set only one/),
    ]);
    expect(problemsOf({ REDIS_SENTINELS: 'a:1' })).toEqual([expect.stringMatching(/^REDIS_SENTINEL_NAME: required/)]);
    expect(problemsOf({ REDIS_SENTINEL_NAME: 'x' })).toEqual([expect.stringMatching(/^REDIS_SENTINEL_NAME: only meaningful/)]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'a:1,nope' })[0]).toMatch(/^REDIS_CLUSTER_NODES.*host:port/);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'a:70000' })[0]).toMatch(/^REDIS_CLUSTER_NODES/);
    expect(problemsOf({ REDIS_URL: 'redis://a:1', REDIS_PASSWORD: 'pw' })).toEqual([expect.stringMatching(/^REDIS_USERNAME and REDIS_PASSWORD: only for/)]);
  });

  it('start-up shows the nodes but never a password', () => {
    const text = describeConfig(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.7:6379,10.0.0.8:6379', REDIS_PASSWORD: 'hunter2-cluster' })).join('\n');
    expect(text).toContain('nodes=10.0.0.7:6379,10.0.0.8:6379');
    expect(text).not.toContain('hunter2-cluster');
    expect(text).toMatch(/password=\(set\)/);
  });
});

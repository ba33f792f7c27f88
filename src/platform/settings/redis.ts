import { z } from 'zod';
import type { RedisTarget } from '../redis';
import { bool } from './values';
import { feature, setting, type SliceOf, type ValuesOf } from './define';

/** `host:port,host:port,...` (IPv6 hosts in brackets). */
const hostPorts = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$/, 'each entry must be host:port, e.g. 10.0.0.7:6379')).min(1))
  .transform((list) =>
    list.map((hp) => {
      const at = hp.lastIndexOf(':');
      return { host: hp.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(hp.slice(at + 1)) };
    }),
  )
  .pipe(z.array(z.object({ host: z.string(), port: z.number().int().min(1).max(65535) })));

const settings = {
  url: setting(
    'REDIS_URL',
    z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
    {
      description: 'One node, e.g. redis://127.0.0.1:6379/0 (rediss:// for TLS; credentials in the URL).',
      default: 'unset',
      readme:
        'unset (and no `REDIS_CLUSTER_NODES` or `REDIS_SENTINELS`): an in-process store (one instance, nothing survives a ' +
        'restart; start-up says so); see [Running several instances](scaling.md)',
    },
  ),
  keyPrefix: setting(
    'REDIS_KEY_PREFIX',
    z
      .string()
      .regex(/^[A-Za-z0-9:_-]*$/)
      .default('posbff:'),
    {
      description: 'Prefix of every key the BFF writes.',
    },
  ),
  clusterNodes: setting('REDIS_CLUSTER_NODES', hostPorts.optional(), {
    description:
      'Redis Cluster, instead of REDIS_URL: some of its nodes, host:port comma-separated; the others are discovered, e.g. ' +
      '10.0.0.7:6379,10.0.0.8:6379,10.0.0.9:6379.',
    default: 'unset',
  }),
  sentinels: setting('REDIS_SENTINELS', hostPorts.optional(), {
    description:
      'Sentinel, instead of REDIS_URL: the sentinels, host:port comma-separated, e.g. ' +
      '10.0.0.7:26379,10.0.0.8:26379,10.0.0.9:26379. The BFF follows the master through failovers.',
    default: 'unset',
  }),
  sentinelName: setting(
    'REDIS_SENTINEL_NAME',
    z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,128}$/, 'letters, digits, dot, underscore and dash')
      .optional(),
    {
      description: 'The master name the sentinels monitor (required with REDIS_SENTINELS).',
      default: 'unset',
    },
  ),
  username: setting('REDIS_USERNAME', z.string().min(1).optional(), {
    description: 'ACL user of the cluster nodes, or of the sentinel-managed master and replicas (only with REDIS_CLUSTER_NODES or REDIS_SENTINELS).',
    default: 'none',
  }),
  password: setting('REDIS_PASSWORD', z.string().min(1).optional(), {
    description: 'Password of the cluster nodes, or of the sentinel-managed master and replicas (only with REDIS_CLUSTER_NODES or REDIS_SENTINELS).',
    default: 'none',
  }),
  allowInMemory: setting('ALLOW_IN_MEMORY_STORE', bool.default(false), {
    description:
      'With NODE_ENV=production start-up refuses to run without Redis (a restart would lose open redemptions, ' +
      'Idempotency-Keys and queued writes). true = run without it anyway: a single-instance trial that may lose them; ' +
      'start-up logs a warning each time.',
    readme: 'production refuses to run without Redis; `true` allows it for a single-instance trial (start-up warns: a restart loses what is in flight)',
  }),
  durabilityCheck: setting('REDIS_DURABILITY_CHECK', z.enum(['refuse', 'warn', 'off']).optional(), {
    description:
      'At start-up the BFF asks Redis whether it persists (AOF or RDB snapshots) and will not evict keys (maxmemory-policy noeviction), ' +
      'by CONFIG GET or, where CONFIG is hidden, INFO. refuse = exit when it does not (or cannot be told); warn = log a warning and run; off = do not ask.',
    default: 'refuse with NODE_ENV=production, warn otherwise',
    readme: 'what start-up does when Redis does not persist or may evict keys: `refuse` (production default), `warn`, `off`',
  }),
  datasetCheckMs: setting('REDIS_DATASET_CHECK_MS', z.coerce.number().int().min(100).max(600_000).default(5000), {
    description:
      "How often each instance checks the Redis data set's marker (also at start-up and on every reconnect), in ms; a missing or replaced marker is logged as a lost data set.",
  }),
  sentinelPassword: setting('REDIS_SENTINEL_PASSWORD', z.string().min(1).optional(), {
    description: 'Password of the sentinels themselves, when they require one (only with REDIS_SENTINELS).',
    default: 'none',
  }),
};

/**
 * One node (REDIS_URL), a cluster (REDIS_CLUSTER_NODES) or a master found
 * through Sentinel (REDIS_SENTINELS with REDIS_SENTINEL_NAME); at most one of
 * the three. A URL carries its own credentials; the other two take
 * REDIS_USERNAME and REDIS_PASSWORD.
 */
function targetOf(r: ValuesOf<typeof settings>, problems: string[]): RedisTarget | undefined {
  const chosen = [r.url && 'REDIS_URL', r.clusterNodes && 'REDIS_CLUSTER_NODES', r.sentinels && 'REDIS_SENTINELS'].filter(Boolean);
  if (chosen.length > 1) problems.push(`${chosen.join(', ')}: set only one (one node, a cluster, or sentinels)`);
  if (r.sentinels && !r.sentinelName) problems.push('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the master name the sentinels monitor)');
  if (r.sentinelName && !r.sentinels) problems.push('REDIS_SENTINEL_NAME: only meaningful with REDIS_SENTINELS');
  if (r.sentinelPassword && !r.sentinels) problems.push('REDIS_SENTINEL_PASSWORD: only meaningful with REDIS_SENTINELS');
  if ((r.password || r.username) && !(r.clusterNodes || r.sentinels)) {
    problems.push('REDIS_USERNAME and REDIS_PASSWORD: only for REDIS_CLUSTER_NODES or REDIS_SENTINELS (put them in REDIS_URL for one node)');
  }
  const auth = { username: r.username, password: r.password };
  if (r.url) return { kind: 'single', url: r.url };
  if (r.clusterNodes) return { kind: 'cluster', nodes: r.clusterNodes, ...auth };
  if (r.sentinels && r.sentinelName) {
    return { kind: 'sentinel', sentinels: r.sentinels, name: r.sentinelName, ...auth, sentinelPassword: r.sentinelPassword };
  }
  return undefined;
}

export const redis = feature({
  title: 'Redis',
  notes: [
    'Redis for redemptions, hold expiry, idempotency and the outbox. Set at most one of REDIS_URL, REDIS_CLUSTER_NODES ' +
      'and REDIS_SENTINELS. None: an in-process store is used and nothing survives a restart.',
  ],
  settings,
  // `url` stays beside the target so start-up can show it with its password masked.
  read: (values, { env }, problems) => ({
    url: values.url,
    keyPrefix: values.keyPrefix,
    target: targetOf(values, problems),
    allowInMemory: values.allowInMemory,
    durabilityCheck: values.durabilityCheck ?? (env === 'production' ? 'refuse' : 'warn'),
    datasetCheckMs: values.datasetCheckMs,
  }),
});

export type RedisSettings = SliceOf<typeof redis>;

import Redis, { Cluster, ReplyError, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { problem } from './problem';

export type { Redis, Cluster };

/** A connection of any topology: the stores use only commands both offer. */
export type RedisClient = Redis | Cluster;

export interface HostPort {
  host: string;
  port: number;
}

/**
 * Where Redis is: one node by URL, a Redis Cluster (any of its nodes; the rest
 * are discovered), or a master found through Sentinel (it follows failovers).
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: HostPort[]; username?: string; password?: string }
  | { kind: 'sentinel'; sentinels: HostPort[]; name: string; username?: string; password?: string; sentinelPassword?: string };

/** The Lua commands defined without `numberOfKeys` (the hold sweep, the coupon lock claim, the outbox pick). */
export const VARIABLE_KEY_SCRIPTS = ['rdmSweep', 'cplClaim', 'obxPick'] as const;

export interface ConnectRedisOptions {
  /** Prepended by ioredis to every key (and to script KEYS). */
  keyPrefix?: string;
  /** Do not connect until the first command or `waitForRedis`. */
  lazy?: boolean;
  /** Ceiling of the reconnect backoff; reconnecting never stops. Default 2000 ms. */
  retryMaxMs?: number;
  /**
   * A command that gets no reply in this time rejects, so a hung (not closed)
   * Redis still makes routes answer 503 quickly. Default 2000 ms. Do not use
   * blocking commands (BLPOP, ...) on this client.
   */
  commandTimeoutMs?: number;
}

/** The URL with its password masked, fit for a log line or an error message. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparseable redis url>';
  }
}

/** The target for a log line or an error message; never a password. */
function describeRedisTarget(target: RedisTarget): string {
  const list = (nodes: HostPort[]) => nodes.map((n) => `${n.host}:${n.port}`).join(',');
  switch (target.kind) {
    case 'single':
      return safeRedisUrl(target.url);
    case 'cluster':
      return `cluster ${list(target.nodes)}`;
    case 'sentinel':
      return `sentinel master "${target.name}" via ${list(target.sentinels)}`;
  }
}

/** Reconnect delay: doubles from 50 ms up to `maxMs`, with jitter so instances do not stampede. */
export function reconnectDelay(attempt: number, maxMs: number): number {
  const base = Math.min(maxMs, 50 * 2 ** Math.min(attempt, 16));
  return Math.max(10, Math.round(base * (0.8 + Math.random() * 0.2)));
}

/**
 * An ioredis client that reconnects by itself forever but never makes a caller
 * wait for it: once connected, commands issued while Redis is away reject at
 * once (no offline queue), and a command already sent is retried at most once.
 * Before the first connection commands queue, so start-up can issue them early.
 * A URL string is a single node; see RedisTarget for Cluster and Sentinel.
 */
export function connectRedis(url: string, logger: Logger, opts?: ConnectRedisOptions): Redis;
export function connectRedis(target: RedisTarget, logger: Logger, opts?: ConnectRedisOptions): RedisClient;
export function connectRedis(target: string | RedisTarget, logger: Logger, opts: ConnectRedisOptions = {}): RedisClient {
  const t: RedisTarget = typeof target === 'string' ? { kind: 'single', url: target } : target;
  const where = describeRedisTarget(t);
  const retryMaxMs = opts.retryMaxMs ?? 2000;
  const retryStrategy = (attempt: number) => reconnectDelay(attempt, retryMaxMs);
  const node = {
    maxRetriesPerRequest: 1,
    commandTimeout: opts.commandTimeoutMs ?? 2000,
    connectTimeout: 2000,
    keepAlive: 10_000,
    // disconnect() waits this long for a socket to close before destroying it. ioredis
    // (5.x) also arms this timer on a socket already gone when disconnecting mid-reconnect,
    // which would hold the process open for the 2 s default.
    disconnectTimeout: 200,
  } satisfies RedisOptions;
  const common = {
    keyPrefix: opts.keyPrefix || undefined,
    lazyConnect: opts.lazy ?? false,
    enableOfflineQueue: true,
    // Commands issued in the same tick go out in one write (per node on a cluster). Every
    // request makes several small Redis calls, and the bench showed the socket writes as the BFF's top cost.
    enableAutoPipelining: true,
    // A script defined without a fixed key count takes the count as its first argument, and
    // auto-pipelining routes a command by its first argument's slot: on a cluster such a script
    // joined another node's pipeline and failed every command in it (a sale's SET answered 503).
    // They are sent on their own.
    autoPipeliningIgnoredCommands: [...VARIABLE_KEY_SCRIPTS],
  };
  let client: RedisClient;
  if (t.kind === 'cluster') {
    const options: ClusterOptions = {
      ...common,
      clusterRetryStrategy: retryStrategy,
      // Writes and reads both go to masters: a replica may lag, and every read here decides something.
      scaleReads: 'master',
      slotsRefreshTimeout: 2000,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      redisOptions: { ...node, username: t.username, password: t.password },
    };
    client = new Cluster(t.nodes, options);
  } else if (t.kind === 'sentinel') {
    client = new Redis({
      ...node,
      ...common,
      sentinels: t.sentinels,
      name: t.name,
      role: 'master',
      username: t.username,
      password: t.password,
      sentinelPassword: t.sentinelPassword,
      retryStrategy,
      sentinelRetryStrategy: retryStrategy,
      // On a lost connection ioredis asks the sentinels for the master again. Its
      // failoverDetector (5.x) would also catch a manual failover, but its sentinel
      // subscriptions outlive quit() and keep the process from exiting.
      // A demoted master answers writes with READONLY: drop that connection and ask the sentinels again.
      reconnectOnError: (err) => /^READONLY/.test(err.message),
    });
  } else {
    client = new Redis(t.url, { ...node, ...common, retryStrategy });
  }
  const log = logger.child({ component: 'redis', redis: where });

  // Log transitions, not every failed retry: an outage writes one warning, not one per second.
  let lastError = '';
  let wasReady = false;
  client.on('ready', () => {
    client.options.enableOfflineQueue = false;
    lastError = '';
    log.info(wasReady ? 'redis reconnected' : 'redis ready');
    wasReady = true;
  });
  client.on('error', (err: Error) => {
    if (err.message === lastError) return;
    lastError = err.message;
    log.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'redis error');
  });
  client.on('close', () => {
    if (wasReady && client.status !== 'end') log.warn('redis connection closed; reconnecting');
  });
  client.on('end', () => log.info('redis connection ended'));
  return client;
}

/** True when Redis answers PING within `timeoutMs`. Never throws. */
export async function redisReady(client: RedisClient, timeoutMs = 500): Promise<boolean> {
  if (client.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      client.ping().then(
        (r) => r === 'PONG',
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the client is ready; rejects with a 503-class error after `timeoutMs`. */
export async function waitForRedis(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  if (client.status === 'wait') client.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(problem('redis_unavailable', `Redis (${whereIs(client)}) was not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    client.once('ready', onReady);
  });
}

function whereIs(client: RedisClient): string {
  if (client instanceof Cluster) return 'cluster';
  const { host, port, sentinels, name } = client.options;
  return sentinels?.length ? `sentinel master "${name}"` : `${host}:${port}`;
}

/** Redis replies that mean "not now" rather than "wrong" (NOGROUP: a stream group lost with a restarted server). */
const TRANSIENT_REPLY = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|OOM|NOREPLICAS|NOGROUP)\b/;

/**
 * What a failed Redis command means for a caller: a lost or busy Redis is a
 * 503 `redis_unavailable` the till may retry; any other reply error is a bug
 * (e.g. in a script) and is returned as it is, to surface as one.
 */
export function redisUnavailable(err: unknown, what: string): unknown {
  if (err instanceof (ReplyError as typeof Error) && !TRANSIENT_REPLY.test(err.message)) return err;
  return problem('redis_unavailable', `The ${what} (Redis) is unavailable; try again shortly`, { retryAfterSeconds: 1, cause: err });
}

/** A Lua script for `defineScripts`: its source and how many of its arguments are keys (omitted when each call passes the count first). */
export interface LuaScript {
  lua: string;
  keys?: number;
}

/**
 * The one way scripts are put on a client: each becomes a method named as in
 * `scripts`, typed by `T`, run by EVALSHA (ioredis falls back to EVAL once per
 * connection, so a restarted Redis loses nothing). Atomic on one node; on a
 * cluster every key of one call must share a slot.
 */
export function defineScripts<T extends object>(redis: RedisClient, scripts: { [K in keyof T]: LuaScript }): RedisClient & T {
  for (const [name, s] of Object.entries(scripts) as [string, LuaScript][])
    redis.defineCommand(name, s.keys === undefined ? { lua: s.lua } : { numberOfKeys: s.keys, lua: s.lua });
  return redis as RedisClient & T;
}

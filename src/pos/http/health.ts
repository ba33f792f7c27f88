import { Router } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { redisReady, type RedisClient } from '../../platform/redis';
import type { ReadinessSchema } from '../answers';
import type { Same } from '../../platform/validation';

export interface HealthOptions {
  /** Unset: the in-process store; the check reads `not_configured`. */
  redis?: RedisClient;
  /** Any HTTP answer from here within the timeout means the upstream is reachable. */
  upstreamBaseUrl: string;
  sweeperRunning(): boolean;
  /** The outbox delivery worker; unset: this instance runs none and the check is left out. */
  workerRunning?(): boolean;
  /** Terminals that can call; with none (a fresh install) the instance is not ready. Unset: the check is left out. */
  activeTerminals?(): number;
  /**
   * True while the terminals file's newest change could not be loaded: the check reads `stale`, and the instance stays
   * ready (every instance reads the same file, so one bad edit would take the whole fleet out of the balancer; the
   * gauge and its alert say that revocations since are not applied). Unset: never stale.
   */
  terminalsStale?(): boolean;
  /** True while the loyalty service refuses the key pair calls use (src/upstream/keys.ts); unset: the check is left out. */
  loyaltyKeyRefused?(): boolean;
  /** True once shutdown began: load balancers should stop sending. */
  shuttingDown?(): boolean;
  /** The last Redis data set loss this instance found, if any: shown as a detail, readiness unchanged. */
  redisDatasetLoss?(): { from: number; to: number } | undefined;
  /** Default 1000 ms. */
  upstreamTimeoutMs?: number;
  /** The upstream result is reused this long, so probes do not hit the loyalty service each time. Default 5000 ms. */
  upstreamCacheMs?: number;
  clock?: () => number;
  /** Hands over readiness for `pos_ready`, read at scrape time: an instance no balancer probes still shows it. */
  sampleReady?: (ready: () => Promise<number>) => void;
  /** Where a change of readiness is logged (once per change; probes themselves are not logged). Unset: not logged. */
  logger?: Logger;
}

export type CheckState = 'ok' | 'down' | 'not_configured' | 'stopped' | 'shutting_down' | 'none' | 'stale' | 'refused';

export interface Readiness {
  status: 'ready' | 'not_ready';
  checks: {
    redis: CheckState;
    upstream: CheckState;
    sweeper: CheckState;
    worker?: CheckState;
    terminals?: CheckState;
    loyaltyKey?: CheckState;
    process: CheckState;
  };
  redisDataset?: { lostAt: string; lastSeenGoodAt: string };
}

// The routes' answers are checked against their schemas where each route entry compiles (src/pos/http/route.ts);
// readiness is served outside the route table, so it is checked here against its schema (src/pos/answers.ts).
const inStep: Same<z.output<typeof ReadinessSchema>, Readiness> = true;
void inStep;

/** Reachability of the upstream, checked at most once per cache period (concurrent probes share one request). */
function upstreamProbe(baseUrl: string, timeoutMs: number, cacheMs: number, clock: () => number): () => Promise<boolean> {
  let cached: { ok: boolean; at: number } | undefined;
  let inFlight: Promise<boolean> | undefined;
  return () => {
    if (cached && clock() - cached.at < cacheMs) return Promise.resolve(cached.ok);
    inFlight ??= fetch(baseUrl, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
      .then(
        async (res) => {
          await res.body?.cancel().catch(() => undefined);
          return true;
        },
        () => false,
      )
      .then((ok) => {
        cached = { ok, at: clock() };
        inFlight = undefined;
        return ok;
      });
    return inFlight;
  };
}

/** A check that leaves the instance ready: a stale terminals file still serves the terminals it loaded (see terminalsStale). */
const passes = (name: string, c: CheckState) => c === 'ok' || c === 'not_configured' || (name === 'terminals' && c === 'stale');

/**
 * Logs readiness when it changes, not per probe: a balancer polling every few seconds would otherwise fill the log.
 * Ready is info; not ready is a warning naming the checks that fail (a state, not an error: no stack). A change of
 * which checks fail while not ready is a change too.
 */
function readinessChanges(logger: Logger | undefined): (ready: boolean, checks: Readiness['checks']) => void {
  let last: string | undefined;
  return (ready, checks) => {
    const failing = Object.fromEntries(Object.entries(checks).filter(([name, c]) => !passes(name, c)));
    const state = JSON.stringify([ready, failing]);
    if (!logger || state === last) return;
    last = state;
    if (ready) logger.info({ component: 'readiness', readiness: 'ready', checks }, 'ready: /readyz answers 200');
    else
      logger.warn(
        { component: 'readiness', readiness: 'not_ready', failing },
        `not ready: /readyz answers 503 (${Object.entries(failing)
          .map(([n, c]) => `${n}: ${c}`)
          .join(', ')})`,
      );
  };
}

/** A file that failed to reload is named before an empty one: its fix is to repair the file, not to add a terminal. */
function terminalsCheck(active: number, stale: boolean): CheckState {
  if (stale) return 'stale';
  return active > 0 ? 'ok' : 'none';
}

/**
 * `/healthz`: the process answers. `/readyz`: this instance can serve
 * checkouts (Redis when configured, the upstream, the loyalty keys accepted, the hold sweeper,
 * the outbox worker, at least one terminal, not shutting down); 503 names what is not. Both without auth, outside /pos/v1.
 */
export function healthRoutes(opts: HealthOptions): Router {
  const router = Router();
  const clock = opts.clock ?? Date.now;
  const upstreamUp = upstreamProbe(opts.upstreamBaseUrl, opts.upstreamTimeoutMs ?? 1000, opts.upstreamCacheMs ?? 5000, clock);
  const logChange = readinessChanges(opts.logger);

  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });

  const evaluate = async () => {
    const [redis, upstream] = await Promise.all([
      opts.redis ? redisReady(opts.redis, 500).then((ok) => (ok ? 'ok' : 'down') as CheckState) : Promise.resolve<CheckState>('not_configured'),
      upstreamUp().then((ok) => (ok ? 'ok' : 'down') as CheckState),
    ]);
    const checks: Readiness['checks'] = {
      redis,
      upstream,
      sweeper: opts.sweeperRunning() ? 'ok' : 'stopped',
      ...(opts.workerRunning ? { worker: opts.workerRunning() ? ('ok' as const) : ('stopped' as const) } : {}),
      ...(opts.activeTerminals ? { terminals: terminalsCheck(opts.activeTerminals(), opts.terminalsStale?.() ?? false) } : {}),
      ...(opts.loyaltyKeyRefused ? { loyaltyKey: opts.loyaltyKeyRefused() ? ('refused' as const) : ('ok' as const) } : {}),
      process: opts.shuttingDown?.() ? 'shutting_down' : 'ok',
    };
    const ready = Object.entries(checks).every(([name, c]) => passes(name, c));
    logChange(ready, checks);
    return { ready, checks };
  };
  opts.sampleReady?.(async () => ((await evaluate()).ready ? 1 : 0));

  router.get('/readyz', async (_req, res) => {
    const { ready, checks } = await evaluate();
    res.setHeader('Cache-Control', 'no-store');
    const loss = opts.redisDatasetLoss?.();
    const redisDataset = loss && { lostAt: new Date(loss.to).toISOString(), lastSeenGoodAt: new Date(loss.from).toISOString() };
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks, ...(redisDataset ? { redisDataset } : {}) } satisfies Readiness);
  });

  return router;
}

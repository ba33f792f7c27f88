import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import { createMetrics, type Metrics } from '../platform/metrics';
import { claimLeaseSecondsOf } from '../platform/settings/money';
import { connectRedis, waitForRedis, type RedisClient } from '../platform/redis';
import { DatasetWatch, lossWindows } from '../platform/redis-dataset';
import { redisDurabilityProblems } from '../platform/redis-durability';
import { PeriodicTask } from '../platform/periodic-task';
import { createAppServer } from '../platform/tls';
import { LoyaltyClient } from '../upstream';
import { budgetPolicy, CircuitBreaker, createBudget } from '../upstream/policies';
import { createKeyVerdicts, KeyCheck } from '../upstream/key-check';
import { createBffApp } from './app';
import { CouponLockSweeper, createCouponLockStore } from './coupons/locks';
import { RedemptionOptionsCache } from './redemptions/options';
import type { PosDeps } from './deps';
import { posSettings } from './settings';
import { healthRoutes } from './http/health';
import { createOpsApp } from './http/ops';
import { requireRedis } from './http/redis-gate';
import { createIdempotencyStore, idempotency, type IdempotencyStore } from './idempotency';
import { createTillAnswerStore } from './till-answers';
import { countExpiredHold, countUpstreamCall, instrumentRedemptions } from './metrics';
import { trackKeyVerdicts } from './metrics/loyalty-keys';
import { countOutboxOutcome } from './outbox/metrics';
import { createOtpMode, createOtpTickets, UpstreamOtp } from './otp';
import { createOutboxStore, OutboxWorker } from './outbox';
import { endDueHold } from './redemptions/hold-outcome';
import { adoptLeaselessClaims, auditCouponLockAfterLease, redisAdoptionMarker, saleLeaseSweeper, settleHoldAfterLease } from './claim-leases';
import { setClaimLeaseMs } from './money/lease';
import { createRedemptionStore, HoldSweeper } from './redemptions';
import { RepairQueue } from './money/repairs';
import { createSaleRecords } from './sales/records';
import { createBatchJobStore, rememberDeliveredJob } from './orders/batch-jobs';
import { settleQueuedSale } from './sales/claims';
import { giveBackExpired, givingBackOnEnd, MemoryCapCounter, RedemptionCap, RedisCapCounter } from './redemptions/cap';
import { standInLapsed } from './redemptions/stand-in';
import { SIGNALS } from './audit/signals';
import { AuditTrail, createAuditStore } from './audit';
import { auditedRepair } from './audit/record';
import { reconciliationDepsOf } from './reconciliation';
import { startDailyReconciliation } from './reconciliation/daily';
import { bffSecurity, hostNameOf, openRedemptionCapFor, opsDocsOrigin } from './security';
import { localAddressOf } from '../platform/local-address';
import { TerminalRegistry } from './terminals';
import { customerPseudonym, pseudonymKey } from './privacy/pseudonym';
import { ErasureFollowUp } from './privacy/follow-up';
import { RegistrySync } from './terminals/fleet-sync';
import { createStandInLedger } from './stand-in/ledger';
import { settleStandIn } from './sales/stand-in-sale';

export interface UpstreamTarget {
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  /** The bundled sandbox only: reads the account's OTP setting, live. Absent: learnt from the upstream's answers, fleet-wide. */
  otpRequired?: () => boolean;
}

export interface RunningBff {
  url: string;
  port: number;
  /** The ops listener (OPS_PORT), when there is one. */
  ops?: { url: string; port: number };
  /** The terminals file as this instance reads it (reloaded as it changes). */
  registry: TerminalRegistry;
  app: Express;
  deps: PosDeps;
  sweeper: HoldSweeper;
  /** Releases coupon locks nobody paid with in time. */
  couponLockSweeper: CouponLockSweeper;
  redis?: RedisClient;
  /** The Redis data set's marker as this instance remembers it (absent without Redis). */
  redisDataset?: DatasetWatch;
  idempotency: IdempotencyStore;
  metrics: Metrics;
  /** Delivers the outbox; stopped (finishing the entries in hand) by close(). */
  outboxWorker: OutboxWorker;
  breaker: CircuitBreaker;
  /**
   * Work to stop on close (e.g. the outbox worker): run after in-flight
   * requests finished and before the stores and Redis close, in order added.
   */
  onClose(hook: () => Promise<void> | void): void;
  /**
   * The grace before close(): /readyz answers 503 (`shutting_down`) on both listeners and every answer closes its
   * connection, so a balancer stops sending and keep-alive tills reconnect elsewhere; the port keeps serving meanwhile.
   */
  beginShutdown(): void;
  /** Stops taking requests, finishes in-flight ones, stops the sweeper and the onClose hooks, closes Redis. Safe to call twice. */
  close(): Promise<void>;
}

/** Assembles the BFF from configuration and listens. Used by main and by end-to-end tests. */
export async function startBff(
  config: Config,
  upstream: UpstreamTarget,
  logger: Logger,
  opts: { clock?: () => number; metrics?: Metrics } = {},
): Promise<RunningBff> {
  const clock = opts.clock ?? Date.now;
  const metrics = opts.metrics ?? createMetrics();
  const redis = config.redis.target ? connectRedis(config.redis.target, logger) : undefined;
  if (redis) {
    redis.on('error', () => metrics.redisErrors.inc());
    metrics.sample('redisUp', () => (redis.status === 'ready' ? 1 : 0));
    await waitForRedis(redis, 10_000);
  }
  const dataset = redis && watchDataset(redis, config, logger, metrics, clock);
  if (dataset) await dataset.watch.check();
  setClaimLeaseMs(claimLeaseSecondsOf(config.money, config.loyalty) * 1000);
  const redemptionCap = new RedemptionCap(redis ? new RedisCapCounter(redis) : new MemoryCapCounter(clock), {
    prefix: config.redis.keyPrefix,
    timeZone: config.reconciliation.timeZone,
  });
  const redemptions = givingBackOnEnd(
    instrumentRedemptions(createRedemptionStore({ redis, prefix: config.redis.keyPrefix, askBeforeEnding: true }), metrics),
    redemptionCap,
    logger,
  );
  metrics.sample('holdsOpen', () => redemptions.countOpen());
  if (!redis) logger.warn('REDIS_URL is not set: redemptions are kept in this process only and nothing will survive a restart');
  if (config.money.kioskQr && config.env === 'production') {
    logger.warn(
      { setting: 'KIOSK_QR' },
      "KIOSK_QR=true: a kiosk can read any customer's hash, which is their proof of presence at a till; keep it only where kiosks establish who the customer is",
    );
  }
  const otpTickets = createOtpTickets({ redis, prefix: config.redis.keyPrefix });
  const idempotencyStore = createIdempotencyStore({ redis, prefix: config.redis.keyPrefix });
  const closeHooks: (() => Promise<void> | void)[] = [];
  if (dataset) closeHooks.push(dataset.stop);
  let sweeperRunning = false;
  let workerRunning = false;
  let shuttingDown = false;

  // Breaker outermost: an open circuit refuses before budget is spent.
  const breaker = new CircuitBreaker({ ...config.upstream.breaker, clock, logger, onStateChange: (s) => metrics.setCircuitState(s) });
  const budget = createBudget({ redis, prefix: config.redis.keyPrefix, rules: config.upstream.budget, logger });
  const policies = [breaker.policy, budgetPolicy(budget, config.upstream.pauses)];
  const loyalty = new LoyaltyClient({
    baseUrl: upstream.baseUrl,
    apiKey: upstream.apiKey,
    secretKey: upstream.secretKey,
    nextKeys: config.loyalty.secretKeyNext ? { apiKey: config.loyalty.apiKeyNext ?? upstream.apiKey, secretKey: config.loyalty.secretKeyNext } : undefined,
    keyRetryAfterSeconds: Math.min(config.loyalty.keyCheckSeconds, 30),
    timeoutMs: config.loyalty.timeoutMs,
    retries: config.loyalty.retries,
    logger,
    onCall: countUpstreamCall(metrics),
    onBudgetRefusal: (operation) => metrics.upstreamBudgetRefusals.inc({ operation }),
    policies,
  });
  trackKeyVerdicts(loyalty.keys, metrics);
  const keyCheck = new KeyCheck({
    keys: loyalty.keys,
    loyalty,
    store: createKeyVerdicts({ redis, prefix: config.redis.keyPrefix, now: clock }),
    intervalMs: config.loyalty.keyCheckSeconds * 1000,
    logger,
    now: clock,
  });
  keyCheck.start();
  closeHooks.push(() => keyCheck.stop());
  const outbox = createOutboxStore({
    redis,
    prefix: config.redis.keyPrefix,
    leaseMs: config.outbox.claimIdleMs,
    statusTtlSeconds: config.outbox.statusTtlSeconds,
  });
  metrics.sample('outboxDepth', async () => (await outbox.counts()).pending);
  if (!redis) logger.warn('REDIS_URL is not set: queued writes (outbox) are kept in this process only and are lost if it stops');
  const batchJobs = createBatchJobStore({ redis, prefix: config.redis.keyPrefix });
  const pseudonyms = pseudonymKey(config.audit.pseudonymKey, upstream.secretKey);
  const deps: PosDeps = {
    settings: posSettings(config),
    loyalty,
    standInLedger: createStandInLedger({ redis, prefix: config.redis.keyPrefix, clock }),
    sales: createSaleRecords({ redis, prefix: config.redis.keyPrefix, ttlDays: config.money.saleRecordDays, clock }),
    stores: () => registry.stores(),
    redemptions,
    // A payment's used coupons are kept as long as its sale record, for a refund or void to report.
    couponLocks: createCouponLockStore({ redis, prefix: config.redis.keyPrefix, usedKeepMs: config.money.saleRecordDays * 86_400_000 }),
    redemptionOptions: new RedemptionOptionsCache(loyalty, config.pos.redemptionOptionsTtlSeconds * 1000, clock, logger),
    upstreamOtp: new UpstreamOtp({
      store: createOtpMode({ redis, prefix: config.redis.keyPrefix }),
      clock,
      logger,
      mode: config.pos.otpMode,
      recheckMs: config.pos.otpModeRecheckMinutes * 60_000,
      accountSetting: upstream.otpRequired,
    }),
    otpTickets,
    outbox,
    batchJobs,
    tillAnswers: createTillAnswerStore({ redis, prefix: config.redis.keyPrefix, clock }),
    redemptionCap,
    openRedemptions: openRedemptionCapFor(config.security, redemptions, { redis, keyPrefix: config.redis.keyPrefix }),
    clock,
    logger,
    metrics,
    redisLosses: redis && ((from, to) => lossWindows(redis, config.redis.keyPrefix, from, to)),
    audit: new AuditTrail({
      store: createAuditStore({ redis, prefix: config.redis.keyPrefix, retentionDays: config.audit.retentionDays }),
      logger,
      clock,
      onFailure: (what) => metrics.auditFailures.inc({ what }),
    }),
    idempotency: idempotencyStore,
    customerPseudonym: (customerId) => customerPseudonym(pseudonyms, customerId),
  };
  // The follow-up erases through these very deps, so it joins them once they exist.
  const erasureFollowUp = new ErasureFollowUp(deps, config.audit.erasureSecondPassSeconds * 1000);
  deps.erasureFollowUp = erasureFollowUp;
  closeHooks.push(() => erasureFollowUp.stop());
  const repairs = new RepairQueue({ intervalMs: 1000, logger, onAdd: auditedRepair });
  deps.repairs = repairs;
  metrics.sample('repairsPending', () => repairs.size);
  repairs.start();
  closeHooks.push(() => repairs.stop());
  // Every signal's series from the start (0), so an alert sees its first count as a rise.
  for (const signal of SIGNALS) metrics.abuseSignals.inc({ signal }, 0);
  const daily = config.reconciliation.dailyAt;
  if (daily) {
    // The stores served (the fleet's registry with TERMINALS_SHARED=redis); asked at the day's run, after start-up.
    const stores = () => registry.stores().map((st) => st.id);
    const opts = {
      deps: reconciliationDepsOf(deps),
      at: daily,
      dir: config.reconciliation.reportDir,
      stores,
      redis,
      prefix: config.redis.keyPrefix,
      logger,
      clock,
      onAnomaly: (kind: string) => metrics.reconciliationAnomalies.inc({ kind }),
      onSignal: (signal: string) => metrics.abuseSignals.inc({ signal }),
    };
    closeHooks.push(startDailyReconciliation(opts));
  }
  const shared = config.pos.terminalsShared === 'redis' && redis;
  const registry = new TerminalRegistry(config.pos.terminalsFile, {
    logger,
    shared: Boolean(shared),
    onReloadFailure: () => metrics.terminalsFileReloadFailures.inc(),
  });
  metrics.sample('terminalsFileCurrent', () => (registry.fileState().current ? 1 : 0));
  metrics.sample('terminalsRegistryGeneration', () => registry.generation);
  if (shared) {
    const sync = new RegistrySync({
      registry,
      redis: shared,
      prefix: config.redis.keyPrefix,
      logger,
      onReseed: (reason) => metrics.terminalsRegistryReseeds.inc({ reason }),
    });
    // Before listening: an instance starts serving the fleet's registry, not only its own file's.
    await sync.check();
    sync.start();
    closeHooks.push(() => sync.stop());
    metrics.sample('terminalsRegistryInStep', () => (sync.state === 'in_step' ? 1 : 0));
  }
  const health = healthRoutes({
    redis,
    upstreamBaseUrl: upstream.baseUrl,
    sweeperRunning: () => sweeperRunning,
    workerRunning: () => workerRunning,
    activeTerminals: () => registry.activeTerminals(),
    terminalsStale: () => !registry.fileState().current,
    shuttingDown: () => shuttingDown,
    redisDatasetLoss: () => dataset?.watch.lastLoss,
    loyaltyKeyRefused: () => loyalty.keys.refused(),
    sampleReady: (ready) => metrics.sample('ready', ready),
    logger,
  });
  // The ops listener's port once it listens: the /docs page there is an origin the cashier API lets call it.
  let opsListening: number | undefined;
  const app = createBffApp({
    deps,
    registry,
    logger,
    bodyLimitBytes: config.http.bodyLimitBytes,
    trustProxy: config.money.trustProxy,
    security: bffSecurity({ security: config.security, http: config.http }, { redis, keyPrefix: config.redis.keyPrefix }, logger),
    idempotency: idempotency({
      store: idempotencyStore,
      ttlMs: config.idempotency.ttlMs,
      leaseMs: config.idempotency.leaseMs,
      clock,
      logger,
      answers: deps.tillAnswers,
    }),
    answerTtlMs: config.idempotency.ttlMs,
    requireRedis: redis ? requireRedis(redis) : undefined,
    mountOps: (ops) => ops.use(health),
    serveMetrics: config.ops.metrics === 'cashier_port',
    serveDocs: config.ops.docs === 'cashier_port',
    docsOrigin: config.ops.docs === 'ops_port' ? (req) => (opsListening === undefined ? undefined : opsDocsOrigin(opsListening)(req)) : undefined,
  });
  const sweeper = new HoldSweeper({
    store: redemptions,
    intervalMs: config.pos.sweeperIntervalMs,
    logger,
    clock,
    onExpired: (r, via) => {
      countExpiredHold(metrics)(r, via);
      giveBackExpired(redemptionCap, logger)(r);
      standInLapsed(deps, logger)(r);
    },
    settle: settleHoldAfterLease(deps),
    endHeld: (r) => endDueHold(deps, r),
  });
  sweeper.start();
  sweeperRunning = true;
  let adoptionStopped = false;
  const adopting = adoptLeaselessClaims(deps, redis ? redisAdoptionMarker(redis, config.redis.keyPrefix) : undefined, () => adoptionStopped);
  // The scan stops at its next batch: shutdown waits for that batch only.
  closeHooks.push(() => {
    adoptionStopped = true;
    return adopting;
  });
  // Sale and refund ids a crash left claimed: settled at start-up and on a timer once their lease is over.
  const saleLeases = saleLeaseSweeper(deps, {
    intervalMs: config.pos.sweeperIntervalMs,
    recheckMs: 30_000,
    onGivenUp: (e) => metrics.claimsGivenUp.inc({ kind: e.kind }),
  });
  saleLeases.start();
  closeHooks.push(() => saleLeases.stop());
  const couponLockSweeper = new CouponLockSweeper({
    store: deps.couponLocks,
    sales: deps.sales,
    loyalty,
    intervalMs: config.pos.sweeperIntervalMs,
    logger,
    clock,
    onSettled: auditCouponLockAfterLease(deps),
  });
  couponLockSweeper.start();
  closeHooks.push(() => couponLockSweeper.stop());
  const outboxWorker = new OutboxWorker({
    ...config.outbox,
    store: outbox,
    loyalty,
    recordAnswer: async (entry, result, log) => {
      await rememberDeliveredJob(batchJobs, clock)(entry, result, log);
      await settleStandIn(deps)(entry, result, log);
    },
    settle: settleQueuedSale(deps.sales),
    idRecordOf: (kind, id) => deps.sales.get(kind, id),
    logger,
    clock,
    leaseMs: config.outbox.claimIdleMs,
    onOutcome: countOutboxOutcome(metrics),
  });
  outboxWorker.start();
  workerRunning = true;
  closeHooks.push(() => outboxWorker.stop());

  const server: Server = await new Promise((resolve, reject) => {
    // HTTPS when TLS_CERT_FILE/TLS_KEY_FILE are set; headers bounded either way.
    const s = createAppServer(app, config.http);
    s.once('error', reject);
    s.listen(config.http.port, config.http.host, () => resolve(s));
  });
  // Operators' endpoints on a port of their own: plain HTTP, for a scraper and a person, never a till.
  let opsServer: Server | undefined;
  if (config.ops.port !== undefined) {
    const opsApp = createOpsApp({
      logger,
      health,
      metrics: config.ops.metrics === 'ops_port' ? metrics : undefined,
      docs: config.ops.docs === 'ops_port',
      tillOrigin: (req) => {
        const host = hostNameOf(req);
        return host && `${config.http.tls ? 'https' : 'http'}://${host}:${(server.address() as AddressInfo).port}`;
      },
    });
    opsServer = await new Promise<Server>((resolve, reject) => {
      const s = createServer(opsApp);
      s.listen(config.ops.port, config.ops.host);
      s.once('error', (err) => {
        server.close();
        reject(Object.assign(err, { setting: 'OPS_PORT' }));
      });
      s.once('listening', () => resolve(s));
    });
    opsListening = (opsServer.address() as AddressInfo).port;
  }
  // Tills keep connections open; let them, but not forever.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;
  // While shutting down, every answer closes its connection, so keep-alive tills reconnect to another instance.
  server.prependListener('request', (_req, res) => {
    if (shuttingDown) res.setHeader('Connection', 'close');
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const urlOf = (scheme: string, bindHost: string, p: number) => {
    const host = localAddressOf(bindHost);
    return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${p}`;
  };
  const opsPort = opsServer && (opsServer.address() as AddressInfo).port;

  return {
    url: urlOf(config.http.tls ? 'https' : 'http', config.http.host, port),
    port,
    ops: opsPort !== undefined ? { url: urlOf('http', config.ops.host, opsPort), port: opsPort } : undefined,
    registry,
    app,
    deps,
    sweeper,
    couponLockSweeper,
    redis,
    redisDataset: dataset?.watch,
    idempotency: idempotencyStore,
    metrics,
    outboxWorker,
    breaker,
    onClose(hook) {
      closeHooks.push(hook);
    },
    beginShutdown() {
      shuttingDown = true;
    },
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        sweeperRunning = false;
        workerRunning = false;
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        opsServer?.close();
        opsServer?.closeAllConnections();
        // Connections go idle as their last answer is sent; close them as they do.
        const idle = setInterval(() => server.closeIdleConnections(), 50);
        server.closeIdleConnections();
        // The sweeper (and its read-expiry listener, which gives an expired stand-in's or hold's points back) stops once the last request is answered.
        await drained.finally(() => clearInterval(idle));
        await sweeper.stop();
        for (const hook of closeHooks) {
          await Promise.resolve()
            .then(hook)
            .catch((err) => logger.error({ err }, 'a close hook failed'));
        }
        loyalty.close?.();
        await deps.audit?.close();
        await redemptions.close();
        await otpTickets.close();
        await outbox.close();
        await idempotencyStore.close();
        await redis?.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}

/** The data set's marker checked at start-up (by the caller), on every reconnect and every REDIS_DATASET_CHECK_MS. */
function watchDataset(redis: RedisClient, config: Config, logger: Logger, metrics: Metrics, clock: () => number) {
  const watch = new DatasetWatch({
    redis,
    prefix: config.redis.keyPrefix,
    logger,
    clock,
    onLoss: (w) => {
      metrics.redisDatasetLosses.inc();
      metrics.redisDatasetLastLoss.set(w.to / 1000);
    },
  });
  const task = new PeriodicTask({
    everyMs: config.redis.datasetCheckMs,
    logger,
    pass: () => watch.check(),
    messages: { failing: 'checking the Redis data set marker failed', recovered: 'checking the Redis data set marker works again' },
  });
  task.start();
  // A reconnect may be to another server (a failover to a replica set up otherwise): asked again each time. At start the
  // gauge only: start-up has just said what it found (src/platform/production.ts).
  const durability = (say: boolean) => {
    if (config.redis.durabilityCheck === 'off') return;
    redisDurabilityProblems(redis, 'now').then(
      (problems) => {
        metrics.redisDurable.set(problems.length ? 0 : 1);
        if (!say) return;
        for (const p of problems)
          logger.error({ component: 'redis', setting: 'REDIS_DURABILITY_CHECK' }, `${p}; a lost data set loses claims, Idempotency-Keys and queued writes`);
      },
      (err: unknown) =>
        logger.warn({ component: 'redis', err: { message: (err as Error).message } }, 'could not ask Redis whether it persists and keeps its keys'),
    );
  };
  durability(false);
  const onReady = () => {
    task.wake();
    durability(true);
  };
  redis.on('ready', onReady);
  return {
    watch,
    stop: async () => {
      redis.off('ready', onReady);
      await task.stop();
    },
  };
}

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every Prometheus metric of the BFF, defined in one place. Each app gets its
 * own Registry (never prom-client's global one), so a test can run several
 * BFF instances in one process and read each one's numbers.
 */

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Circuit breaker states as the gauge reports them. */
export const CIRCUIT_STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;
export type CircuitState = keyof typeof CIRCUIT_STATE_VALUE;

/** Values read at scrape time (they live in Redis or another component). */
export type SampledGauge =
  'holdsOpen' | 'outboxDepth' | 'ready' | 'repairsPending' | 'redisUp' | 'terminalsFileCurrent' | 'terminalsRegistryGeneration' | 'terminalsRegistryInStep';
export type Sampler = () => number | Promise<number>;

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC). Default true. */
  defaultMetrics?: boolean;
  /** Constant labels on every series, e.g. `{ instance: 'bff-1' }`. */
  labels?: Record<string, string>;
}

export interface Metrics {
  readonly registry: Registry;
  /** `route` is the Express route pattern (`/pos/v1/redemptions/:id`), never the raw URL. */
  readonly httpRequests: Counter<'method' | 'route' | 'status' | 'role'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status' | 'role'>;
  /** One per attempt sent to the loyalty service; outcome from `UpstreamCallEvent`. */
  readonly upstreamCalls: Counter<'operation' | 'outcome'>;
  readonly upstreamDuration: Histogram<'operation' | 'outcome'>;
  /** `from` is `none` when a redemption is created. */
  readonly redemptionTransitions: Counter<'from' | 'to'>;
  readonly holdsOpen: Gauge;
  /** `via`: `sweep` (the sweeper claimed it) or `read` (a read found it due first). */
  readonly holdsExpired: Counter<'via'>;
  /** Holds sent whose answer never came (timeout, connection lost): maybe placed, and a hold carries no id to find it by. */
  readonly holdsUnanswered: Counter;
  /** Holds that landed after the till stopped waiting (it was answered 202) and nobody came back for: released at once. */
  readonly holdsReleasedLate: Counter;
  readonly standInShort: Counter;
  /** A POST answered from its idempotency record instead of running again. */
  readonly idempotentReplays: Counter;
  /** Customer sign-ups at the till (`PUT /customers/:id`): created, updated, or failed. */
  readonly customerRegistrations: Counter<'outcome'>;
  readonly outboxDepth: Gauge;
  /** `outcome`: `delivered`, `already_applied` (upstream said duplicate), `retry`, `dead`. */
  readonly outboxDeliveries: Counter<'operation' | 'outcome'>;
  readonly outboxDeadLetters: Counter<'operation'>;
  /** Sale and refund id claims the lease sweep gave up on, a day past their lease, still not on the upstream's record. */
  readonly claimsGivenUp: Counter<'kind'>;
  /** Each `error` event of the Redis connection (failed commands and reconnect attempts). */
  readonly redisErrors: Counter;
  /** `what`: `write_failed` (an audit entry kept in memory and tried again) or `entry_lost` (given up). */
  readonly auditFailures: Counter<'what'>;
  readonly redisUp: Gauge;
  /** Each time this instance found the Redis data set emptied or replaced (its marker gone or new). */
  readonly redisDatasetLosses: Counter;
  /** When this instance last found the data set lost (Unix seconds); 0: never since it started. */
  readonly redisDatasetLastLoss: Gauge;
  /** 1 while Redis last said it persists and never evicts, 0 when it did not, absent until asked (REDIS_DURABILITY_CHECK off). */
  readonly redisDurable: Gauge;
  /** 1 while the terminals served are the terminals file's, 0 while its newest change could not be loaded. */
  readonly terminalsFileCurrent: Gauge;
  /** Each failed reload of the terminals file (counted once per change that failed, not per look). */
  readonly terminalsFileReloadFailures: Counter;
  /** The generation of the terminals registry this instance serves (-1: none). */
  readonly terminalsRegistryGeneration: Gauge;
  /** TERMINALS_SHARED=redis: 1 while Redis holds the generation this instance serves, 0 while it is missing, older or unreachable. */
  readonly terminalsRegistryInStep: Gauge;
  /** Times this instance wrote its own copy of the registry back into Redis (label reason: missing, behind). */
  readonly terminalsRegistryReseeds: Counter<'reason'>;
  /** 0 closed, 1 half-open, 2 open (CIRCUIT_STATE_VALUE). */
  readonly circuitState: Gauge;
  /** 1 when /readyz would answer 200, read at scrape time. */
  readonly ready: Gauge;
  /** Outcomes not recorded yet, being settled from the loyalty service's record (the repair queue). */
  readonly repairsPending: Gauge;
  /** Calls the fleet's budget refused before sending (label operation): the till was answered upstream_busy. */
  readonly upstreamBudgetRefusals: Counter<'operation'>;
  /** Anomalies in the day's reconciliation reports this instance wrote (label kind). */
  readonly reconciliationAnomalies: Counter<'kind'>;
  /** Abuse signals found in the day's reports (the daily reconciliation), fleet-wide once a day, by signal. */
  readonly abuseSignals: Counter<'signal'>;
  /** Sets where a gauge reads its value at scrape time; a failing sampler makes it NaN (unknown). */
  sample(gauge: SampledGauge, sampler: Sampler): void;
  setCircuitState(state: CircuitState): void;
  /** The exposition text for `GET /metrics`. */
  render(): Promise<string>;
  readonly contentType: string;
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.labels) registry.setDefaultLabels(opts.labels);
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const samplers = new Map<SampledGauge, Sampler>();
  const sampled = (gauge: SampledGauge, name: string, help: string) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const sampler = samplers.get(gauge);
        if (!sampler) return;
        try {
          this.set(await sampler());
        } catch {
          // Unknown right now (e.g. Redis is down): NaN, never a stale or a made-up 0.
          this.set(Number.NaN);
        }
      },
    });

  const circuitState = new Gauge({
    name: 'loyalty_upstream_circuit_state',
    help: 'Circuit breaker around the loyalty service: 0 closed, 1 half-open, 2 open',
    registers,
  });
  circuitState.set(CIRCUIT_STATE_VALUE.closed);

  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, status and terminal role',
      labelNames: ['method', 'route', 'status', 'role'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['method', 'route', 'status', 'role'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    upstreamCalls: new Counter({
      name: 'loyalty_upstream_requests_total',
      help: 'Attempts sent to the loyalty service, by operation and outcome',
      labelNames: ['operation', 'outcome'],
      registers,
    }),
    upstreamDuration: new Histogram({
      name: 'loyalty_upstream_request_duration_seconds',
      help: 'Time of one attempt to the loyalty service',
      labelNames: ['operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    redemptionTransitions: new Counter({
      name: 'pos_redemption_transitions_total',
      help: 'Redemption state changes (from "none" when created)',
      labelNames: ['from', 'to'],
      registers,
    }),
    holdsOpen: sampled('holdsOpen', 'pos_holds_open', 'Redemptions in the expiry index: holds not ended, and stand-ins not yet paid or waiting for approval'),
    holdsUnanswered: new Counter({
      name: 'pos_holds_unanswered_total',
      help: 'Holds sent whose answer never came (maybe placed; flagged in the reconciliation)',
      registers,
    }),
    standInShort: new Counter({
      name: 'pos_stand_in_short_total',
      help: 'Stand-in redemptions whose points the loyalty service refused for the balance when settled (the sale recorded without them)',
      registers,
    }),
    holdsReleasedLate: new Counter({
      name: 'pos_holds_released_late_total',
      help: 'Holds that landed after the till stopped waiting and nobody came back for: released',
      registers,
    }),
    holdsExpired: new Counter({ name: 'pos_holds_expired_total', help: 'Holds this instance expired, by how (sweep or read)', labelNames: ['via'], registers }),
    idempotentReplays: new Counter({
      name: 'pos_idempotent_replays_total',
      help: 'POSTs answered by replaying the stored response of the same Idempotency-Key',
      registers,
    }),
    customerRegistrations: new Counter({
      name: 'pos_customer_registrations_total',
      help: 'Customer registrations at the till, by outcome (created, updated, failed)',
      labelNames: ['outcome'],
      registers,
    }),
    outboxDepth: sampled('outboxDepth', 'pos_outbox_depth', 'Entries waiting in the outbox for delivery to the loyalty service'),
    outboxDeliveries: new Counter({
      name: 'pos_outbox_deliveries_total',
      help: 'Outbox delivery attempts, by operation and outcome',
      labelNames: ['operation', 'outcome'],
      registers,
    }),
    auditFailures: new Counter({
      name: 'pos_audit_failures_total',
      help: 'Audit trail writes that failed (write_failed: kept and tried again) and entries given up (entry_lost)',
      labelNames: ['what'],
      registers,
    }),
    claimsGivenUp: new Counter({
      name: 'pos_claims_given_up_total',
      help: "Sale and refund id claims no longer asked about a day past their lease, still not on the loyalty service's record",
      labelNames: ['kind'],
      registers,
    }),
    outboxDeadLetters: new Counter({
      name: 'pos_outbox_dead_letters_total',
      help: 'Outbox entries moved to the dead-letter stream',
      labelNames: ['operation'],
      registers,
    }),
    redisErrors: new Counter({ name: 'redis_errors_total', help: 'Error events of the Redis connection', registers }),
    redisUp: sampled('redisUp', 'redis_up', '1 when the Redis connection is ready, 0 otherwise'),
    redisDatasetLosses: new Counter({
      name: 'pos_redis_dataset_losses_total',
      help: 'Times this instance found the Redis data set emptied or replaced (its marker missing or new)',
      registers,
    }),
    redisDatasetLastLoss: new Gauge({
      name: 'pos_redis_dataset_last_loss_timestamp_seconds',
      help: 'When this instance last found the Redis data set lost (Unix time); 0 when it has not since it started',
      registers,
    }),
    redisDurable: new Gauge({
      name: 'pos_redis_durable',
      help: 'Whether Redis said, when last asked (start-up and every reconnect), that it persists and never evicts keys (1) or not (0)',
      registers,
    }),
    terminalsFileCurrent: sampled(
      'terminalsFileCurrent',
      'pos_terminals_file_current',
      '1 when the terminals served are the terminals file, 0 while its newest change could not be loaded (revocations not applied)',
    ),
    terminalsFileReloadFailures: new Counter({
      name: 'pos_terminals_file_reload_failures_total',
      help: 'Reloads of the terminals file that failed (bad JSON, unreadable, deleted); the terminals loaded before were kept',
      registers,
    }),
    terminalsRegistryGeneration: sampled(
      'terminalsRegistryGeneration',
      'pos_terminals_registry_generation',
      'The generation of the terminals registry this instance serves (-1 while it has none)',
    ),
    terminalsRegistryInStep: sampled(
      'terminalsRegistryInStep',
      'pos_terminals_registry_in_step',
      'TERMINALS_SHARED=redis: 1 while Redis holds the generation this instance serves, 0 while it is missing, older or cannot be read',
    ),
    terminalsRegistryReseeds: new Counter({
      name: 'pos_terminals_registry_reseeds_total',
      help: 'Times this instance wrote its copy of the terminals registry back into Redis, which held none (missing) or an older one (behind)',
      labelNames: ['reason'],
      registers,
    }),
    circuitState,
    ready: sampled('ready', 'pos_ready', '1 when this instance is ready (/readyz answers 200), 0 when not; read at scrape time'),
    repairsPending: sampled(
      'repairsPending',
      'pos_repairs_pending',
      "Outcomes not recorded yet that this instance is settling from the loyalty service's record (its repair queue)",
    ),
    upstreamBudgetRefusals: new Counter({
      name: 'pos_upstream_budget_refusals_total',
      help: "Calls the fleet's budget for the published rate limits refused before sending (the till was answered upstream_busy), by operation",
      labelNames: ['operation'],
      registers,
    }),
    reconciliationAnomalies: new Counter({
      name: 'pos_reconciliation_anomalies_total',
      help: "Anomalies in the day's reconciliation reports this instance wrote, by kind",
      labelNames: ['kind'],
      registers,
    }),
    abuseSignals: new Counter({
      name: 'pos_abuse_signals_total',
      help: 'Abuse signals of the day the daily reconciliation found across the stores (counted once per signal, by the instance that ran it), by signal',
      labelNames: ['signal'],
      registers,
    }),
    sample(gauge, sampler) {
      samplers.set(gauge, sampler);
    },
    setCircuitState(state) {
      circuitState.set(CIRCUIT_STATE_VALUE[state]);
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

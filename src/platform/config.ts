import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { RedisTarget } from './redis';

/**
 * Every setting of both programs, read once from the environment and validated
 * here. A bad value stops start-up with a message naming the variable.
 * `.env.example` documents each one; keep the two in step.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().nonnegative();
/** `host:port,host:port,...` (IPv6 hosts in brackets). */
const hostPorts = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$/, 'each entry must be host:port, e.g. 10.0.0.7:6379')).min(1))
  .transform((list) => list.map((hp) => {
    const at = hp.lastIndexOf(':');
    return { host: hp.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(hp.slice(at + 1)) };
  }))
  .pipe(z.array(z.object({ host: z.string(), port: z.number().int().min(1).max(65535) })));

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_PRETTY: bool.optional(),

  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: port.default(8080),
  BODY_LIMIT_BYTES: positiveInt.max(10 * 1024 * 1024).default(256 * 1024),
  SHUTDOWN_TIMEOUT_MS: positiveInt.min(100).max(600_000).default(10_000),
  MAX_HEADER_COUNT: positiveInt.max(2000).default(100),
  MAX_HEADER_BYTES: positiveInt.min(1024).max(1024 * 1024).default(16 * 1024),
  CORS_ORIGINS: z
    .string()
    .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/, 'each origin must be scheme://host[:port], e.g. https://tablet.store.example')))
    .optional(),
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  TLS_CLIENT_CA_FILE: z.string().min(1).optional(),
  TLS_CLIENT_CERT_REQUIRED: bool.default(true),
  TERMINAL_RATE_LIMIT_PER_MINUTE: nonNegativeInt.max(1_000_000_000).default(600),
  AUTH_FAILURE_LIMIT_PER_MINUTE: nonNegativeInt.max(1_000_000_000).default(20),
  MAX_OPEN_REDEMPTIONS_PER_TERMINAL: nonNegativeInt.max(1_000_000).default(10),

  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_PORT: port.default(8081),
  SANDBOX_ACCOUNTS_FILE: z.string().min(1).default('config/sandbox-accounts.json'),
  SANDBOX_BODY_LIMIT_BYTES: positiveInt.max(50 * 1024 * 1024).default(1024 * 1024),

  LOYALTY_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOYALTY_API_KEY: z.string().min(1).optional(),
  LOYALTY_SECRET_KEY: z.string().min(1).optional(),
  LOYALTY_TIMEOUT_MS: positiveInt.max(120_000).default(5000),
  LOYALTY_RETRIES: nonNegativeInt.max(10).default(2),

  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]*$/).default('posbff:'),
  REDIS_CLUSTER_NODES: hostPorts.optional(),
  REDIS_SENTINELS: hostPorts.optional(),
  REDIS_SENTINEL_NAME: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'letters, digits, dot, underscore and dash').optional(),
  REDIS_USERNAME: z.string().min(1).optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),

  TERMINALS_FILE: z.string().min(1).default('config/terminals.json'),
  HOLD_PERIOD_MINUTES: positiveInt.max(15 * 24 * 60).default(10),
  HOLD_SAFETY_MARGIN_SECONDS: nonNegativeInt.max(3600).default(30),
  SWEEPER_INTERVAL_MS: positiveInt.max(600_000).default(1000),
  REFUND_REQUIRES_MANAGER: bool.default(true),
  COUPON_LOCK_MINUTES: positiveInt.max(15 * 24 * 60).default(10),
  REDEMPTION_OPTIONS_TTL_SECONDS: positiveInt.max(86_400).default(300),
  DEMO_SETUP: bool.optional(),
  IDEMPOTENCY_TTL_HOURS: positiveInt.max(24 * 30).default(24),
  IDEMPOTENCY_LEASE_MS: positiveInt.min(200).max(600_000).default(30_000),

  OUTBOX_POLL_INTERVAL_MS: positiveInt.max(60_000).default(500),
  OUTBOX_CONCURRENCY: positiveInt.max(256).default(8),
  OUTBOX_CLAIM_IDLE_MS: positiveInt.min(100).max(3_600_000).default(30_000),
  OUTBOX_MAX_ATTEMPTS: positiveInt.max(100_000).default(50),
  OUTBOX_BACKOFF_BASE_MS: positiveInt.max(3_600_000).default(1000),
  OUTBOX_BACKOFF_MAX_MS: positiveInt.max(86_400_000).default(300_000),
  OUTBOX_STATUS_TTL_HOURS: positiveInt.max(24 * 366).default(168),
  BREAKER_FAILURE_THRESHOLD: positiveInt.max(10_000).default(5),
  BREAKER_HALF_OPEN_AFTER_MS: positiveInt.max(3_600_000).default(10_000),
  UPSTREAM_RATE_LIMIT_TRANSACTIONS: nonNegativeInt.max(100_000).default(30),
  UPSTREAM_RATE_LIMIT_COUPONS: nonNegativeInt.max(100_000).default(30),
  UPSTREAM_RATE_LIMIT_ORDERS: nonNegativeInt.max(100_000).default(30),
  UPSTREAM_RATE_LIMIT_CUSTOMERS: nonNegativeInt.max(100_000).default(100),
  UPSTREAM_RATE_LIMIT_EVENTS: nonNegativeInt.max(100_000).default(100),
  UPSTREAM_RATE_MAX_WAIT_MS: nonNegativeInt.max(60_000).default(250),

  // Money path: store scoping, proxies, what a kiosk may do.
  RETURNS_AT_ANY_BRANCH: bool.default(false),
  SALE_RECORD_DAYS: positiveInt.max(3660).default(400),
  TRUST_PROXY: z.string().regex(/^(false|true|[0-9]{1,2}|[0-9A-Fa-f.:/, ]+|loopback|linklocal|uniquelocal)$/, 'false, a hop count, or addresses/subnets (comma separated)').default('false'),
  KIOSK_EVENTS: z.string().regex(/^[A-Za-z0-9_.:-]+(,[A-Za-z0-9_.:-]+)*$/, 'comma-separated event names').default('store_visit'),
  // When the hold lookup that learns a hold's end is sent (one round trip per cashier action).
  HOLD_EXPIRY_LOOKUP: z.enum(['after_answer', 'before_answer', 'off']).default('after_answer'),
  // --- Store readiness: proof of presence ---
  REDEMPTION_PROOF: z.enum(['hash_or_otp', 'hash', 'otp', 'none']).default('hash_or_otp'),
  // How long a customer's code lives at the loyalty service; no other redemption may ask that customer for one meanwhile.
  OTP_CODE_MINUTES: positiveInt.max(60).default(5),
  // A kiosk may read any customer's hash (their proof of presence): only where kiosks establish who the customer is. Default: off in production.
  KIOSK_QR: bool.optional(),
  // --- Go-live: the secret key travels only over HTTPS ---
  LOYALTY_ALLOW_HTTP: bool.default(false),
});

export type Env = z.output<typeof envSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  log: { level: Env['LOG_LEVEL']; pretty: boolean };
  http: {
    host: string;
    port: number;
    bodyLimitBytes: number;
    /** SIGTERM: how long in-flight requests get before the process gives up (exit 1). */
    shutdownTimeoutMs: number;
    maxHeaderCount: number;
    maxHeaderBytes: number;
    /** Origins allowed to call `/pos/v1` from a browser; empty = CORS off. */
    corsOrigins: string[];
    /** Set: serve HTTPS; with `clientCaFile`, terminals may (or must) present client certificates. */
    tls?: { certFile: string; keyFile: string; clientCaFile?: string; clientCertRequired: boolean };
  };
  /** Abuse limits; 0 turns a limit off. */
  security: { terminalRateLimitPerMinute: number; authFailureLimitPerMinute: number; maxOpenRedemptionsPerTerminal: number };
  sandbox: { host: string; port: number; accountsFile: string; bodyLimitBytes: number };
  loyalty: {
    /** Unset: the BFF starts the bundled sandbox and talks to it. */
    baseUrl?: string;
    apiKey?: string;
    secretKey?: string;
    timeoutMs: number;
    retries: number;
    /** LOYALTY_ALLOW_HTTP: plain http:// to a non-loopback LOYALTY_BASE_URL (never in production). */
    allowHttp: boolean;
  };
  /**
   * Unset `target`: the in-process stores. `url` is kept for the single-node
   * case (REDIS_URL), so start-up can show it with its password masked.
   */
  redis: { url?: string; keyPrefix: string; target?: RedisTarget };
  /** Idempotency-Key records: replayed for ttlMs; a running request holds its key for leaseMs (renewed while it runs). */
  idempotency: { ttlMs: number; leaseMs: number };
  /** Store-and-forward of writes the upstream could not take (src/pos/outbox). */
  outbox: {
    pollIntervalMs: number;
    concurrency: number;
    /** A delivering instance's lease per customer, and the idle time after which another instance claims a dead one's entries. */
    claimIdleMs: number;
    maxAttempts: number;
    backoffBaseMs: number;
    backoffMaxMs: number;
    statusTtlSeconds: number;
  };
  /** Circuit breaker and fleet rate limiter around the loyalty service (src/upstream/policies). */
  upstream: {
    breaker: { failureThreshold: number; halfOpenAfterMs: number };
    /** Calls per second for the whole fleet, per published limit group; 0 = no limit. */
    rateLimits: { transactions: number; coupons: number; orders: number; customers: number; events: number };
    rateMaxWaitMs: number;
  };
  /** Money path: who may return a sale, which proxies are believed, what a kiosk may record. */
  money: {
    /** Chain policy: refunds and voids of a sale at any of the chain's stores (default: only the store that rang it up). */
    returnsAtAnyBranch: boolean;
    /** How long the BFF remembers which store rang up a sale (refunds after that are refused unless returnsAtAnyBranch). */
    saleRecordDays: number;
    /** Express `trust proxy`: false, a hop count, or the balancers' addresses. */
    trustProxy: boolean | number | string;
    /** Default kiosk event names (a store's `kioskEvents` in the terminals file replaces it). */
    kioskEvents: string[];
    /** KIOSK_QR: a kiosk may read any customer's current hash and QR payload (off in production unless set). */
    kioskQr: boolean;
  };
  pos: {
    terminalsFile: string;
    holdPeriodMinutes: number;
    holdSafetyMarginSeconds: number;
    sweeperIntervalMs: number;
    refundRequiresManager: boolean;
    /** Create demo stores and terminals on a fresh start: only ever with the bundled sandbox, never in production. */
    demoSetup: boolean;
    couponLockMinutes: number;
    redemptionOptionsTtlSeconds: number;
    /** What a redemption needs to show the customer is present (REDEMPTION_PROOF). */
    redemptionProof: 'hash_or_otp' | 'hash' | 'otp' | 'none';
    /** OTP_CODE_MINUTES: how long a customer's code is taken to live (its ticket stands that long). */
    otpCodeMinutes: number;
  };
  /**
   * A redemption's expiry is first estimated from the hold period; the hold
   * lookup that corrects it is sent after the till's answer, before it (one
   * more upstream round trip for the cashier), or never.
   */
  holdExpiry: { lookup: 'after_answer' | 'before_answer' | 'off' };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Keys whose values are secrets: shown only as set or unset. */
const SECRET_KEY = /secret|password|token|credential/i;
/** Keys whose values identify an account: the first four characters and a mask. */
const PARTIAL_KEY = /apiKey$/i;

function maskUrl(value: string): string {
  try {
    const u = new URL(value);
    if (!u.password && !u.username) return value;
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return value;
  }
}

/** A list item as start-up shows it: host:port for Redis nodes. */
function listItem(v: unknown): string {
  if (v && typeof v === 'object' && 'host' in v && 'port' in v) return `${String(v.host)}:${String(v.port)}`;
  return String(v);
}

function shown(key: string, value: unknown): string {
  if (value === undefined || value === null) return '(unset)';
  if (SECRET_KEY.test(key)) return '(set)';
  if (PARTIAL_KEY.test(key)) return `${String(value).slice(0, 4)}****`;
  if (Array.isArray(value)) return value.length ? value.map(listItem).join(',') : '(none)';
  if (typeof value === 'string') return value === '' ? '""' : maskUrl(value);
  return String(value);
}

/** Every setting as `section.key` -> the value as start-up shows it (secrets masked). */
export function configSummary(config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (obj: object, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const name = prefix ? `${prefix}.${k}` : k;
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v, name);
      else out[name] = shown(k, v);
    }
  };
  walk(config, '');
  return out;
}

/**
 * The effective configuration on one screen: one line per section, secrets
 * masked (`(set)`, `sbx_****`, Redis passwords as `***`), long sections wrapped.
 */
export function describeConfig(config: Config, width = 110): string[] {
  const sections = new Map<string, string[]>();
  for (const [name, value] of Object.entries(configSummary(config))) {
    const at = name.lastIndexOf('.');
    const [section, key] = at < 0 ? [name, ''] : [name.slice(0, at), name.slice(at + 1)];
    sections.set(section, [...(sections.get(section) ?? []), key ? `${key}=${value}` : value]);
  }
  const pad = Math.max(...[...sections.keys()].map((s) => s.length)) + 2;
  const lines = ['Effective configuration (secrets masked):'];
  for (const [section, items] of sections) {
    let line = `  ${section.padEnd(pad)}`;
    for (const item of items) {
      if (line.trim().length > section.length && line.length + item.length + 1 > width) {
        lines.push(line.trimEnd());
        line = ' '.repeat(pad + 2);
      }
      line += `${item} `;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/**
 * The Redis topology: REDIS_URL (one node), REDIS_CLUSTER_NODES (Redis Cluster)
 * or REDIS_SENTINELS with REDIS_SENTINEL_NAME (a master found through Sentinel);
 * at most one of the three. Credentials of a cluster or sentinel-managed master
 * come from REDIS_USERNAME/REDIS_PASSWORD (a URL carries its own).
 */
function redisTargetOf(e: Env, problems: string[]): RedisTarget | undefined {
  const chosen = [e.REDIS_URL && 'REDIS_URL', e.REDIS_CLUSTER_NODES && 'REDIS_CLUSTER_NODES', e.REDIS_SENTINELS && 'REDIS_SENTINELS'].filter(Boolean);
  if (chosen.length > 1) problems.push(`${chosen.join(', ')}: set only one (one node, a cluster, or sentinels)`);
  if (e.REDIS_SENTINELS && !e.REDIS_SENTINEL_NAME) problems.push('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the master name the sentinels monitor)');
  if (e.REDIS_SENTINEL_NAME && !e.REDIS_SENTINELS) problems.push('REDIS_SENTINEL_NAME: only meaningful with REDIS_SENTINELS');
  if (e.REDIS_SENTINEL_PASSWORD && !e.REDIS_SENTINELS) problems.push('REDIS_SENTINEL_PASSWORD: only meaningful with REDIS_SENTINELS');
  if ((e.REDIS_PASSWORD || e.REDIS_USERNAME) && !(e.REDIS_CLUSTER_NODES || e.REDIS_SENTINELS)) {
    problems.push('REDIS_USERNAME and REDIS_PASSWORD: only for REDIS_CLUSTER_NODES or REDIS_SENTINELS (put them in REDIS_URL for one node)');
  }
  const auth = { username: e.REDIS_USERNAME, password: e.REDIS_PASSWORD };
  if (e.REDIS_URL) return { kind: 'single', url: e.REDIS_URL };
  if (e.REDIS_CLUSTER_NODES) return { kind: 'cluster', nodes: e.REDIS_CLUSTER_NODES, ...auth };
  if (e.REDIS_SENTINELS && e.REDIS_SENTINEL_NAME) {
    return { kind: 'sentinel', sentinels: e.REDIS_SENTINELS, name: e.REDIS_SENTINEL_NAME, ...auth, sentinelPassword: e.REDIS_SENTINEL_PASSWORD };
  }
  return undefined;
}

/**
 * Reads `.env` (or `file`) into process.env with Node's own parser; a variable
 * already in the environment wins. A missing file is no error: `.env` is optional.
 * Returns the file read, or undefined.
 */
export function loadDotEnv(file = '.env'): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    process.loadEnvFile(file);
  } catch (err) {
    throw new ConfigError([`${file}: cannot be read (${(err as Error).message})`]);
  }
  return file;
}

// --- Store readiness: settings that must not carry demo defaults into a real store ---

function storeReadinessProblems(e: Env, source: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (source.LOYALTY_OTP_ENABLED !== undefined && source.LOYALTY_OTP_ENABLED !== '') {
    problems.push('LOYALTY_OTP_ENABLED: no longer a setting; the BFF follows the loyalty account (the sandbox account\'s setting, or the real service\'s answers). Remove it');
  }
  if (e.DEMO_SETUP && e.LOYALTY_BASE_URL) {
    problems.push('DEMO_SETUP: demo terminals are only for the bundled sandbox; with LOYALTY_BASE_URL add terminals with `npm run terminal -- add` (in Docker: `docker compose run --rm bff terminal add ...`)');
  }
  if (e.DEMO_SETUP && e.NODE_ENV === 'production') {
    problems.push('DEMO_SETUP: never in production (NODE_ENV=production); add terminals with `npm run terminal -- add` (in Docker: `docker compose run --rm bff terminal add ...`)');
  }
  if (e.LOG_PRETTY && e.NODE_ENV === 'production') {
    problems.push('LOG_PRETTY: readable logs need pino-pretty, a development dependency that production builds leave out; unset LOG_PRETTY (JSON lines) and pipe the output through pino-pretty where you read it');
  }
  return problems;
}

// --- Go-live: every call to the loyalty service over HTTPS ---

/** Loopback: the bundled sandbox and the tests; a plain-HTTP call there never leaves the machine. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.[0-9]{1,3}){3}$/.test(hostname);
}

/**
 * Every call carries the account's secret key, so LOYALTY_BASE_URL must be HTTPS,
 * except on loopback or with LOYALTY_ALLOW_HTTP=true (a trial against a sandbox on
 * another host), which production refuses outright.
 */
function transportProblems(e: Env): string[] {
  if (e.LOYALTY_ALLOW_HTTP && e.NODE_ENV === 'production') {
    return ['LOYALTY_ALLOW_HTTP: never in production (NODE_ENV=production); the secret key must travel over HTTPS: use an https:// LOYALTY_BASE_URL'];
  }
  if (!e.LOYALTY_BASE_URL) return [];
  const url = new URL(e.LOYALTY_BASE_URL);
  if (url.protocol === 'https:' || isLoopback(url.hostname) || e.LOYALTY_ALLOW_HTTP) return [];
  return ['LOYALTY_BASE_URL: must be https:// (every call carries the secret key); plain http:// only to a loopback host (127.0.0.1, ::1, localhost), or outside production with LOYALTY_ALLOW_HTTP=true'];
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as they do in most .env files.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.LOYALTY_BASE_URL && !(e.LOYALTY_API_KEY && e.LOYALTY_SECRET_KEY)) {
    problems.push('LOYALTY_API_KEY and LOYALTY_SECRET_KEY: required when LOYALTY_BASE_URL is set');
  }
  if (Boolean(e.TLS_CERT_FILE) !== Boolean(e.TLS_KEY_FILE)) problems.push('TLS_CERT_FILE and TLS_KEY_FILE: set both or neither');
  if (e.TLS_CLIENT_CA_FILE && !e.TLS_CERT_FILE) problems.push('TLS_CLIENT_CA_FILE: needs TLS_CERT_FILE and TLS_KEY_FILE (client certificates need HTTPS)');
  const redisTarget = redisTargetOf(e, problems);
  problems.push(...storeReadinessProblems(e, source));
  problems.push(...transportProblems(e));
  if (problems.length) throw new ConfigError(problems);
  return {
    env: e.NODE_ENV,
    log: { level: e.LOG_LEVEL, pretty: e.LOG_PRETTY ?? (e.NODE_ENV === 'development' && Boolean(process.stdout.isTTY)) },
    http: {
      host: e.HOST,
      port: e.PORT,
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
      maxHeaderCount: e.MAX_HEADER_COUNT,
      maxHeaderBytes: e.MAX_HEADER_BYTES,
      corsOrigins: e.CORS_ORIGINS ?? [],
      tls: e.TLS_CERT_FILE && e.TLS_KEY_FILE
        ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE, clientCaFile: e.TLS_CLIENT_CA_FILE, clientCertRequired: e.TLS_CLIENT_CERT_REQUIRED }
        : undefined,
    },
    security: {
      terminalRateLimitPerMinute: e.TERMINAL_RATE_LIMIT_PER_MINUTE,
      authFailureLimitPerMinute: e.AUTH_FAILURE_LIMIT_PER_MINUTE,
      maxOpenRedemptionsPerTerminal: e.MAX_OPEN_REDEMPTIONS_PER_TERMINAL,
    },
    sandbox: { host: e.SANDBOX_HOST, port: e.SANDBOX_PORT, accountsFile: e.SANDBOX_ACCOUNTS_FILE, bodyLimitBytes: e.SANDBOX_BODY_LIMIT_BYTES },
    loyalty: {
      baseUrl: e.LOYALTY_BASE_URL,
      apiKey: e.LOYALTY_API_KEY,
      secretKey: e.LOYALTY_SECRET_KEY,
      timeoutMs: e.LOYALTY_TIMEOUT_MS,
      retries: e.LOYALTY_RETRIES,
      allowHttp: e.LOYALTY_ALLOW_HTTP,
    },
    redis: { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX, target: redisTarget },
    idempotency: { ttlMs: e.IDEMPOTENCY_TTL_HOURS * 3_600_000, leaseMs: e.IDEMPOTENCY_LEASE_MS },
    outbox: {
      pollIntervalMs: e.OUTBOX_POLL_INTERVAL_MS,
      concurrency: e.OUTBOX_CONCURRENCY,
      claimIdleMs: e.OUTBOX_CLAIM_IDLE_MS,
      maxAttempts: e.OUTBOX_MAX_ATTEMPTS,
      backoffBaseMs: e.OUTBOX_BACKOFF_BASE_MS,
      backoffMaxMs: Math.max(e.OUTBOX_BACKOFF_MAX_MS, e.OUTBOX_BACKOFF_BASE_MS),
      statusTtlSeconds: e.OUTBOX_STATUS_TTL_HOURS * 3600,
    },
    upstream: {
      breaker: { failureThreshold: e.BREAKER_FAILURE_THRESHOLD, halfOpenAfterMs: e.BREAKER_HALF_OPEN_AFTER_MS },
      rateLimits: {
        transactions: e.UPSTREAM_RATE_LIMIT_TRANSACTIONS,
        coupons: e.UPSTREAM_RATE_LIMIT_COUPONS,
        orders: e.UPSTREAM_RATE_LIMIT_ORDERS,
        customers: e.UPSTREAM_RATE_LIMIT_CUSTOMERS,
        events: e.UPSTREAM_RATE_LIMIT_EVENTS,
      },
      rateMaxWaitMs: e.UPSTREAM_RATE_MAX_WAIT_MS,
    },
    money: {
      returnsAtAnyBranch: e.RETURNS_AT_ANY_BRANCH,
      saleRecordDays: e.SALE_RECORD_DAYS,
      trustProxy: e.TRUST_PROXY === 'false' ? false : e.TRUST_PROXY === 'true' ? true : /^[0-9]+$/.test(e.TRUST_PROXY) ? Number(e.TRUST_PROXY) : e.TRUST_PROXY,
      kioskEvents: e.KIOSK_EVENTS.split(','),
      kioskQr: e.KIOSK_QR ?? e.NODE_ENV !== 'production',
    },
    pos: {
      terminalsFile: e.TERMINALS_FILE,
      holdPeriodMinutes: e.HOLD_PERIOD_MINUTES,
      holdSafetyMarginSeconds: e.HOLD_SAFETY_MARGIN_SECONDS,
      sweeperIntervalMs: e.SWEEPER_INTERVAL_MS,
      refundRequiresManager: e.REFUND_REQUIRES_MANAGER,
      demoSetup: e.DEMO_SETUP ?? (!e.LOYALTY_BASE_URL && e.NODE_ENV !== 'production'),
      couponLockMinutes: e.COUPON_LOCK_MINUTES,
      redemptionOptionsTtlSeconds: e.REDEMPTION_OPTIONS_TTL_SECONDS,
      redemptionProof: e.REDEMPTION_PROOF,
      otpCodeMinutes: e.OTP_CODE_MINUTES,
    },
    holdExpiry: { lookup: e.HOLD_EXPIRY_LOOKUP },
  };
}

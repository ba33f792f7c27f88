import { z } from 'zod';

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
  LOYALTY_OTP_ENABLED: bool.default(false),

  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]*$/).default('posbff:'),

  TERMINALS_FILE: z.string().min(1).default('config/terminals.json'),
  HOLD_PERIOD_MINUTES: positiveInt.max(15 * 24 * 60).default(10),
  HOLD_SAFETY_MARGIN_SECONDS: nonNegativeInt.max(3600).default(30),
  SWEEPER_INTERVAL_MS: positiveInt.max(600_000).default(1000),
  REFUND_REQUIRES_MANAGER: bool.default(true),
  DEMO_SETUP: bool.default(true),
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
    otpEnabled: boolean;
  };
  redis: { url?: string; keyPrefix: string };
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
  pos: {
    terminalsFile: string;
    holdPeriodMinutes: number;
    holdSafetyMarginSeconds: number;
    sweeperIntervalMs: number;
    refundRequiresManager: boolean;
    demoSetup: boolean;
  };
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

function shown(key: string, value: unknown): string {
  if (value === undefined || value === null) return '(unset)';
  if (SECRET_KEY.test(key)) return '(set)';
  if (PARTIAL_KEY.test(key)) return `${String(value).slice(0, 4)}****`;
  if (Array.isArray(value)) return value.length ? value.map(String).join(',') : '(none)';
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
      otpEnabled: e.LOYALTY_OTP_ENABLED,
    },
    redis: { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX },
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
    pos: {
      terminalsFile: e.TERMINALS_FILE,
      holdPeriodMinutes: e.HOLD_PERIOD_MINUTES,
      holdSafetyMarginSeconds: e.HOLD_SAFETY_MARGIN_SECONDS,
      sweeperIntervalMs: e.SWEEPER_INTERVAL_MS,
      refundRequiresManager: e.REFUND_REQUIRES_MANAGER,
      demoSetup: e.DEMO_SETUP,
    },
  };
}

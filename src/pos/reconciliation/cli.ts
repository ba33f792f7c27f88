/**
 * The terminal CLI's report commands: `audit` prints a store's audit trail,
 * `reconcile` a store's end-of-day reconciliation. They read the BFF's own
 * stores in Redis (the same REDIS_* settings and key prefix) and, for a
 * reconciliation, the loyalty service's records with the BFF's keys, inside
 * the fleet's rate limit. Without Redis the trail lives in the BFF's process:
 * use GET /pos/v1/audit and /pos/v1/reconciliation instead.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, loadDotEnv, type Config } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { createLogger } from '../../platform/logger';
import { connectRedis, waitForRedis, type RedisClient } from '../../platform/redis';
import { lossWindows } from '../../platform/redis-dataset';
import { LoyaltyClient } from '../../upstream';
import { budgetPolicy, createBudget } from '../../upstream/policies';
import { auditCsv, auditText } from '../audit/format';
import { auditEntryView, readAuditPage } from '../audit/query';
import { RedisAuditStore } from '../audit/redis-store';
import { AUDIT_ACTIONS, type AuditAction, type AuditEntry } from '../audit/types';
import { createCouponLockStore } from '../coupons/locks';
import { createOutboxStore } from '../outbox';
import { createSaleRecords } from '../sales/records';
import { localDate } from '../audit/store-day';
import { reconcileStore, type ReconciliationDeps } from './engine';
import { reconciliationCsv, reconciliationPrintout } from './format';
import { writeReport } from './report-files';
import { fleetSignals } from '../audit/signal-reads';
import { readTerminalsFile } from '../terminals/file';
import { BACKGROUND, windowOf } from './index';

export const REPORT_USAGE = `  audit --store <storeId> [--date YYYY-MM-DD | --from <ISO> --to <ISO>] [--terminal <id>] [--cashier <id>]
        [--customer <id>] [--action <a,b>] [--format text|csv|json]
      print a store's audit trail (default: today, in STORE_TIME_ZONE)
  reconcile --store <storeId> [--date YYYY-MM-DD | --from <ISO> --to <ISO>] [--format print|csv|json] [--out <dir>]
      reconcile a store's day against the loyalty service (default: yesterday); reads only
  (both read the BFF's Redis: REDIS_URL or a cluster or sentinels, and REDIS_KEY_PREFIX, as the BFF has them)`;

export class ReportUsageError extends Error {}

const OPTIONS = {
  store: { type: 'string' },
  date: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  terminal: { type: 'string' },
  cashier: { type: 'string' },
  customer: { type: 'string' },
  action: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: string };

interface Opened {
  config: Config;
  redis: RedisClient;
  deps: ReconciliationDeps;
  close(): Promise<void>;
}

/**
 * The BFF's stores and a loyalty client as the BFF makes them (the same fleet
 * budget in Redis, so a report shares the tills' budget and never goes
 * past it).
 */
async function open(): Promise<Opened> {
  loadDotEnv();
  const config = loadConfig();
  if (!config.redis.target) {
    throw new ReportUsageError(
      "no Redis configured: without REDIS_URL the audit trail lives in the BFF's process; use GET /pos/v1/audit and GET /pos/v1/reconciliation with a manager terminal",
    );
  }
  const logger = createLogger({ level: 'warn', pretty: false, destination: process.stderr });
  const redis = connectRedis(config.redis.target, logger);
  await waitForRedis(redis, 10_000);
  const prefix = config.redis.keyPrefix;
  const upstream = upstreamOf(config);
  const budget = createBudget({ redis, prefix, rules: config.upstream.budget, logger });
  const loyalty = new LoyaltyClient({
    ...upstream,
    timeoutMs: config.loyalty.timeoutMs,
    retries: config.loyalty.retries,
    logger,
    policies: [budgetPolicy(budget, config.upstream.pauses)],
  });
  const audit = new RedisAuditStore(redis, { prefix, retentionMs: config.audit.retentionDays * 86_400_000 });
  const deps: ReconciliationDeps = {
    audit,
    loyalty,
    outbox: createOutboxStore({ redis, prefix, leaseMs: config.outbox.claimIdleMs, statusTtlSeconds: config.outbox.statusTtlSeconds }),
    couponLocks: createCouponLockStore({ redis, prefix }),
    sales: createSaleRecords({ redis, prefix, ttlDays: config.money.saleRecordDays }),
    clock: Date.now,
    logger,
    concurrency: config.reconciliation.concurrency,
    timeZone: config.reconciliation.timeZone,
    call: BACKGROUND,
    redisLosses: (from, to) => lossWindows(redis, prefix, from, to),
    // A pattern may cross stores: the stores of the terminals file are read for the abuse signals.
    signals: (window) =>
      fleetSignals(
        audit,
        (readTerminalsFile(config.pos.terminalsFile)?.stores ?? []).map((st) => st.id),
        window,
        config.abuse.signals,
      ),
  };
  return {
    config,
    redis,
    deps,
    close: async () => {
      loyalty.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** LOYALTY_BASE_URL and its keys, or, as `npm start` does, the bundled sandbox and its first account (read as data: the BFF does not import the sandbox). */
function upstreamOf(config: Config): { baseUrl: string; apiKey: string; secretKey: string } {
  if (config.loyalty.baseUrl)
    return { baseUrl: config.loyalty.baseUrl, apiKey: config.loyalty.apiKey as string, secretKey: config.loyalty.secretKey as string };
  const account = (JSON.parse(readFileSync(config.sandbox.accountsFile, 'utf8')) as { apiKey: string; secretKey: string }[])[0];
  return {
    baseUrl: `http://${config.sandbox.host === '0.0.0.0' ? '127.0.0.1' : config.sandbox.host}:${config.sandbox.port}`,
    apiKey: config.loyalty.apiKey ?? account.apiKey,
    secretKey: config.loyalty.secretKey ?? account.secretKey,
  };
}

function required(values: Values, name: keyof Values): string {
  const v = values[name];
  if (!v) throw new ReportUsageError(`missing --${name}`);
  return v;
}

function actionsOf(list: string | undefined): AuditAction[] | undefined {
  if (list === undefined) return undefined;
  const actions = list.split(',');
  const unknown = actions.filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a));
  if (unknown.length) throw new ReportUsageError(`--action: unknown ${unknown.join(', ')}; one or more of ${AUDIT_ACTIONS.join(', ')}`);
  return actions as AuditAction[];
}

function formatOf<F extends string>(value: string | undefined, allowed: readonly F[], fallback: F): F {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ReportUsageError(`--format must be one of ${allowed.join(', ')}`);
  return value as F;
}

async function audit(values: Values, out: (s: string) => void): Promise<void> {
  const storeId = required(values, 'store');
  const format = formatOf(values.format, ['text', 'csv', 'json'] as const, 'text');
  const actions = actionsOf(values.action);
  const opened = await open();
  try {
    const tz = opened.config.reconciliation.timeZone;
    const window = windowOf(
      { date: values.date ?? (values.from || values.to ? undefined : localDate(Date.now(), tz)), from: values.from, to: values.to },
      tz,
      Date.now(),
    );
    const filter = { from: window.from, to: window.to, terminalId: values.terminal, cashierId: values.cashier, customerId: values.customer, actions };
    const entries: AuditEntry[] = [];
    let after: string | undefined;
    do {
      const page = await readAuditPage(opened.deps.audit, storeId, filter, { limit: 1000, after });
      entries.push(...page.entries);
      after = page.next;
    } while (after);
    entries.sort((a, b) => a.at - b.at);
    if (format === 'csv') out(auditCsv(entries));
    else if (format === 'json') out(`${JSON.stringify({ storeId, entries: entries.map(auditEntryView) }, null, 2)}\n`);
    else out(auditText(entries, tz));
  } finally {
    await opened.close();
  }
}

async function reconcile(values: Values, out: (s: string) => void): Promise<void> {
  const storeId = required(values, 'store');
  const format = formatOf(values.format, ['print', 'csv', 'json'] as const, 'print');
  const opened = await open();
  try {
    const window = windowOf({ date: values.date, from: values.from, to: values.to }, opened.config.reconciliation.timeZone, Date.now());
    const report = await reconcileStore(opened.deps, storeId, window);
    if (values.out) {
      const files = writeReport(values.out, report);
      out(`Wrote ${files.join(', ')}\n`);
      return;
    }
    if (format === 'csv') out(reconciliationCsv(report));
    else if (format === 'json') out(`${JSON.stringify(report, null, 2)}\n`);
    else out(`${reconciliationPrintout(report).join('\n')}\n`);
  } finally {
    await opened.close();
  }
}

/** Runs `audit` or `reconcile`; the exit code says how it went (0 done, 1 refused or failed, 2 bad arguments). */
export async function runReportCli(argv: string[], out: (s: string) => void = (s) => void process.stdout.write(s)): Promise<void> {
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (err) {
      throw new ReportUsageError((err as Error).message);
    }
    const [command, ...rest] = parsed.positionals;
    if (rest.length) throw new ReportUsageError(`unexpected argument "${rest[0]}"`);
    const values = parsed.values as Values;
    if (command === 'audit') await audit(values, out);
    else await reconcile(values, out);
  } catch (err) {
    if (err instanceof ReportUsageError) {
      process.stderr.write(`error: ${err.message}\n\nusage:\n${REPORT_USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof AppError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = err.status < 500 ? 2 : 1;
    } else {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  }
}

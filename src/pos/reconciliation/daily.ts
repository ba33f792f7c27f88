import type { Logger } from 'pino';
import { PeriodicTask } from '../../platform/periodic-task';
import type { RedisClient } from '../../platform/redis';
import { dayWindow, localDate, localTime } from '../audit/store-day';
import { reconcileStore, type ReconciliationDeps } from './engine';
import { writeReport } from './report-files';

export interface DailyOptions {
  deps: ReconciliationDeps;
  /** RECONCILIATION_DAILY_AT: HH:MM in the stores' time zone. */
  at: string;
  /** RECONCILIATION_REPORT_DIR. */
  dir: string;
  /** The stores to reconcile (read from the terminals file each day). */
  stores: () => string[];
  /** `take`: true for the one instance of the fleet that takes the day; `give`: hands it back after a failure. */
  claim: DailyClaim;
  logger: Logger;
  clock: () => number;
  checkMs?: number;
  /** Counts each anomaly of a report written (for pos_reconciliation_anomalies_total). */
  onAnomaly?: (kind: string) => void;
  /** Counts each abuse signal of the day, once across the stores (for pos_abuse_signals_total). */
  onSignal?: (signal: string) => void;
}

export interface DailyClaim {
  take(date: string): Promise<boolean>;
  give(date: string): Promise<void>;
}

/** One instance per day across the fleet: a Redis key set if absent (kept two days), or this process alone. */
export function dailyClaim(opts: { redis?: RedisClient; prefix: string }): DailyClaim {
  const taken = new Set<string>();
  const key = (date: string) => `${opts.prefix}reconciliation:daily:${date}`;
  return {
    async take(date) {
      if (!opts.redis) return taken.has(date) ? false : (taken.add(date), true);
      return (await opts.redis.set(key(date), String(process.pid), 'PX', 2 * 86_400_000, 'NX')) === 'OK';
    },
    async give(date) {
      taken.delete(date);
      await opts.redis?.del(key(date));
    },
  };
}

/**
 * The optional daily job: once the store's clock passes RECONCILIATION_DAILY_AT,
 * the day before is reconciled for every store and written to
 * RECONCILIATION_REPORT_DIR (JSON, CSV, the printout); a line per store is
 * logged, at warn when it flags anything. Only reads, like every reconciliation.
 */
export class DailyReconciliation {
  private doneFor?: string;
  private readonly task: PeriodicTask;
  /** Aborted by stop(): a run in hand gives its day back for another instance (or the next start) rather than holding it. */
  private stopping = new AbortController();

  constructor(private readonly opts: DailyOptions) {
    this.task = new PeriodicTask({
      everyMs: opts.checkMs ?? 60_000,
      logger: opts.logger,
      pass: () => this.runIfDue(),
      messages: { failing: 'daily reconciliation failed; tried again at the next check', recovered: 'daily reconciliation runs again' },
    });
  }

  /** Checks now, then every minute. */
  start(): void {
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.task.start();
    this.task.wake();
  }

  stop(): Promise<void> {
    this.stopping.abort();
    return this.task.stop();
  }

  /** Reconciles the day before when it is time and no instance has yet. */
  async runIfDue(): Promise<void> {
    const { deps, logger } = this.opts;
    const now = this.opts.clock();
    const today = localDate(now, deps.timeZone);
    if (this.doneFor === today || localTime(now, deps.timeZone) < this.opts.at) return;
    const date = localDate(dayWindow(today, deps.timeZone).from - 1, deps.timeZone);
    let mine = false;
    try {
      this.doneFor = today;
      mine = await this.opts.claim.take(date);
      if (!mine) return;
      const signal = this.stopping.signal;
      const window = { ...dayWindow(date, deps.timeZone), date };
      // The fleet's signals once for the day: each store's report shows its part, the metric counts each signal once.
      const signals = deps.signals ? await deps.signals(window) : [];
      for (const s of signals) this.opts.onSignal?.(s.signal);
      for (const storeId of this.opts.stores()) {
        signal.throwIfAborted();
        const report = await reconcileStore({ ...deps, call: { ...deps.call, signal }, signals: async () => signals }, storeId, window);
        // Stopped mid-store: its reads were cut short, so no report of it is written; the day goes back.
        signal.throwIfAborted();
        const files = writeReport(this.opts.dir, report);
        const line = { storeId, date, anomalies: report.anomalies.length, signals: report.signals.length, files };
        for (const a of report.anomalies) this.opts.onAnomaly?.(a.kind);
        if (report.anomalies.length || report.signals.length) logger.warn(line, 'daily reconciliation written: anomalies or abuse signals to look into');
        else logger.info(line, 'daily reconciliation written');
      }
    } catch (err) {
      this.doneFor = undefined;
      if (mine) await this.opts.claim.give(date).catch(() => undefined);
      throw err;
    }
  }
}

/** The job as the BFF runs it (RECONCILIATION_DAILY_AT set): started now, stopped by the returned function. */
export function startDailyReconciliation(opts: Omit<DailyOptions, 'claim'> & { redis?: RedisClient; prefix: string }): () => Promise<void> {
  const job = new DailyReconciliation({ ...opts, claim: dailyClaim(opts) });
  job.start();
  opts.logger.info({ at: opts.at, timeZone: opts.deps.timeZone, dir: opts.dir }, 'daily reconciliation on');
  return () => job.stop();
}

import type { Logger } from 'pino';
import type { AuditStore, NewAuditEntry } from './types';

/**
 * How long after its outcome an entry may still be appended (kept in memory
 * while the store was away); one that could not be appended within it is
 * given up (counted and logged). Reads of a time range look this far either
 * side of it in append order (the stream's own clock), so an entry appended
 * late, or by an instance whose clock is off, is still found by its own time.
 */
export const AUDIT_LATE_MS = 24 * 3600_000;

/** Entries kept in memory while the store is away; beyond it the oldest is given up. */
const MAX_PENDING = 10_000;

export interface AuditTrailOptions {
  store: AuditStore;
  logger: Logger;
  clock: () => number;
  /** Counts appends that failed (each is kept and tried again) and entries given up. */
  onFailure?: (what: 'write_failed' | 'entry_lost') => void;
  retryMs?: number;
}

/**
 * Appends entries without ever failing the action they record: the append is
 * started when the outcome is known and not awaited by the till. One that
 * fails (Redis away) is logged, counted, kept in memory in order and tried
 * again, so an outage delays entries instead of losing them (up to
 * MAX_PENDING entries and AUDIT_LATE_MS).
 */
export class AuditTrail {
  private readonly pending: NewAuditEntry[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private failing = false;
  private draining?: Promise<void>;

  constructor(private readonly opts: AuditTrailOptions) {}

  get store(): AuditStore {
    return this.opts.store;
  }

  now(): number {
    return this.opts.clock();
  }

  /** Entries waiting for the store to come back. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Never throws, never waits. */
  record(entry: NewAuditEntry): void {
    const clean = Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as NewAuditEntry;
    // Behind entries still waiting, to keep their order.
    if (this.pending.length) return this.keep(clean);
    const p = this.opts.store.append(clean, this.opts.clock()).then(
      () => undefined,
      (err: unknown) => this.failed(clean, err),
    );
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /** Waits for appends under way, then tries what is waiting once (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all(this.inFlight);
    await this.drain();
  }

  /**
   * The customer's id replaced with its pseudonym in every entry: those still
   * waiting to be written (Redis away) and those in the store. Appends under
   * way finish first, so none lands with the id after the store was rewritten.
   */
  async pseudonymise(customerId: string, pseudonym: string): Promise<number> {
    await Promise.all(this.inFlight);
    await this.draining;
    let changed = 0;
    for (const [i, e] of this.pending.entries()) {
      if (e.customerId !== customerId) continue;
      this.pending[i] = { ...e, customerId: pseudonym };
      changed += 1;
    }
    return changed + (await this.opts.store.pseudonymise(customerId, pseudonym));
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    if (this.pending.length) this.opts.logger.error({ entries: this.pending.length }, 'audit trail: entries not written before shutdown are lost');
  }

  private failed(entry: NewAuditEntry, err: unknown): void {
    this.opts.onFailure?.('write_failed');
    if (!this.failing) {
      this.opts.logger.error(
        { err: { message: (err as Error).message }, action: entry.action, storeId: entry.storeId },
        'audit trail: an entry could not be written; it is kept and written when the store is back (the action itself stands)',
      );
    }
    this.failing = true;
    this.keep(entry);
  }

  private keep(entry: NewAuditEntry): void {
    this.pending.push(entry);
    if (this.pending.length > MAX_PENDING) this.lose(this.pending.shift() as NewAuditEntry, 'too many entries waiting');
    this.retryLater();
  }

  private retryLater(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, this.opts.retryMs ?? 1000);
    this.timer.unref();
  }

  private lose(entry: NewAuditEntry, why: string): void {
    this.opts.onFailure?.('entry_lost');
    this.opts.logger.error({ action: entry.action, storeId: entry.storeId, at: new Date(entry.at).toISOString(), why }, 'audit trail: an entry was lost');
  }

  /** Writes what waits, oldest first, until one fails (then it is tried again later). */
  private drain(): Promise<void> {
    this.draining ??= (async () => {
      while (this.pending.length) {
        const entry = this.pending[0];
        if (this.opts.clock() - entry.at > AUDIT_LATE_MS) {
          this.pending.shift();
          this.lose(entry, 'not written within a day');
          continue;
        }
        try {
          await this.opts.store.append(entry, this.opts.clock());
        } catch {
          this.opts.onFailure?.('write_failed');
          return this.retryLater();
        }
        this.pending.shift();
      }
      if (this.failing) this.opts.logger.info('audit trail: the store is back; waiting entries written');
      this.failing = false;
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }
}

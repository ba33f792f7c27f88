import { AUDIT_LATE_MS } from './trail';
import type { AuditAction, AuditEntry, AuditStore } from './types';

/** Entries read from the store per command. */
const CHUNK = 500;
/** Entries one page may read before it answers with what it found and a cursor (a narrow filter over a busy store). */
const MAX_SCANNED = 20_000;

export interface AuditFilter {
  /** Epoch ms, inclusive: when the outcome was known. */
  from: number;
  to: number;
  terminalId?: string;
  cashierId?: string;
  customerId?: string;
  actions?: AuditAction[];
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Where the next page starts (the same filter again with `after`); absent on the last page. */
  next?: string;
}

function matches(e: AuditEntry, f: AuditFilter): boolean {
  return (
    e.at >= f.from &&
    e.at <= f.to &&
    (f.terminalId === undefined || e.terminalId === f.terminalId) &&
    (f.cashierId === undefined || e.cashierId === f.cashierId) &&
    (f.customerId === undefined || e.customerId === f.customerId) &&
    (f.actions === undefined || f.actions.includes(e.action))
  );
}

/**
 * One page of a store's entries, in the order they were appended. The stream
 * is read AUDIT_LATE_MS either side of the range, since an entry may have been
 * written late (kept while Redis was away); the filter runs on each entry's
 * own time. Only `storeId`'s stream is read: another store's entries cannot
 * appear, whatever the filter.
 */
export async function readAuditPage(store: AuditStore, storeId: string, filter: AuditFilter, page: { limit: number; after?: string }): Promise<AuditPage> {
  const entries: AuditEntry[] = [];
  let after = page.after;
  let scanned = 0;
  for (;;) {
    const chunk = await store.scan(storeId, { fromMs: filter.from - AUDIT_LATE_MS, untilMs: filter.to + AUDIT_LATE_MS, afterId: after, count: CHUNK });
    for (const e of chunk.entries) {
      if (!matches(e, filter)) continue;
      entries.push(e);
      if (entries.length === page.limit) return { entries, next: chunk.done && e.id === chunk.lastId ? undefined : e.id };
    }
    scanned += chunk.entries.length;
    after = chunk.lastId ?? after;
    if (chunk.done) return { entries };
    if (scanned >= MAX_SCANNED) return { entries, next: after };
  }
}

/** Every entry of a store in a time range (reconciliation, the daily job). */
export async function readAllAudit(store: AuditStore, storeId: string, from: number, to: number): Promise<AuditEntry[]> {
  const all: AuditEntry[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await readAuditPage(store, storeId, { from, to }, { limit: 5000, after });
    all.push(...page.entries);
    if (!page.next) return all.sort((a, b) => a.at - b.at);
    after = page.next;
  }
}

/** What a manager sees of an entry: all but the loyalty service's hold reference (kept for reconciliation). */
export function auditEntryView(e: AuditEntry) {
  const { holdReference: _hold, id, at, action, outcome, code, ...rest } = e;
  return { id, at: new Date(at).toISOString(), action, outcome, ...(code !== undefined ? { code } : {}), ...rest };
}
export type AuditEntryView = ReturnType<typeof auditEntryView>;

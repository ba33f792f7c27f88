import { problem } from '../../platform/problem';
import type { LoyaltyCallContext } from '../../upstream';
import type { PosDeps } from '../deps';
import { dayWindow, isCalendarDate, localDate } from './day';
import type { ReconciliationDeps, ReconciliationWindow } from './engine';

export { reconcileStore } from './engine';
export type { ReconciliationDeps, ReconciliationWindow } from './engine';
export { reconciliationCsv, reconciliationPrintout } from './format';
export type { ReconciliationReport, ReconciliationRow } from './types';

/** What every reconciliation read carries to the upstream client: it is background work, after the tills. */
export const BACKGROUND: LoyaltyCallContext = {};

/** A reconciliation of a running BFF's stores: its own stores and client (none without an audit trail). */
export function reconciliationDepsOf(deps: PosDeps): ReconciliationDeps | undefined {
  if (!deps.audit) return undefined;
  return {
    audit: deps.audit.store,
    loyalty: deps.loyalty,
    outbox: deps.outbox,
    couponLocks: deps.couponLocks,
    sales: deps.sales,
    clock: deps.clock,
    logger: deps.logger,
    concurrency: deps.settings.reconciliationConcurrency ?? 2,
    timeZone: deps.settings.storeTimeZone ?? 'UTC',
    call: BACKGROUND,
  };
}

const invalid = (path: string, message: string) => problem('validation_failed', `Invalid ${path}: ${message}`, { errors: [{ path, message }] });

/** No window is longer: a report reads the loyalty service once per sale, and a month of a busy store is a job, not a request. */
const MAX_WINDOW_MS = 7 * 86_400_000;

/**
 * The window a report covers: a store's day (`date`, in STORE_TIME_ZONE), or
 * `from`..`to` (ISO 8601, at most 7 days); with neither, the day before `now`.
 */
export function windowOf(q: { date?: string; from?: string; to?: string }, timeZone: string, now: number): ReconciliationWindow {
  if (q.date !== undefined && (q.from !== undefined || q.to !== undefined)) throw invalid('date', 'give a date, or from and to, not both');
  if (q.from !== undefined || q.to !== undefined) {
    const from = q.from === undefined ? Number.NaN : Date.parse(q.from);
    const to = q.to === undefined ? Number.NaN : Date.parse(q.to);
    if (!Number.isFinite(from)) throw invalid('from', 'must be an ISO 8601 date-time, given with to');
    if (!Number.isFinite(to)) throw invalid('to', 'must be an ISO 8601 date-time, given with from');
    if (to < from) throw invalid('to', 'must not be before from');
    if (to - from > MAX_WINDOW_MS) throw invalid('to', 'the window may be at most 7 days');
    return { from, to };
  }
  const date = q.date ?? localDate(now - 86_400_000, timeZone);
  if (!isCalendarDate(date)) throw invalid('date', 'must be a calendar date, YYYY-MM-DD');
  return { ...dayWindow(date, timeZone), date };
}

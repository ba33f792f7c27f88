import type { CallContext, SharedDeps } from '../context';
import type { PosSettings } from '../settings';
import type { AuditDeps } from './record';
import { localDate, windowOf } from './store-day';
import { MemoryAuditStore } from './memory-store';
import { auditEntryView, readAuditPage, type AuditEntryView } from './query';
import type { AuditQuery, SignalsQuery } from './schemas';
import { fleetSignals } from './signal-reads';
import { signalsOfStore, signalView, type AbuseSignalView } from './signals';
import type { AuditAction } from './types';
import type { z } from 'zod';

/** What reading a store's audit trail uses. */
export type AuditReadDeps = Pick<SharedDeps, 'clock'> & AuditDeps & { settings: Pick<PosSettings, 'storeTimeZone'> };

/** How far back one request may read: a month, enough for "last Tuesday" and a dispute's week. */
const MAX_DAYS = 31;

export interface AuditPageView {
  storeId: string;
  from: string;
  to: string;
  entries: AuditEntryView[];
  next: string | null;
}

/**
 * A page of the caller's store's audit trail: only its own stream is read, so
 * another store's entries cannot appear whatever the filter. Today (the store's
 * day) unless a date or a window is given.
 */
export async function readStoreAudit(deps: AuditReadDeps, ctx: CallContext, q: z.output<typeof AuditQuery>): Promise<AuditPageView> {
  const tz = deps.settings.storeTimeZone ?? 'UTC';
  const now = deps.clock();
  const window = windowOf({ date: q.date ?? (q.from || q.to ? undefined : localDate(now, tz)), from: q.from, to: q.to }, tz, now, MAX_DAYS);
  const storeId = ctx.identity.store.id;
  const page = await readAuditPage(
    deps.audit?.store ?? new MemoryAuditStore(0),
    storeId,
    {
      from: window.from,
      to: window.to,
      terminalId: q.terminalId,
      cashierId: q.cashierId,
      customerId: q.customerId,
      actions: q.action?.split(',') as AuditAction[] | undefined,
    },
    { limit: q.limit, after: q.after },
  );
  return {
    storeId,
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    entries: page.entries.map(auditEntryView),
    next: page.next ?? null,
  };
}

/** What reading the signals uses: the trail, the fleet's stores (a pattern may cross them), the thresholds. */
export type SignalReadDeps = AuditReadDeps & {
  stores: () => readonly { id: string }[];
  settings: Pick<PosSettings, 'storeTimeZone' | 'signals'>;
};

export interface SignalsView {
  storeId: string;
  date: string;
  from: string;
  to: string;
  signals: AbuseSignalView[];
}

/**
 * The abuse signals of a day (default today) that the caller's store has a
 * part in, each with only its own part: the fleet's trails are read (a
 * pattern may cross stores), what the store is shown is its own.
 */
export async function readStoreSignals(deps: SignalReadDeps, ctx: CallContext, q: z.output<typeof SignalsQuery>): Promise<SignalsView> {
  const tz = deps.settings.storeTimeZone ?? 'UTC';
  const date = q.date ?? localDate(deps.clock(), tz);
  const window = windowOf({ date }, tz, deps.clock());
  const storeId = ctx.identity.store.id;
  const all = await fleetSignals(deps.audit?.store ?? new MemoryAuditStore(0), [storeId, ...deps.stores().map((s) => s.id)], window, deps.settings.signals);
  return {
    storeId,
    date,
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    signals: signalsOfStore(all, storeId).map(signalView),
  };
}

import type { LoyaltyCallContext } from '../../upstream';
import type { SharedDeps } from '../context';
import type { AuditDeps } from '../audit/record';
import type { PosSettings } from '../settings';
import type { ReconciliationDeps } from './engine';
import { MemoryAuditStore } from '../audit/memory-store';
import { fleetSignals } from '../audit/signal-reads';

export { reconcileStore } from './engine';
export { windowOf } from '../audit/store-day';
export type { ReconciliationDeps, ReconciliationWindow } from './engine';
export { reconciliationCsv, reconciliationPrintout } from './format';
export type { ReconciliationReport, ReconciliationRow } from './types';

/** What every reconciliation read carries to the upstream client: it is background work, after the tills. */
export const BACKGROUND: LoyaltyCallContext = { priority: 'background' };

/** What a running BFF gives its reconciliation: its own stores and client. */
export type RunningStores = Pick<SharedDeps, 'loyalty' | 'clock' | 'logger'> &
  AuditDeps &
  Pick<ReconciliationDeps, 'outbox' | 'couponLocks' | 'sales' | 'redisLosses'> & {
    settings: Pick<PosSettings, 'reconciliationConcurrency' | 'storeTimeZone' | 'signals'>;
    /** The fleet's stores: the abuse signals are looked for across them (a pattern may cross stores). */
    stores?: () => readonly { id: string }[];
  };

/** A reconciliation of a running BFF's stores: its own stores and client. */
export function reconciliationDepsOf(deps: RunningStores): ReconciliationDeps {
  // Without a trail nothing was recorded: an empty one.
  const audit = deps.audit?.store ?? new MemoryAuditStore(0);
  return {
    audit,
    loyalty: deps.loyalty,
    outbox: deps.outbox,
    couponLocks: deps.couponLocks,
    sales: deps.sales,
    clock: deps.clock,
    logger: deps.logger,
    concurrency: deps.settings.reconciliationConcurrency ?? 2,
    timeZone: deps.settings.storeTimeZone ?? 'UTC',
    call: BACKGROUND,
    redisLosses: deps.redisLosses,
    signals: (window) =>
      fleetSignals(
        audit,
        (deps.stores?.() ?? []).map((s) => s.id),
        window,
        deps.settings.signals,
      ),
  };
}

import { readAllAudit } from './query';
import { computeSignals, DEFAULT_THRESHOLDS, lookBackMs, type AbuseSignal } from './signals';
import type { SignalThresholds } from '../../platform/settings';
import type { AuditEntry, AuditStore } from './types';

/** Stores whose trails are read at once. */
const AT_ONCE = 4;

/**
 * The fleet's signals of a window (a store's day): every store's trail read
 * for the window and lookBackMs before it (a refund of the day may undo a
 * sale of the day before), then the patterns looked for across them.
 */
export async function fleetSignals(
  audit: AuditStore,
  storeIds: readonly string[],
  window: { from: number; to: number },
  thresholds: SignalThresholds = DEFAULT_THRESHOLDS,
): Promise<AbuseSignal[]> {
  const ids = [...new Set(storeIds)];
  const entries: AuditEntry[] = [];
  for (let i = 0; i < ids.length; i += AT_ONCE) {
    const read = await Promise.all(ids.slice(i, i + AT_ONCE).map((id) => readAllAudit(audit, id, window.from - lookBackMs(thresholds), window.to)));
    for (const list of read) entries.push(...list);
  }
  return computeSignals(entries, window, thresholds);
}

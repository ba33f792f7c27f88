import type { z } from 'zod';
import type { CallContext } from '../context';
import { windowOf } from '../audit/store-day';
import { reconcileStore } from './engine';
import { reconciliationPrintout } from './format';
import { reconciliationDepsOf, type RunningStores } from './index';
import type { ReconciliationQuery } from './schemas';
import type { ReconciliationReport } from './types';

/** The caller's store's reconciliation for a day (default yesterday) or a window, with its printout. */
export async function reconcileOwnStore(
  deps: RunningStores,
  ctx: CallContext,
  q: z.output<typeof ReconciliationQuery>,
): Promise<ReconciliationReport & { printout: string[] }> {
  const r = reconciliationDepsOf(deps);
  const report = await reconcileStore(r, ctx.identity.store.id, windowOf(q, r.timeZone, deps.clock()));
  return { ...report, printout: reconciliationPrintout(report) };
}

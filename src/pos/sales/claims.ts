import { problem } from '../../platform/problem';
import { paymentOnRecord, refundOnRecord } from '../../upstream';
import type { CallContext, SharedDeps } from '../context';
import { isQueued } from '../outbox/forward';
import type { OutboxEntry } from '../outbox/types';
import { SaleEntry, SaleRecords, stateOf } from './records';
import { ID_REPAIR_MS, idClaim, settleId, settleQueuedId as settleQueuedIdOf } from '../money/ids/claims';
import type { Claim } from '../money/claim-step';
import { applyTransition, SALE_TRANSITIONS } from '../money/machines';

export { NotOnRecordYet } from '../money/ids/claims';

/** What claiming a sale id uses. */
export type SaleClaimDeps = Pick<SharedDeps, 'loyalty' | 'repairs' | 'clock' | 'logger'> & { sales: SaleRecords };

/** What the upstream's record of an id must show for it to be this write. */
export type OnRecord = { kind: 'payment'; totalPaid: number; hold?: { reference: string; points?: number } } | { kind: 'refund'; amount?: number };

function onRecord(deps: SaleClaimDeps, e: SaleEntry, expect: OnRecord): Promise<boolean> {
  const ctx = { requestId: `sale-check-${e.id}`.slice(0, 128), priority: 'background' as const };
  return expect.kind === 'payment'
    ? paymentOnRecord(deps.loyalty, { paymentId: e.id, customerId: e.customerId, totalPaid: expect.totalPaid, hold: expect.hold }, ctx)
    : refundOnRecord(deps.loyalty, { paymentId: e.paymentId, refundId: e.id, amount: expect.amount }, ctx);
}

/**
 * Settles a claimed sale or refund id from the upstream's record (money/ids
 * settleId): on record, it is the claiming store's (`recorded`).
 */
export function settleSaleId(deps: SaleClaimDeps, e: SaleEntry, expect: OnRecord): Promise<string> {
  return settleId(deps.sales, e, () => onRecord(deps, e, expect));
}

/** A void under way on a sale, settled by its refund's record (and, not on record yet, asked again later). */
export async function settleSaleVoid(deps: SaleClaimDeps, sale: SaleEntry, refund: SaleEntry): Promise<string> {
  await settleSaleId(deps, refund, { kind: 'refund' });
  const r = await deps.sales.apply('payment', sale.id, 'voidApplied', {
    when: (cur) => (stateOf(cur) === 'voiding' && cur.voidRefundId === refund.id) || `it is ${stateOf(cur)}`,
  });
  return r.ok ? 'voided' : 'unchanged';
}

/** An id of another store, or of another customer, is refused the same way: nothing tells whose it is. */
const idTaken = (kind: SaleEntry['kind'], id: string) =>
  problem(
    `${kind}_id_taken`,
    `${kind === 'payment' ? 'Payment' : 'Refund'} id ${id} is already used by another ${kind === 'payment' ? 'sale' : 'refund'}; nothing was recorded for this one: use a new id`,
  );

/**
 * A sale or refund id claimed for this store (money/ids idClaim). For a
 * batch's order it is `recorded` once its record upstream shows it (see
 * settleSaleId). The same id sent again by the same store for the same
 * customer (and, for a refund, the same sale) is a till's retry.
 */
export function saleIdClaim(
  deps: SaleClaimDeps,
  ctx: CallContext,
  entry: Omit<SaleEntry, 'storeId' | 'state'>,
  expect: OnRecord,
  opts: { acceptedLater?: boolean } = {},
): Claim {
  const mine: SaleEntry = {
    ...entry,
    storeId: ctx.identity.store.id,
    ...(expect.kind === 'payment' ? { totalPaid: expect.totalPaid } : { refundAmount: expect.amount }),
  };
  return idClaim({ records: deps.sales, repairs: deps.repairs }, mine, {
    sameWrite: (held) => held.storeId === mine.storeId && held.customerId === mine.customerId && held.paymentId === mine.paymentId,
    taken: () => idTaken(entry.kind, entry.id),
    expect,
    expectOf: (held): OnRecord =>
      held.kind === 'payment' ? { kind: 'payment', totalPaid: held.totalPaid ?? Number.NaN } : { kind: 'refund', amount: held.refundAmount },
    onRecord: (e, x) => onRecord(deps, e, x),
    // A write queued in the outbox stays claimed until it is delivered (or dead); a batch's order until its job accepts it.
    settledElsewhere: (answer) => isQueued(answer) || !!opts.acceptedLater,
  });
}

/**
 * A recorded sale claimed by its void (`voiding`, naming the void's refund id).
 * Applied: `voided`. Refused: `recorded` again. A sale this BFF has no record
 * of (older than SALE_RECORD_DAYS, or from before it), or one not recorded yet,
 * has nothing to claim: the upstream's rules and the refund id's own claim decide.
 */
export function saleForVoid(deps: SaleClaimDeps, ctx: CallContext, paymentId: string, refundId: string, anyBranch: boolean): Claim {
  let claimed: SaleEntry | null = null;
  let again = false;
  return {
    name: `sale ${paymentId}`,
    get again() {
      return again;
    },
    async take() {
      let refusal: Error | undefined;
      let queued = false;
      const r = await deps.sales.change('payment', paymentId, (cur) => {
        if (cur.storeId !== ctx.identity.store.id && !anyBranch) return (refusal = saleNotFound(paymentId)).message;
        const state = stateOf(cur);
        again = state === 'voiding' && cur.voidRefundId === refundId;
        if (again) return cur;
        if (state === 'voided') return (refusal = problem('sale_already_voided', `Sale ${paymentId} was already voided`)).message;
        if (state === 'voiding') return (refusal = problem('sale_void_in_progress', `Sale ${paymentId} is being voided (refund ${cur.voidRefundId})`)).message;
        // Not recorded yet (queued, or its outcome unknown): nothing to claim; the void's refund queues behind it (one customer's writes go in order) and dies with it.
        if (state === 'recording') return ((queued = true), 'not recorded yet');
        return applyTransition(SALE_TRANSITIONS.void, state, cur, { args: { voidRefundId: refundId } });
      });
      if (r.ok) claimed = r.entry;
      else if (queued) return;
      else if (refusal) throw refusal;
      else if (r.entry) throw problem('sale_busy', `Sale ${paymentId} could not be claimed: ${r.detail}`);
    },
    async finish(answer) {
      if (!claimed || isQueued(answer)) return;
      const r = await deps.sales.apply('payment', paymentId, 'voidApplied');
      if (!r.ok) throw new Error(`Sale ${paymentId}: ${r.detail}`);
    },
    async free() {
      if (!claimed) return;
      if (again) return this.settleLater();
      await deps.sales.apply('payment', paymentId, 'voidRefused', { when: (cur) => cur.voidRefundId === refundId || 'not voiding' });
    },
    settleLater() {
      const sale = claimed;
      if (!sale) return;
      const refund: SaleEntry = { kind: 'refund', id: refundId, storeId: ctx.identity.store.id, customerId: sale.customerId, paymentId };
      deps.repairs?.add({
        key: `sale-void:${paymentId}`,
        settle: () => settleSaleVoid(deps, { ...sale, voidRefundId: refundId }, refund),
        until: Date.now() + ID_REPAIR_MS,
      });
    },
  };
}

export const saleNotFound = (paymentId: string) => problem('sale_not_found', `Sale ${paymentId} was not found in this store`);

/**
 * A queued sale or refund the outbox finished: its id settled (money/ids
 * settleQueuedId); for a refund, a void's sale becomes `voided` when it was
 * delivered, `recorded` again when it was definitely refused.
 */
async function settleQueuedId(
  sales: SaleRecords,
  e: { kind: 'payment' | 'refund'; id: string; paymentId: string; storeId: string; mayHaveLanded?: boolean },
  delivered: boolean,
): Promise<void> {
  if (!delivered && e.mayHaveLanded) return;
  await settleQueuedIdOf(sales, e, delivered);
  if (e.kind !== 'refund') return;
  await sales.apply('payment', e.paymentId, delivered ? 'voidApplied' : 'voidRefused', {
    when: (cur) => (stateOf(cur) === 'voiding' && cur.voidRefundId === e.id) || 'not this void',
  });
}

/** The outbox worker's `settle` for queued sales and refunds (the other queued writes claim no sale id). */
export function settleQueuedSale(sales: SaleRecords) {
  return async (entry: OutboxEntry, finished: { delivered: boolean; mayHaveLanded: boolean }): Promise<void> => {
    const work = entry.work;
    if (work.kind !== 'payment' && work.kind !== 'refund') return;
    const id =
      work.kind === 'payment'
        ? { kind: 'payment' as const, id: work.request.paymentId, paymentId: work.request.paymentId }
        : { kind: 'refund' as const, id: work.request.refundTransactionId, paymentId: work.request.reverseTransactionId };
    await settleQueuedId(sales, { ...id, storeId: entry.storeId, mayHaveLanded: finished.mayHaveLanded }, finished.delivered);
  };
}

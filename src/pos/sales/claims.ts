import { problem } from '../../platform/problem';
import type { CallContext, SharedDeps } from '../context';
import { isQueued } from '../outbox/forward';
import type { OutboxEntry } from '../outbox/types';
import { SaleEntry, SaleRecords, stateOf } from './records';
import { ID_REPAIR_MS, idClaim, settleId, settleQueuedId as settleQueuedIdOf, type IdClaim } from '../money/ids/claims';
import { recordDiffers, recordOf, sameWrite, type ClaimsShow, type PaymentWrite, type RefundWrite, type Verdict, type Write } from '../money/ids/same-write';
import type { Claim } from '../money/claim-step';
import { applyTransition, SALE_TRANSITIONS } from '../money/machines';
import { renewLease } from '../money/lease';

export { NotOnRecordYet } from '../money/ids/claims';

/** What claiming a sale id uses. */
export type SaleClaimDeps = Pick<SharedDeps, 'loyalty' | 'repairs' | 'clock' | 'logger'> & { sales: SaleRecords };

/** The write a sale id is claimed for, as same-write.ts compares it (its ids come from the entry). */
export type SaleWrite = Omit<PaymentWrite, 'paymentId' | 'customerId'> | Omit<RefundWrite, 'refundId' | 'paymentId' | 'customerId'>;

/** A sale id's write asserts everything: a sale (or a batch's order) naming no hold or coupons names none. */
const writeOf = (e: Pick<SaleEntry, 'id' | 'customerId' | 'paymentId'>, w: SaleWrite): Write =>
  w.kind === 'payment'
    ? { ...w, hold: w.hold ?? null, coupons: w.coupons ?? null, paymentId: e.paymentId, customerId: e.customerId }
    : { ...w, refundId: e.id, paymentId: e.paymentId, customerId: e.customerId };

/**
 * The write an entry records. A field an entry of an older release lacks reads
 * as none here, and the entry itself cannot show it: compared, it is unknown.
 */
export function writeRecordedBy(e: SaleEntry): Write {
  if (e.kind === 'refund') return writeOf(e, { kind: 'refund', amount: e.refundAmount ?? null, lines: e.refundLines ?? null });
  const coupons = e.couponLockReference || e.couponCodes?.length ? { lockReference: e.couponLockReference ?? null, codes: e.couponCodes ?? [] } : null;
  const hold = e.holdReference ? { reference: e.holdReference } : null;
  return writeOf(e, { kind: 'payment', totalPaid: e.totalPaid ?? Number.NaN, hold, coupons });
}

function check(deps: SaleClaimDeps, w: Write, record: SaleEntry | null, claims?: ClaimsShow): Promise<Verdict> {
  return sameWrite(
    deps.loyalty,
    w,
    record,
    { requestId: `sale-check-${w.kind === 'payment' ? w.paymentId : w.refundId}`.slice(0, 128), priority: 'background' },
    claims,
  );
}

/**
 * Settles a claimed sale or refund id from the upstream's record (money/ids
 * settleId): this very write on record, it is the claiming store's (`recorded`).
 */
export function settleSaleId(deps: SaleClaimDeps, e: SaleEntry, w: Write = writeRecordedBy(e)): Promise<string> {
  return settleId(deps.sales, e, () => check(deps, w, e));
}

/** A void under way on a sale, settled by its refund's record (and, not on record yet, asked again later). */
export async function settleSaleVoid(deps: SaleClaimDeps, sale: SaleEntry, refund: SaleEntry): Promise<string> {
  await settleSaleId(deps, refund, writeOf(refund, { kind: 'refund', amount: null, lines: null }));
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
  write: SaleWrite,
  opts: { acceptedLater?: boolean; claims?: (entry: SaleEntry | null) => ClaimsShow } = {},
): IdClaim<SaleEntry> {
  // Read when the claim is taken: a hold's or lock's reference is known only once their claims are.
  const writeNow = () => writeOf(entry, write);
  const mine = (): SaleEntry => ({ ...entry, storeId: ctx.identity.store.id, ...recordOf(writeNow()) });
  return idClaim({ records: deps.sales, repairs: deps.repairs }, { kind: entry.kind, id: entry.id, storeId: ctx.identity.store.id }, mine, {
    // Another store's or customer's id, or a recorded write whose identity differs, is another write: refused before sending.
    sameWrite: (held) =>
      held.storeId === ctx.identity.store.id &&
      held.customerId === entry.customerId &&
      held.paymentId === entry.paymentId &&
      recordDiffers(writeNow(), held) === null,
    taken: () => idTaken(entry.kind, entry.id),
    check: (record) => check(deps, writeNow(), record, opts.claims?.(record)),
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
        if (again) return renewLease(cur);
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
      if (!claimed) return;
      if (isQueued(answer)) {
        // As a queued write's id claim: the outbox settles the sale (settleQueuedSale), not the lease sweep. Best effort.
        await deps.sales
          .change('payment', paymentId, (cur) => (stateOf(cur) === 'voiding' && cur.voidRefundId === refundId ? { ...cur, queued: true } : cur))
          .catch(() => undefined);
        return;
      }
      const r = await deps.sales.apply('payment', paymentId, 'voidApplied');
      if (!r.ok) throw new Error(`Sale ${paymentId}: ${r.detail}`);
    },
    async free(_refusal, final) {
      if (!claimed) return;
      if (again && !final) return this.settleLater();
      await deps.sales.apply('payment', paymentId, 'voidRefused', { when: (cur) => cur.voidRefundId === refundId || 'not voiding' });
    },
    settleLater() {
      const sale = claimed;
      if (!sale) return;
      const who = { kind: 'refund' as const, id: refundId, storeId: ctx.identity.store.id, customerId: sale.customerId, paymentId };
      // The void's refund id was claimed as a whole refund: that is its record here.
      const refund: SaleEntry = { ...who, ...recordOf(writeOf(who, { kind: 'refund', amount: null, lines: null })) };
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

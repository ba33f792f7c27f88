import type { CallContext, PosDeps } from '../deps';
import type { PaymentBody, RefundBody, SaleVoidBody } from '../schemas';
import { PaymentView, QueuedPayment, recordSale } from './payments';
import { isQueued } from '../outbox/forward';
import type { ReceiptMode } from '../receipt-query';
import { buildReceipt, readAfterSale, Receipt } from './receipt';
import { QueuedRefund, refund, RefundView, voidSale } from './refunds';
import { couponsApplied } from './totals';

export type SaleView = PaymentView & { couponLock?: { id: string; state: string; coupons: string[] }; receipt: Receipt | null };
export type SaleRefundView = RefundView & { receipt: Receipt | null };


/**
 * A sale at the till: points (a held redemption), coupons (a lock), both or
 * neither, recorded through the one claim -> act -> settle step (recordSale).
 * The answer carries the receipt block (unless `receipt` is `none`), read
 * after the payment: the till waits for the payment, then for one more round trip.
 */
export async function completeSale(deps: PosDeps, ctx: CallContext, body: PaymentBody, receipt: ReceiptMode = 'full'): Promise<SaleView | QueuedPayment> {
  const { view, lock: used } = await recordSale(deps, ctx, body);
  if (isQueued(view)) return view;
  const reads = view.status === 'recorded' && receipt === 'full' ? readAfterSale(deps, ctx, body.customerId) : undefined;
  const block = reads
    ? await buildReceipt(deps, ctx, reads, {
        pointsEarned: view.pointsEarned ?? 0,
        pointsRedeemed: view.pointsRedeemed ?? 0,
        pointsGivenBack: 0,
        pointsTakenBack: 0,
        coupons: used ? couponsApplied(body, used) : undefined,
      })
    : null;
  return { ...view, ...(used ? { couponLock: { id: used.id, state: used.state, coupons: used.coupons.map((c) => c.code) } } : {}), receipt: block };
}

/** Points a refund gave back (redeemed points returned): the upstream lists them as `Cancel` under the refund's id. */
async function givenBack(deps: PosDeps, ctx: CallContext, paymentId: string, refundId: string): Promise<number> {
  try {
    const { transactions } = await deps.loyalty.orderTransactions(paymentId, { requestId: ctx.requestId });
    return transactions.filter((t) => t.transactionType === 'Cancel' && t.transactionId === refundId).reduce((s, t) => s + (t.equivalentPoints ?? 0), 0);
  } catch {
    return 0;
  }
}

/** The refund's receipt: the given-back points and the balance are read side by side, after the refund (one more round trip, not two). */
async function withReceipt(deps: PosDeps, ctx: CallContext, view: RefundView | QueuedRefund, receipt: ReceiptMode): Promise<SaleRefundView | QueuedRefund> {
  if (isQueued(view) || view.status !== 'refunded' || receipt === 'none') {
    return isQueued(view) ? view : { ...view, receipt: null };
  }
  const reads = readAfterSale(deps, ctx, view.customerId);
  const back = await givenBack(deps, ctx, view.paymentId, view.refundId);
  return { ...view, receipt: await buildReceipt(deps, ctx, reads, { pointsEarned: 0, pointsRedeemed: 0, pointsGivenBack: back, pointsTakenBack: view.pointsReversed ?? 0 }) };
}

export async function refundSale(deps: PosDeps, ctx: CallContext, body: RefundBody, receipt: ReceiptMode = 'full'): Promise<SaleRefundView | QueuedRefund> {
  return withReceipt(deps, ctx, await refund(deps, ctx, body), receipt);
}

export async function voidCompletedSale(deps: PosDeps, ctx: CallContext, paymentId: string, body: SaleVoidBody, receipt: ReceiptMode = 'full'): Promise<SaleRefundView | QueuedRefund> {
  return withReceipt(deps, ctx, await voidSale(deps, ctx, paymentId, body), receipt);
}

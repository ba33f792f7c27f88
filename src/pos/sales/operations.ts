import type { CallContext } from '../context';
import type { RefundBody } from '../refunds/schemas';
import type { PaymentBody, SaleVoidBody } from './schemas';
import { PaymentView, QueuedPayment, recordSale, type PaymentDeps } from './payments';
import { isQueued } from '../outbox/forward';
import type { ReceiptMode } from './receipt-query';
import { couponsNotReturned, type CouponsNotReturned } from '../coupons/not-returned';
import { buildReceipt, readAfterSale, Receipt } from './receipt';
import { QueuedRefund, refund, RefundView, voidSale, type RefundDeps } from '../refunds/operations';
import { couponsApplied } from './totals';

/** What the sale use cases are given: a payment's and a refund's parts (a refund is part of a sale's answer). */
export type SaleDeps = PaymentDeps & RefundDeps;

export type SaleView = PaymentView & { couponLock?: { id: string; state: string; coupons: string[] }; receipt: Receipt | null };
export type SaleRefundView = RefundView & { receipt: Receipt | null };

/**
 * A sale at the till: points (a held redemption), coupons (a lock), both or
 * neither, recorded through the one claim -> act -> settle step (recordSale).
 * The answer carries the receipt block (unless `receipt` is `none`), read
 * after the payment: the till waits for the payment, then for one more round trip.
 */
export async function completeSale(deps: SaleDeps, ctx: CallContext, body: PaymentBody, receipt: ReceiptMode = 'full'): Promise<SaleView | QueuedPayment> {
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

/**
 * Points a refund gave back (redeemed points returned): the upstream lists them
 * as `Cancel` under the refund's id. Null when that list cannot be read: the
 * refund is done either way, and 0 would be a wrong figure on the receipt.
 */
async function givenBack(deps: SaleDeps, ctx: CallContext, paymentId: string, refundId: string): Promise<number | null> {
  try {
    const { transactions } = await deps.loyalty.orderTransactions(paymentId, { requestId: ctx.requestId });
    return transactions.filter((t) => t.transactionType === 'Cancel' && t.transactionId === refundId).reduce((s, t) => s + (t.equivalentPoints ?? 0), 0);
  } catch (err) {
    deps.logger.warn(
      { requestId: ctx.requestId, refundId, err: (err as Error).message },
      'receipt: the points the refund gave back could not be read; printed as unknown',
    );
    return null;
  }
}

/**
 * The refund's receipt: the given-back points and the balance are read side by
 * side, after the refund (one more round trip, not two). Every answer, queued
 * or without a receipt too, says which coupons of the sale stay used (a Redis
 * read beside the others).
 */
async function withReceipt(
  deps: SaleDeps,
  ctx: CallContext,
  view: RefundView | QueuedRefund,
  receipt: ReceiptMode,
): Promise<(SaleRefundView | QueuedRefund) & CouponsNotReturned> {
  const coupons = couponsNotReturned(deps, ctx, view.paymentId);
  if (isQueued(view) || view.status !== 'refunded' || receipt === 'none') {
    const notReturned = await coupons;
    return isQueued(view) ? { ...view, couponsNotReturned: notReturned } : { ...view, couponsNotReturned: notReturned, receipt: null };
  }
  const reads = readAfterSale(deps, ctx, view.customerId);
  const [back, notReturned] = await Promise.all([givenBack(deps, ctx, view.paymentId, view.refundId), coupons]);
  const block = await buildReceipt(deps, ctx, reads, {
    pointsEarned: 0,
    pointsRedeemed: 0,
    pointsGivenBack: back,
    pointsTakenBack: view.pointsReversed ?? 0,
    couponsNotReturned: notReturned ?? [],
  });
  return { ...view, couponsNotReturned: notReturned, receipt: block };
}

/** A refund's answer: recorded with its receipt, or queued; either way naming the coupons it could not give back. */
export type SaleRefundAnswer = (SaleRefundView | QueuedRefund) & CouponsNotReturned;

export async function refundSale(deps: SaleDeps, ctx: CallContext, body: RefundBody, receipt: ReceiptMode = 'full'): Promise<SaleRefundAnswer> {
  return withReceipt(deps, ctx, await refund(deps, ctx, body), receipt);
}

export async function voidCompletedSale(
  deps: SaleDeps,
  ctx: CallContext,
  paymentId: string,
  body: SaleVoidBody,
  receipt: ReceiptMode = 'full',
): Promise<SaleRefundAnswer> {
  return withReceipt(deps, ctx, await voidSale(deps, ctx, paymentId, body), receipt);
}

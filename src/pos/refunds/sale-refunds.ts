import type { CallContext } from '../context';
import type { CouponLockStore } from '../coupons/locks/types';
import { isQueued } from '../outbox/forward';
import type { SaleVoidBody } from '../sales/schemas';
import type { ReceiptMode } from '../sales/receipt-query';
import { buildReceipt, readAfterSale, Receipt } from '../sales/receipt';
import { couponsNotReturned, type CouponsNotReturned } from './coupons-not-returned';
import { QueuedRefund, refund, RefundView, voidSale, type RefundDeps } from './operations';
import type { RefundBody } from './schemas';

/*
 * A refund or a void of a sale as the till asks for it: the write, then its
 * receipt block and the coupons of the sale it could not give back.
 */

/** What they are given: the refund's parts, and the coupon lock store for the coupons a sale used. */
export type SaleRefundDeps = RefundDeps & { couponLocks: Pick<CouponLockStore, 'usedBy'> };

export type SaleRefundView = RefundView & { receipt: Receipt | null };

/**
 * Points a refund gave back (redeemed points returned): the upstream lists them
 * as `Cancel` under the refund's id. Null when that list cannot be read: the
 * refund is done either way, and 0 would be a wrong figure on the receipt.
 */
async function givenBack(deps: SaleRefundDeps, ctx: CallContext, paymentId: string, refundId: string): Promise<number | null> {
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
  deps: SaleRefundDeps,
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

export async function refundSale(deps: SaleRefundDeps, ctx: CallContext, body: RefundBody, receipt: ReceiptMode = 'full'): Promise<SaleRefundAnswer> {
  return withReceipt(deps, ctx, await refund(deps, ctx, body), receipt);
}

export async function voidCompletedSale(
  deps: SaleRefundDeps,
  ctx: CallContext,
  paymentId: string,
  body: SaleVoidBody,
  receipt: ReceiptMode = 'full',
): Promise<SaleRefundAnswer> {
  return withReceipt(deps, ctx, await voidSale(deps, ctx, paymentId, body), receipt);
}

import { AppError, NotFoundError } from '../../platform/errors';
import type { CouponLock } from '../coupon-locks/types';
import type { CallContext, PosDeps } from '../deps';
import type { SaleEntry } from '../sales';
import type { PaymentBody, RefundBody, SaleVoidBody } from '../schemas';
import { claimCouponLock, markCouponLockUsed, settleFailedCouponClaim } from './coupon-locks';
import { acceptSale, paymentView, PaymentView, QueuedPayment, recordPayment, toUpstreamPayment } from './payments';
import { isQueued } from '../outbox/forward';
import type { ReceiptMode } from '../receipt-query';
import { couponsNotReturned, type CouponsNotReturned } from './coupons-not-returned';
import { buildReceipt, readAfterSale, Receipt } from './receipt';
import { QueuedRefund, refund, RefundView, voidSale } from './refunds';

export type SaleView = PaymentView & { couponLock?: { id: string; state: string; coupons: string[] }; receipt: Receipt | null };
export type SaleRefundView = RefundView & { receipt: Receipt | null };


/** Remembers the store of a refund. Best effort: the refund is done upstream, so a Redis hiccup here must not turn its answer into an error (reading it back then answers 404). */
async function rememberRefund(deps: PosDeps, ctx: CallContext, entry: SaleEntry): Promise<void> {
  await deps.sales.remember(entry).catch((err) => deps.logger.warn({ requestId: ctx.requestId, refundId: entry.id, err: (err as Error).message }, 'could not remember the store of a refund; reading it back will answer 404'));
}

/** The payment itself: through the redemption flow, straight upstream when only a coupon lock is named (a lock would lapse in a queue), or as before. */
async function pay(deps: PosDeps, ctx: CallContext, body: PaymentBody, lock: CouponLock | undefined, retry: boolean): Promise<PaymentView | QueuedPayment> {
  if (!lock || body.redemptionId) return recordPayment(deps, ctx, body);
  await acceptSale(deps, ctx, body);
  try {
    return paymentView(body, await deps.loyalty.payment(toUpstreamPayment(ctx, body, deps.clock()), { requestId: ctx.requestId }));
  } catch (err) {
    // The same sale sent again after a lost answer: the upstream already has it.
    if (retry && err instanceof AppError && err.code === 'duplicate_transaction') return paymentView(body, { kind: 'already_applied' });
    throw err;
  }
}

/**
 * A sale at the till: points (a held redemption), coupons (a lock), both or
 * neither. The lock is claimed for this payment first, its upstream reference
 * rides on the payment (which burns the coupons), and it ends `used`. The
 * answer carries the receipt block (unless `receipt` is `none`). The sale's
 * store was kept before the upstream heard of it (acceptSale). After the
 * payment, the receipt's reads upstream and the lock's Redis write run side by
 * side: the till waits for the payment, then for one more round trip.
 */
export async function completeSale(deps: PosDeps, ctx: CallContext, body: PaymentBody, receipt: ReceiptMode = 'full'): Promise<SaleView | QueuedPayment> {
  let lock: CouponLock | undefined;
  let retry = false;
  let sent = body;
  if (body.couponLockId) {
    ({ lock, retry } = await claimCouponLock(deps, ctx, body.couponLockId, body.customerId, body.paymentId));
    sent = { ...body, couponsLockReference: lock.lockReference };
  }
  let view: PaymentView | QueuedPayment;
  try {
    view = await pay(deps, ctx, sent, lock, retry);
  } catch (err) {
    if (!lock) throw err;
    await settleFailedCouponClaim(deps, lock, err);
    // The lock is the one thing a payment names that the service answers 4004 for (a hold is 9006, a customer 7000).
    if (err instanceof AppError && err.code === 'upstream_not_found') {
      throw new NotFoundError('coupon_lock_not_found', `The loyalty service does not know coupon lock ${lock.id}; lock the coupons again`, { loyaltyCode: err.loyaltyCode });
    }
    throw err;
  }
  if (isQueued(view)) return view;
  const reads = view.status === 'recorded' && receipt === 'full' ? readAfterSale(deps, ctx, body.customerId) : undefined;
  const used = lock ? await markCouponLockUsed(deps, lock, body.paymentId) : undefined;
  const block = reads
    ? await buildReceipt(deps, ctx, reads, {
        pointsEarned: view.pointsEarned ?? 0,
        pointsRedeemed: view.pointsRedeemed ?? 0,
        pointsGivenBack: 0,
        pointsTakenBack: 0,
        coupons: used?.coupons.map((c) => ({ code: c.code, worth: c.worth })),
      })
    : null;
  return { ...view, ...(used ? { couponLock: { id: used.id, state: used.state, coupons: used.coupons.map((c) => c.code) } } : {}), receipt: block };
}

/**
 * Points a refund gave back (redeemed points returned): the upstream lists them
 * as `Cancel` under the refund's id. Null when that list cannot be read: the
 * refund is done either way, and 0 would be a wrong figure on the receipt.
 */
async function givenBack(deps: PosDeps, ctx: CallContext, paymentId: string, refundId: string): Promise<number | null> {
  try {
    const { transactions } = await deps.loyalty.orderTransactions(paymentId, { requestId: ctx.requestId });
    return transactions.filter((t) => t.transactionType === 'Cancel' && t.transactionId === refundId).reduce((s, t) => s + (t.equivalentPoints ?? 0), 0);
  } catch (err) {
    deps.logger.warn({ requestId: ctx.requestId, refundId, err: (err as Error).message }, 'receipt: the points the refund gave back could not be read; printed as unknown');
    return null;
  }
}

/**
 * The refund's receipt: the given-back points and the balance are read side by
 * side, after the refund (one more round trip, not two). Every answer, queued
 * or without a receipt too, says which coupons of the sale stay used (a Redis
 * read beside the others).
 */
async function withReceipt(deps: PosDeps, ctx: CallContext, view: RefundView | QueuedRefund, receipt: ReceiptMode): Promise<(SaleRefundView | QueuedRefund) & CouponsNotReturned> {
  const remembered = rememberRefund(deps, ctx, { kind: 'refund', id: view.refundId, storeId: ctx.identity.store.id, customerId: view.customerId, paymentId: view.paymentId });
  const coupons = couponsNotReturned(deps, ctx, view.paymentId);
  if (isQueued(view) || view.status !== 'refunded' || receipt === 'none') {
    const [, notReturned] = await Promise.all([remembered, coupons]);
    return isQueued(view) ? { ...view, couponsNotReturned: notReturned } : { ...view, couponsNotReturned: notReturned, receipt: null };
  }
  const reads = readAfterSale(deps, ctx, view.customerId);
  const [back, , notReturned] = await Promise.all([givenBack(deps, ctx, view.paymentId, view.refundId), remembered, coupons]);
  const block = await buildReceipt(deps, ctx, reads, { pointsEarned: 0, pointsRedeemed: 0, pointsGivenBack: back, pointsTakenBack: view.pointsReversed ?? 0, couponsNotReturned: notReturned ?? [] });
  return { ...view, couponsNotReturned: notReturned, receipt: block };
}

export async function refundSale(deps: PosDeps, ctx: CallContext, body: RefundBody, receipt: ReceiptMode = 'full'): Promise<SaleRefundView | QueuedRefund> {
  return withReceipt(deps, ctx, await refund(deps, ctx, body), receipt);
}

export async function voidCompletedSale(deps: PosDeps, ctx: CallContext, paymentId: string, body: SaleVoidBody, receipt: ReceiptMode = 'full'): Promise<SaleRefundView | QueuedRefund> {
  return withReceipt(deps, ctx, await voidSale(deps, ctx, paymentId, body), receipt);
}

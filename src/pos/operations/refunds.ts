import { AppError, ConflictError } from '../../platform/errors';
import type { RefundRequest, RefundResponse } from '../../contract';
import type { CallContext, PosDeps } from '../deps';
import { QueuedView, sendOrQueue } from '../outbox/forward';
import type { RefundBody, SaleVoidBody } from '../schemas';
import { merchantOf } from './store-merchant';

export interface RefundView {
  refundId: string;
  paymentId: string;
  customerId: string;
  status: 'refunded' | 'already_refunded';
  amountRefunded: number | null;
  pointsReversed: number | null;
  loyaltyTransactionId: string | null;
}

function refundView(req: RefundRequest, outcome: { kind: 'applied'; body: RefundResponse } | { kind: 'already_applied' }): RefundView {
  const applied = outcome.kind === 'applied' ? outcome.body : undefined;
  return {
    refundId: req.refundTransactionId,
    paymentId: req.reverseTransactionId,
    customerId: req.customerId,
    status: applied ? 'refunded' : 'already_refunded',
    amountRefunded: applied ? applied.refundAmount : null,
    pointsReversed: applied ? applied.refundEquivalentPoints : null,
    loyaltyTransactionId: applied ? applied.gameballTransactionId : null,
  };
}

export function toUpstreamRefund(ctx: CallContext, body: RefundBody, now: number): RefundRequest {
  return {
    customerId: body.customerId,
    refundTransactionId: body.refundId,
    reverseTransactionId: body.paymentId,
    transactionTime: body.transactionTime ?? new Date(now).toISOString(),
    email: body.email,
    mobile: body.mobile,
    refundAmount: body.amount,
    merchant: merchantOf(ctx.identity.store),
    lineItems: body.lines?.map((l) => ({ productId: l.serviceId, price: l.price, quantity: l.quantity, title: l.title })),
  };
}

/** A refund (or sale void) queued in the outbox (answered 202). */
export type QueuedRefund = QueuedView & { refundId: string; paymentId: string; customerId: string };

/**
 * Full, by amount, or by lines: the upstream's refund rules decide which.
 * Queued when the upstream is out of reach (its refundId makes a second
 * delivery a duplicate, not a second refund), and behind the customer's
 * queued writes, so it never reaches the upstream before its payment.
 */
export async function refund(deps: PosDeps, ctx: CallContext, body: RefundBody): Promise<RefundView | QueuedRefund> {
  const req = toUpstreamRefund(ctx, body, deps.clock());
  return sendOrQueue(deps, ctx, { kind: 'refund', request: req }, { refundId: req.refundTransactionId, paymentId: req.reverseTransactionId, customerId: req.customerId }, async (call) =>
    refundView(req, await deps.loyalty.refund(req, call)),
  );
}

/** Voiding a completed sale is its full refund, with a refund id derived from the payment's so a retry cannot refund twice. */
export async function voidSale(deps: PosDeps, ctx: CallContext, paymentId: string, body: SaleVoidBody): Promise<RefundView | QueuedRefund> {
  try {
    return await refund(deps, ctx, {
      customerId: body.customerId,
      refundId: body.refundId ?? `void-${paymentId}`,
      paymentId,
      transactionTime: body.transactionTime,
      email: body.email,
      mobile: body.mobile,
    });
  } catch (err) {
    // The void's refund id is derived from the sale, so a duplicate means this sale was voided before.
    if (err instanceof AppError && err.code === 'duplicate_transaction') {
      throw new ConflictError('sale_already_voided', `Sale ${paymentId} was already voided`, { loyaltyCode: err.loyaltyCode });
    }
    throw err;
  }
}

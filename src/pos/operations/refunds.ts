import { AppError, ConflictError, NotFoundError } from '../../platform/errors';
import type { RefundRequest } from '../../contract';
import type { RefundAnswer } from '../../upstream';
import type { CallContext, PosDeps } from '../deps';
import { QueuedView, sendOrQueue } from '../outbox/forward';
import type { RefundBody, SaleLine, SaleVoidBody } from '../schemas';
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

function refundView(req: RefundRequest, outcome: { kind: 'applied'; body: RefundAnswer } | { kind: 'already_applied' }): RefundView {
  const applied = outcome.kind === 'applied' ? outcome.body : undefined;
  return {
    refundId: req.refundTransactionId,
    paymentId: req.reverseTransactionId,
    customerId: req.customerId,
    status: applied ? 'refunded' : 'already_refunded',
    amountRefunded: applied?.refundAmount ?? null,
    pointsReversed: applied?.refundEquivalentPoints ?? null,
    loyaltyTransactionId: applied?.gameballTransactionId ?? null,
  };
}

/**
 * A refund line item is priced per unit (the upstream multiplies by the
 * quantity); the till's line gives its total. Rounded to a millionth, far
 * below any currency's unit, so price times quantity is the line's amount
 * within a fraction of a cent.
 */
function unitPrice(l: SaleLine): number {
  return l.quantity === undefined ? l.amount : Math.round((l.amount / l.quantity) * 1e6) / 1e6;
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
    lineItems: body.lines?.map((l) => ({
      productId: l.serviceId,
      sku: l.sku,
      title: l.name,
      vendor: l.provider,
      quantity: l.quantity,
      price: unitPrice(l),
      taxes: l.tax,
      discount: l.discount,
      category: l.category,
      tags: l.tags,
      extra: l.extra,
    })),
  };
}

/** A refund (or sale void) queued in the outbox (answered 202). */
export type QueuedRefund = QueuedView & { refundId: string; paymentId: string; customerId: string };

/**
 * A sale is refunded or voided by the store that rang it up; another store's
 * sale reads as missing, as another store's redemption does, unless the chain
 * allows returns at any branch. A sale this BFF has no store for (taken before
 * it was deployed, or older than SALE_RECORD_DAYS) is left to the upstream's
 * own rules: its store is not known here.
 */
async function requireOwnSale(deps: PosDeps, ctx: CallContext, paymentId: string): Promise<void> {
  if (deps.settings.returnsAtAnyBranch) return;
  const owner = (await deps.sales.get('payment', paymentId))?.storeId;
  if (owner !== undefined && owner !== ctx.identity.store.id) throw new NotFoundError('sale_not_found', `Sale ${paymentId} was not found in this store`);
}

/**
 * Full, by amount, or by lines: the upstream's refund rules decide which.
 * Queued when the upstream is out of reach (its refundId makes a second
 * delivery a duplicate, not a second refund), and behind the customer's
 * queued writes, so it never reaches the upstream before its payment.
 */
export async function refund(deps: PosDeps, ctx: CallContext, body: RefundBody): Promise<RefundView | QueuedRefund> {
  await requireOwnSale(deps, ctx, body.paymentId);
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

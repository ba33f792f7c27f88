import type { RefundRequest } from '../../contract';
import { isProblem, problem } from '../../platform/problem';
import type { RefundAnswer } from '../../upstream';
import type { IdClaim } from '../money/ids/claims';
import { refundLinesDigest } from '../money/ids/same-write';
import { claimActSettle, type Claim } from '../money/claim-step';
import { NotOnRecordYet, saleForVoid, saleIdClaim, saleNotFound, settleSaleId, type SaleClaimDeps } from '../sales/claims';
import { stateOf } from '../sales/records';
import type { CallContext } from '../context';
import { QueuedView, sendOrQueue, type OutboxDeps } from '../outbox/forward';
import type { PosSettings } from '../settings';
import type { SaleLine, SaleVoidBody } from '../sales/schemas';
import type { RefundBody } from './schemas';
import { merchantOf } from '../terminals/store-merchant';
import { auditNote, type AuditDeps } from '../audit/record';
import { refundSubject } from '../audit/subjects';
import { storePolicy } from '../terminals/policy';
import { saleOrItsOwner, type SaleOwnerDeps } from '../sales/owner';

/** What the refund use cases are given. */
export type RefundDeps = SaleClaimDeps & SaleOwnerDeps & OutboxDeps & AuditDeps & { settings: Pick<PosSettings, 'returnsAtAnyBranch'> };

export interface RefundView {
  refundId: string;
  paymentId: string;
  customerId: string;
  status: 'refunded' | 'already_refunded';
  amountRefunded: number | null;
  pointsReversed: number | null;
  loyaltyTransactionId: string | null;
}

/** The till's view of a refund: the upstream's answer, or (absent) its record showed it applied before. */
function refundView(req: RefundRequest, applied: RefundAnswer | undefined): RefundView {
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
 * allows returns at any branch. A sale this BFF has no record of (Redis lost
 * it, older than SALE_RECORD_DAYS) is found in the upstream's record: the
 * branch it carried names its store, or nothing is done (sale_owner_unknown).
 */
async function requireOwnSale(deps: RefundDeps, ctx: CallContext, paymentId: string, customerId: string): Promise<void> {
  if (storePolicy(ctx.identity.store, deps.settings).returnsAtAnyBranch) return;
  const owner = (await saleOrItsOwner(deps, ctx, paymentId, customerId)).storeId;
  if (owner !== ctx.identity.store.id) throw saleNotFound(paymentId);
}

/** The refund write itself: sent now, or queued behind the customer's queued writes; its outcome settles the claims. */
function sendRefund(
  deps: RefundDeps,
  ctx: CallContext,
  req: RefundRequest,
  claims: Claim[],
  id: IdClaim,
  action: 'refund' | 'sale_void' = 'refund',
): Promise<RefundView | QueuedRefund> {
  const summary = { refundId: req.refundTransactionId, paymentId: req.reverseTransactionId, customerId: req.customerId };
  return claimActSettle<RefundAnswer | QueuedRefund>({
    what: `Refund ${req.refundTransactionId}`,
    claims: claims as Claim<RefundAnswer | QueuedRefund>[],
    logger: deps.logger,
    send: () => sendOrQueue(deps, ctx, { kind: 'refund', request: req }, summary, (call) => deps.loyalty.refund(req, call)),
    onRecord: (duplicate) => id.onRecord(duplicate),
    explain: (refusal) =>
      isProblem(refusal, 'duplicate_transaction')
        ? problem(
            'refund_id_taken',
            `The loyalty service already has another refund under id ${req.refundTransactionId}; nothing was refunded: use a new refund id`,
            { loyaltyCode: refusal.loyaltyCode },
          )
        : refusal,
    audit: auditNote(deps, ctx, action, refundSubject(req)),
  }).then((answer) => (answer && 'queued' in answer ? answer : refundView(req, answer)));
}

/**
 * Full, by amount, or by lines: the upstream's refund rules decide which.
 * The refund id is claimed for this store first (a refusal frees it). Queued
 * when the upstream is out of reach (its refundId makes a second delivery a
 * duplicate, not a second refund), and behind the customer's queued writes,
 * so it never reaches the upstream before its payment.
 */
export async function refund(deps: RefundDeps, ctx: CallContext, body: RefundBody): Promise<RefundView | QueuedRefund> {
  await requireOwnSale(deps, ctx, body.paymentId, body.customerId);
  const req = toUpstreamRefund(ctx, body, deps.clock());
  const id = saleIdClaim(
    deps,
    ctx,
    { kind: 'refund', id: body.refundId, customerId: body.customerId, paymentId: body.paymentId },
    // As sent: the lines as the upstream gets them, so a queued copy digests the same.
    { kind: 'refund', amount: req.refundAmount ?? null, lines: refundLinesDigest(req.lineItems) },
  );
  return sendRefund(deps, ctx, req, [id], id);
}

/** The refund id of a sale's void; tills cannot use it (the refund id schema refuses the prefix). */
export const voidRefundId = (paymentId: string) => `void-${paymentId}`;

/**
 * Voiding a completed sale is its full refund. The sale is claimed for the
 * void (`voiding`) and its refund id derived from the payment's, so a retry
 * cannot refund twice and a second void is refused from the sale's record.
 */
export async function voidSale(deps: RefundDeps, ctx: CallContext, paymentId: string, body: SaleVoidBody): Promise<RefundView | QueuedRefund> {
  const refundId = body.refundId ?? voidRefundId(paymentId);
  const { returnsAtAnyBranch } = storePolicy(ctx.identity.store, deps.settings);
  const known = returnsAtAnyBranch ? await deps.sales.get('payment', paymentId) : await saleOrItsOwner(deps, ctx, paymentId, body.customerId);
  if (!returnsAtAnyBranch && known && known.storeId !== ctx.identity.store.id) throw saleNotFound(paymentId);
  // Not known as recorded yet (a batch's order, a queued sale): the upstream's record says whether it is, before the sale is claimed.
  if (known && stateOf(known) === 'recording' && known.totalPaid !== undefined) {
    await settleSaleId(deps, known).catch((err: unknown) => {
      if (!(err instanceof NotOnRecordYet)) throw err;
    });
  }
  const req = toUpstreamRefund(
    ctx,
    { customerId: body.customerId, refundId, paymentId, transactionTime: body.transactionTime, email: body.email, mobile: body.mobile },
    deps.clock(),
  );
  // A void is the whole sale's refund: its refund id's claim carries the whole-refund marker.
  const id = saleIdClaim(deps, ctx, { kind: 'refund', id: refundId, customerId: body.customerId, paymentId }, { kind: 'refund', amount: null, lines: null });
  return sendRefund(deps, ctx, req, [saleForVoid(deps, ctx, paymentId, refundId, returnsAtAnyBranch), id], id, 'sale_void');
}

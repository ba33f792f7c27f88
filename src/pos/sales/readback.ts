import { buildReceipt, readAfterSale, type Receipt } from './receipt';
import { isProblem, problem } from '../../platform/problem';
import type { OrderTransactionsAnswer } from '../../upstream/coupon-answers';
import type { CallContext, SharedDeps } from '../context';
import type { SaleEntry } from './records';
import { saleOrItsOwner, type SaleOwnerDeps } from './owner';

type ReadbackDeps = Pick<SharedDeps, 'loyalty'> & Omit<SaleOwnerDeps, 'loyalty'>;

/**
 * This store's sale or refund; another store's (or one this BFF never saw) is
 * 404, as for redemptions. A sale this BFF has no record of, read with its
 * customer, is this store's when the upstream's record shows its branch
 * (sales/owner.ts, which records it again).
 */
async function entryOf(deps: ReadbackDeps, ctx: CallContext, kind: SaleEntry['kind'], id: string, customerId?: string): Promise<SaleEntry> {
  const notFound = () => problem(`${kind}_not_found`, `${kind === 'payment' ? 'Payment' : 'Refund'} ${id} was not found`);
  let e = await deps.sales.get(kind, id);
  if (!e && kind === 'payment' && customerId !== undefined) {
    e = await saleOrItsOwner(deps, ctx, id, customerId).catch((err: unknown) => {
      throw isProblem(err, 'original_transaction_not_found') ? notFound() : err;
    });
  }
  if (!e || e.storeId !== ctx.identity.store.id) throw notFound();
  return e;
}

async function transactionsOf(deps: ReadbackDeps, ctx: CallContext, e: SaleEntry): Promise<OrderTransactionsAnswer['transactions']> {
  try {
    return (await deps.loyalty.orderTransactions(e.paymentId, { requestId: ctx.requestId })).transactions;
  } catch (err) {
    // Known here but not (yet) upstream: e.g. still queued in the outbox.
    if (isProblem(err, 'transaction_not_found', 'upstream_not_found')) {
      throw problem(
        `${e.kind}_not_found`,
        `${e.kind === 'payment' ? 'Payment' : 'Refund'} ${e.id} is not recorded by the loyalty service (yet); see GET /outbox if it was queued`,
      );
    }
    throw err;
  }
}

/** The upstream's date-time (read as UTC by the client), as the till gets every date-time. */
const iso = (ms: number | undefined) => (ms !== undefined ? new Date(ms).toISOString() : null);

const sum = (list: OrderTransactionsAnswer['transactions'], types: string[], id?: string) =>
  list.filter((t) => types.includes(t.transactionType) && (id === undefined || t.transactionId === id)).reduce((s, t) => s + (t.equivalentPoints ?? 0), 0);

/** What a sale did upstream, for a till that lost the answer: points earned and redeemed, and each refund since. */
export async function readPayment(deps: ReadbackDeps, ctx: CallContext, paymentId: string, customerId?: string) {
  const e = await entryOf(deps, ctx, 'payment', paymentId, customerId);
  const list = await transactionsOf(deps, ctx, e);
  const refundIds = [
    ...new Set(
      list.filter((t) => (t.transactionType === 'Refund' || t.transactionType === 'PartialRefund') && t.transactionId).map((t) => t.transactionId as string),
    ),
  ];
  return {
    paymentId,
    customerId: e.customerId,
    amountPaid: list.find((t) => t.transactionType === 'PaymentReward' || t.transactionType === 'Payment')?.amount ?? null,
    pointsEarned: sum(list, ['PaymentReward']),
    pointsRedeemed: sum(list, ['Redemption']),
    refunds: refundIds.map((refundId) => ({
      refundId,
      amount: list
        .filter((t) => (t.transactionType === 'Refund' || t.transactionType === 'PartialRefund') && t.transactionId === refundId)
        .reduce((s, t) => s + (t.amount ?? 0), 0),
      pointsTakenBack: sum(list, ['Refund', 'PartialRefund'], refundId),
      pointsGivenBack: sum(list, ['Cancel'], refundId),
    })),
    transactions: list.map((t) => ({
      type: t.transactionType,
      id: t.transactionId ?? null,
      amount: t.amount ?? null,
      points: t.equivalentPoints ?? null,
      at: iso(t.transactionDate),
    })),
  };
}

export async function readRefund(deps: ReadbackDeps, ctx: CallContext, refundId: string) {
  const e = await entryOf(deps, ctx, 'refund', refundId);
  const list = (await transactionsOf(deps, ctx, e)).filter((t) => t.transactionId === refundId);
  const main = list.find((t) => t.transactionType === 'Refund' || t.transactionType === 'PartialRefund');
  if (!main) throw problem('refund_not_found', `Refund ${refundId} is not recorded by the loyalty service (yet); see GET /outbox if it was queued`);
  return {
    refundId,
    paymentId: e.paymentId,
    customerId: e.customerId,
    amount: main.amount ?? 0,
    pointsTakenBack: sum(list, ['Refund', 'PartialRefund']),
    pointsGivenBack: sum(list, ['Cancel']),
    at: iso(main.transactionDate),
  };
}

/**
 * GET /payments/{paymentId}/receipt: the receipt block of a sale answered
 * without it (its reads did not fit in the time the till waits), from what the
 * sale did upstream and the customer's balance and tier now.
 */
export async function readReceipt(deps: ReadbackDeps & Pick<SharedDeps, 'logger'>, ctx: CallContext, paymentId: string): Promise<Receipt> {
  const sale = await readPayment(deps, ctx, paymentId);
  return buildReceipt(deps, ctx, readAfterSale(deps, ctx, sale.customerId), {
    pointsEarned: sale.pointsEarned,
    pointsRedeemed: sale.pointsRedeemed,
    pointsGivenBack: 0,
    pointsTakenBack: 0,
  });
}

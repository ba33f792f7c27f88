import type { AccountTransaction, TransactionsQuery, TransactionsResponse } from '../../contract';
import type { SandboxContext } from '../context';
import type { RefundRecord, TransactionRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { numericId } from './orders';

const DEFAULT_LIMIT = 50;

/** A payment or order as its reward (`+`), a redemption as the points it spent (`-`). */
function payment(ctx: SandboxContext, tx: TransactionRecord): AccountTransaction {
  const redeem = tx.kind === 'redeem';
  return {
    transactionId: tx.id,
    gameballTransactionId: String(numericId(`${redeem ? 'rdm' : 'pay'}:${tx.id}`)),
    type: redeem ? 'Redemption' : 'PaymentReward',
    direction: redeem ? '-' : '+',
    customerId: tx.customerId,
    points: redeem ? tx.redeemedPoints : tx.earnedPoints,
    amount: tx.totalPaid,
    transactionTime: ctx.clock.iso(tx.at),
    status: tx.pendingUntil !== undefined && tx.pendingUntil > ctx.clock.now() ? 'Pending' : 'Active',
    ...(tx.merchantName !== undefined ? { merchantName: tx.merchantName } : {}),
    ...(tx.branchName !== undefined ? { branchName: tx.branchName } : {}),
  };
}

function refund(ctx: SandboxContext, r: RefundRecord): AccountTransaction {
  return {
    transactionId: r.refundTransactionId,
    gameballTransactionId: String(numericId(`rfd:${r.refundTransactionId}`)),
    type: 'Refund',
    direction: '-',
    customerId: r.customerId,
    points: r.takenBackPoints,
    amount: r.amount,
    transactionTime: ctx.clock.iso(r.at),
    status: 'Active',
    ...(r.merchantName !== undefined ? { merchantName: r.merchantName } : {}),
    ...(r.branchName !== undefined ? { branchName: r.branchName } : {}),
  };
}

/**
 * `GET /transactions`: the account's payments, orders, redemptions and refunds,
 * oldest first, with the merchant and branch names each carried. `customerId`
 * filters by profile (any of its channel ids); an unknown customer has none.
 * `startAfter` names the last page's last `gameballTransactionId`. The
 * published interface names no sort order (its `direction` is + or - points),
 * so oldest first is this sandbox's choice.
 */
export function listTransactions(ctx: SandboxContext, account: AccountEntry, q: TransactionsQuery): TransactionsResponse {
  const { ledger } = account;
  let all: AccountTransaction[];
  if (q.customerId !== undefined) {
    const c = ledger.customer(q.customerId);
    const txs = (c?.transactions ?? []).map((id) => ledger.transactions.get(id)).filter((t): t is TransactionRecord => t?.customerId === c?.id);
    const rfs = (c?.refunds ?? []).map((id) => ledger.refunds.get(id)).filter((r): r is RefundRecord => r?.customerId === c?.id);
    all = [...txs.map((t) => payment(ctx, t)), ...rfs.map((r) => refund(ctx, r))];
  } else {
    all = [...[...ledger.transactions.values()].map((t) => payment(ctx, t)), ...[...ledger.refunds.values()].map((r) => refund(ctx, r))];
  }
  all.sort((a, b) => a.transactionTime.localeCompare(b.transactionTime));
  const listed = all.filter((t) => (q.direction === undefined || t.direction === q.direction) && (q.status === undefined || t.status === q.status));
  // A `startAfter` naming no listed transaction starts nowhere: an empty page, never the first one again.
  const after = q.startAfter ? listed.findIndex((t) => t.gameballTransactionId === String(q.startAfter)) + 1 : 0;
  if (q.startAfter && after === 0) return { transactions: [], count: 0, hasMore: false };
  const page = listed.slice(after, after + (q.limit ?? DEFAULT_LIMIT));
  return { transactions: page, count: page.length, hasMore: after + page.length < listed.length };
}

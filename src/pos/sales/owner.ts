import { isAppError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import type { TransactionsAnswer } from '../../upstream/coupon-answers';
import type { LoyaltyClient } from '../../upstream';
import type { CallContext, SharedDeps } from '../context';
import type { Store } from '../terminals/types';
import { stateOf, type SaleEntry, type SaleRecords } from './records';

/** What finding a sale's store uses: the sale records, the upstream's transactions list and the terminals file's stores. */
export type SaleOwnerDeps = Pick<SharedDeps, 'logger'> & {
  loyalty: Pick<LoyaltyClient, 'transactions'>;
  sales: SaleRecords;
  stores: () => readonly Store[];
};

/** Pages of a customer's transactions read before the sale is taken as not on record (200 each). */
const MAX_PAGES = 10;
const PAGE = 200;

type Listed = TransactionsAnswer['transactions'][number];

export const saleOwnerUnknown = (paymentId: string, why: string) =>
  problem('sale_owner_unknown', `Which store rang up sale ${paymentId} is not known: ${why}; nothing was done`);

/** A failed read proves nothing about the owner: transient, retried after the upstream's own wait (or a short one). */
const saleOwnerUnreadable = (paymentId: string, err: { code: string; retryAfterSeconds?: number }) =>
  problem(
    'sale_owner_unreadable',
    `Which store rang up sale ${paymentId} could not be read from the loyalty service (${err.code}); nothing was done, try again later`,
    { retryAfterSeconds: err.retryAfterSeconds ?? 5 },
  );

/**
 * The sale itself in the customer's list (a payment or batch order: an
 * accumulation under its id, not a refund of it); `absent` when every page was
 * read without it, `unread` past MAX_PAGES.
 */
async function findSale(
  deps: SaleOwnerDeps,
  ctx: Pick<CallContext, 'requestId'>,
  customerId: string,
  paymentId: string,
): Promise<Listed | 'absent' | 'unread'> {
  let startAfter: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const got = await deps.loyalty.transactions({ customerId, startAfter, limit: PAGE }, { requestId: ctx.requestId }).catch((err: unknown) => {
      // A read: nothing was done. A failure that may pass is said to pass (503), a refusal is final.
      if (!isAppError(err)) throw err;
      if (err.status >= 500 || err.status === 429) throw saleOwnerUnreadable(paymentId, err);
      throw saleOwnerUnknown(paymentId, `the loyalty service refused to list the customer's transactions (${err.code})`);
    });
    const found = got.transactions.find((t) => t.transactionId === paymentId && t.type !== 'Refund' && t.type !== 'Cancel');
    if (found) return found;
    const last = got.transactions.at(-1)?.gameballTransactionId;
    if (!got.hasMore || last === undefined) return 'absent';
    startAfter = last;
  }
  return 'unread';
}

/**
 * The one store whose branch (and merchant, when shown) the sale carried;
 * several or none: not known. The branch is logged, never told the till: the
 * asking till may be another store's.
 */
function storeOf(deps: SaleOwnerDeps, t: Listed, paymentId: string): Store {
  if (t.branchName === undefined) throw saleOwnerUnknown(paymentId, "the loyalty service's record of it names no branch");
  const matching = deps.stores().filter((s) => s.branch.name === t.branchName && (t.merchantName === undefined || s.merchant.name === t.merchantName));
  if (matching.length === 1) return matching[0];
  deps.logger.warn(
    { paymentId, branch: t.branchName, merchant: t.merchantName, stores: matching.map((s) => s.id) },
    'sale owner unknown: its branch matches no store or several',
  );
  throw saleOwnerUnknown(paymentId, `its branch matches ${matching.length === 0 ? 'no store of this BFF' : 'several stores'}`);
}

/**
 * The BFF's record of a sale, or, when it has none (Redis lost it, or it was
 * never claimed again), the record rebuilt from the upstream's: the merchant
 * and branch the payment carried name its store, and the sale is recorded
 * here for that store (`recorded`) so later calls need not ask again. Throws
 * `sale_owner_unknown` when that cannot tell one store, `sale_owner_unreadable`
 * when the upstream could not be read, and
 * `original_transaction_not_found` when the upstream has no such sale.
 */
export async function saleOrItsOwner(deps: SaleOwnerDeps, ctx: Pick<CallContext, 'requestId'>, paymentId: string, customerId: string): Promise<SaleEntry> {
  const known = await deps.sales.get('payment', paymentId);
  if (known) return known;
  const listed = await findSale(deps, ctx, customerId, paymentId);
  // Not on the upstream's record at all: nothing to refund there either (as the upstream itself answers).
  if (listed === 'absent') throw problem('original_transaction_not_found', `The loyalty service has no sale ${paymentId} of this customer; nothing was done`);
  if (listed === 'unread') throw saleOwnerUnknown(paymentId, `it is not among the ${MAX_PAGES * PAGE} transactions of this customer read`);
  const owner = storeOf(deps, listed, paymentId);
  const entry: SaleEntry = {
    kind: 'payment',
    id: paymentId,
    storeId: owner.id,
    customerId,
    paymentId,
    rebuilt: true,
    ...(listed.amount !== undefined ? { totalPaid: listed.amount } : {}),
  };
  const got = await deps.sales.claim(entry);
  // Claimed meanwhile by another request: its entry decides.
  if (!got.ok) return got.entry;
  const r = await deps.sales.apply('payment', paymentId, 'recorded', {
    when: (cur) => (cur.storeId === owner.id && stateOf(cur) === 'recording') || 'changed',
  });
  deps.logger.warn(
    { paymentId, storeId: owner.id, branch: listed.branchName },
    "sale re-recorded from the loyalty service's record: this BFF had no record of it",
  );
  return r.ok ? r.entry : ((await deps.sales.get('payment', paymentId)) ?? got.entry);
}

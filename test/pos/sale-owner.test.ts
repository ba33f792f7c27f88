import { silentLogger } from '../../src/platform/logger';
import { isAppError } from '../../src/platform/errors';
import { TransactionsAnswer } from '../../src/upstream/coupon-answers';
import { saleOrItsOwner, type SaleOwnerDeps } from '../../src/pos/sales/owner';
import { createSaleRecords } from '../../src/pos/sales/records';
import type { Store } from '../../src/pos/terminals/types';

/*
 * Which store a sale the BFF has no record of belongs to, from the upstream's
 * list of the customer's transactions (a fake of that one read, its pages
 * read through the client's own answer reader): one store whose branch (and
 * merchant) name the sale carried, or nothing is done.
 */

const store = (id: string, merchant: string, branch: string): Store => ({
  id,
  merchant: { uniqueId: `m-${merchant}`, name: merchant },
  branch: { uniqueId: `b-${id}`, name: branch },
});
const STORES = [
  store('s-1', 'Retail', 'Downtown'),
  store('s-2', 'Retail', 'Airport'),
  store('s-3', 'Outlet', 'Airport'),
  store('s-4', 'Retail', 'Mall'),
  store('s-5', 'Retail', 'Mall'),
];
const tx = (id: string, extra: Record<string, unknown> = {}) => ({
  transactionId: id,
  gameballTransactionId: `g-${id}`,
  type: 'PaymentReward',
  amount: 40,
  ...extra,
});

function setUp(pages: Record<string, unknown>[][]) {
  const asked: (string | undefined)[] = [];
  const limits: (number | undefined)[] = [];
  const deps: SaleOwnerDeps = {
    logger: silentLogger,
    sales: createSaleRecords({ prefix: 'unused:', ttlDays: 1 }),
    stores: () => STORES,
    loyalty: {
      transactions: async (q) => {
        asked.push(q.startAfter);
        limits.push(q.limit);
        const i = q.startAfter === undefined ? 0 : pages.findIndex((p) => p.at(-1)?.gameballTransactionId === q.startAfter) + 1;
        return TransactionsAnswer.parse({ transactions: pages[i] ?? [], hasMore: i < pages.length - 1 });
      },
    },
  };
  return { deps, asked, limits };
}

const owner = (deps: SaleOwnerDeps, paymentId: string) => saleOrItsOwner(deps, { requestId: 'r-1' }, paymentId, 'c-1');
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'done',
    (e: unknown) => (isAppError(e) ? e.code : String(e)),
  );

it('finds the one store of the branch and merchant the sale carried, on a later page, and records the sale for it', async () => {
  const { deps, asked } = setUp([
    [tx('other-1', { branchName: 'Mall' })],
    [tx('p-1', { type: 'Refund' }), tx('p-1', { branchName: 'Airport', merchantName: 'Outlet' })],
  ]);
  expect(await owner(deps, 'p-1')).toMatchObject({ storeId: 's-3', state: 'recorded', customerId: 'c-1', totalPaid: 40, rebuilt: true });
  expect(asked).toEqual([undefined, 'g-other-1']);
  // Recorded: the next call does not ask.
  expect(await owner(deps, 'p-1')).toMatchObject({ storeId: 's-3' });
  expect(asked).toHaveLength(2);
});

it('refuses a branch of several stores, of none, no branch, and a sale not on record', async () => {
  const { deps } = setUp([
    [
      tx('p-mall', { branchName: 'Mall', merchantName: 'Retail' }),
      tx('p-airport', { branchName: 'Airport' }),
      tx('p-nowhere', { branchName: 'Harbour' }),
      tx('p-bare'),
      tx('p-refund-only', { type: 'Refund', branchName: 'Downtown' }),
    ],
  ]);
  for (const id of ['p-mall', 'p-airport', 'p-nowhere', 'p-bare']) expect([id, await refusal(owner(deps, id))]).toEqual([id, 'sale_owner_unknown']);
  expect(await refusal(owner(deps, 'p-refund-only'))).toBe('original_transaction_not_found');
  expect(await refusal(owner(deps, 'p-never'))).toBe('original_transaction_not_found');
  expect(await deps.sales.get('payment', 'p-mall')).toBeNull();
});

it('a sale past the pages it reads is not known, and a failed read is not known either', async () => {
  const many = Array.from({ length: 12 }, (_, i) => [tx(`x-${i}`, { branchName: 'Downtown' })]);
  const { deps, asked, limits } = setUp(many);
  expect(await refusal(owner(deps, 'p-late'))).toBe('sale_owner_unknown');
  // The README's limit: ten pages of 200, the published maximum per page.
  expect(asked).toHaveLength(10);
  expect(new Set(limits)).toEqual(new Set([200]));
  const failing = setUp([]).deps;
  failing.loyalty = {
    transactions: async () => {
      const { unavailable } = await import('../../src/upstream/errors');
      throw unavailable(new Error('down'));
    },
  };
  // A read that may pass is said to pass (503, Retry-After); a refusal of the read is final.
  const unreadable = await owner(failing, 'p-1').catch((e: unknown) => e);
  expect(isAppError(unreadable) && [unreadable.code, unreadable.status, unreadable.retryAfterSeconds]).toEqual(['sale_owner_unreadable', 503, 5]);
  failing.loyalty = {
    transactions: async () => {
      const { UnprocessableError } = await import('../../src/platform/errors');
      throw new UnprocessableError('upstream_rejected', 'bad customer id');
    },
  };
  expect(await refusal(owner(failing, 'p-1'))).toBe('sale_owner_unknown');
});

it("never tells the till the branch the sale carried (the asking till may be another store's)", async () => {
  const { deps } = setUp([[tx('p-mall', { branchName: 'Mall', merchantName: 'Retail' }), tx('p-far', { branchName: 'Harbour' })]]);
  for (const id of ['p-mall', 'p-far']) {
    const err = await owner(deps, id).catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('sale_owner_unknown');
    expect((err as Error).message).not.toMatch(/Mall|Harbour/);
  }
});

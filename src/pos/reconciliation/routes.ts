import { routesGiven } from '../http/route';
import { reconciliationCsv, reconciliationPrintout } from './format';
import { reconcileOwnStore } from './operations';
import { ReconciliationQuery, ReconciliationReportSchema } from './schemas';
import { totalsOf } from './engine';
import type { ReconciliationReport, ReconciliationRow } from './types';

import type { RunningStores } from './index';

const route = routesGiven<RunningStores>();

const at = Date.UTC(2026, 10, 23, 16, 2);
const rows: ReconciliationRow[] = [
  {
    kind: 'sale',
    id: 'sale-1001',
    customerId: 'alice',
    terminalIds: ['till-1'],
    cashierIds: ['cashier-017'],
    status: 'matched',
    flags: [],
    note: 'paid 130',
    bff: { paid: 130, earned: 260, redeemed: 200 },
    upstream: { paid: 130, earned: 260, redeemed: 200 },
    entries: ['1795521720000-0'],
    at: at - 3_600_000,
  },
  {
    kind: 'sale',
    id: 'sale-1002',
    customerId: 'bob',
    terminalIds: ['till-2'],
    cashierIds: ['cashier-021'],
    status: 'matched',
    flags: ['unknown_then_settled'],
    note: 'paid 60; outcome unknown at 16:02; settled: recorded (sale:payment:sale-1002)',
    bff: { paid: 60, earned: null, redeemed: 0 },
    upstream: { paid: 60, earned: 60, redeemed: 0 },
    entries: ['1795525320000-0', '1795525322000-0'],
    at,
  },
];
const report: ReconciliationReport = {
  storeId: 'store-001',
  window: { from: '2026-11-23T00:00:00.000Z', to: '2026-11-23T23:59:59.999Z', date: '2026-11-23', timeZone: 'UTC' },
  generatedAt: '2026-11-24T06:00:00.000Z',
  actions: { payment: 2 },
  settledLater: 1,
  rows,
  anomalies: [{ kind: 'unknown_then_settled', row: 'sale', id: 'sale-1002', note: rows[1].note }],
  totals: totalsOf(rows),
  reads: { orderTransactions: 2, holdLookup: 0 },
  redisLosses: [],
  signals: [],
};
const example = { ...report, printout: reconciliationPrintout(report) };

/** The store's end-of-day reconciliation, for its managers. */
export const RECONCILIATION_ROUTES = [
  route({
    method: 'get',
    path: '/reconciliation',
    operationId: 'getReconciliation',
    tag: 'Store reports',
    roles: ['manager'],
    summary: "This store's day against the loyalty service's own records (manager)",
    description:
      "Every sale, refund, redemption and coupon lock this store's tills handled that day (the audit trail), compared with the loyalty " +
      "service's record (order transactions, hold lookups) and this BFF's (the outbox, coupon locks): matched, missing upstream, upstream " +
      'only (done at another branch or outside this BFF), outcome unknown and how it settled, holds or locks left open, writes queued or dead ' +
      'in the outbox; totals of points earned, redeemed, given back and taken back and of money paid and refunded, on both sides. ' +
      'It only reads, at background priority within the rate limit (one order-transactions read per sale, a hold lookup where no sale ' +
      'shows the hold used). Default: yesterday in STORE_TIME_ZONE. `?format=csv` or `?format=print` (the 40-column printout).',
    query: ReconciliationQuery,
    success: { status: 200, description: 'The report, with its printout', schema: ReconciliationReportSchema, example },
    formats: {
      csv: { contentType: 'text/csv; charset=utf-8', write: (v) => reconciliationCsv(v), example: reconciliationCsv(report) },
      print: { contentType: 'text/plain; charset=utf-8', write: (v) => `${v.printout.join('\n')}\n`, example: `${example.printout.join('\n')}\n` },
    },
    callsLoyalty: true,
    codes: [],
    handle: (deps, ctx, { query }) => reconcileOwnStore(deps, ctx, query),
  }),
];

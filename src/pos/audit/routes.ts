import { routesGiven } from '../http/route';
import { auditCsv } from './format';
import { readStoreAudit, readStoreSignals } from './operations';
import { AuditPageSchema, AuditQuery, SignalsPageSchema, SignalsQuery } from './schemas';

import type { SignalReadDeps } from './operations';

const route = routesGiven<SignalReadDeps>();

const entry = {
  id: '1795603643120-0',
  at: '2026-11-24T09:14:03.120Z',
  storeId: 'store-001',
  terminalId: 'till-1',
  cashierId: 'cashier-017',
  shiftId: 'shift-2026-11-24-am',
  requestId: 'till-1-000123',
  action: 'payment' as const,
  outcome: 'applied' as const,
  customerId: 'alice',
  paymentId: 'sale-1001',
  redemptionId: 'rdm_Q2x9fT0aLm4pZr8s',
  amountPaid: 130,
  pointsEarned: 260,
  pointsRedeemed: 200,
};
const page = { storeId: 'store-001', from: '2026-11-24T00:00:00.000Z', to: '2026-11-24T23:59:59.999Z', entries: [entry], next: null };

const signals = {
  storeId: 'store-001',
  date: '2026-11-24',
  from: '2026-11-24T00:00:00.000Z',
  to: '2026-11-24T23:59:59.999Z',
  signals: [
    {
      signal: 'customer_share' as const,
      from: '2026-11-24T08:02:11.000Z',
      to: '2026-11-24T13:40:05.000Z',
      customerId: 'alice',
      shiftId: 'shift-2026-11-24-am',
      count: 9,
      threshold: 30,
      of: 21,
      note: 'Customer alice on 9 of 21 sales (42.9 %) of shift shift-2026-11-24-am (threshold 30 % of at least 10)',
      parts: [
        {
          storeId: 'store-001',
          cashierIds: ['cashier-017'],
          terminalIds: ['till-1'],
          paymentIds: ['sale-1001', 'sale-1007'],
          refundIds: [],
          redemptionIds: [],
        },
      ],
    },
  ],
};

/** The store's audit trail, for its managers. */
export const AUDIT_ROUTES = [
  route({
    method: 'get',
    path: '/audit',
    operationId: 'getAuditTrail',
    tag: 'Store reports',
    roles: ['manager'],
    summary: "Who did what at this store's tills: the audit trail (manager)",
    description:
      'Every cashier action that changed money or points (redemption start, OTP step, void, payment, refund, sale void, coupon lock and ' +
      'release, customer sign-up and deletion, events, batch uploads), with its time, terminal, cashier and shift (X-Cashier-Id, X-Shift-Id), ' +
      'ids, points, money and outcome: `applied`, `refused` (with its code), `unknown` (the till was told to send it again), `queued` ' +
      "(outbox), and `settled` (how an unknown outcome was settled from the loyalty service's record). Only this store's entries, oldest " +
      'first; filter by terminal, cashier, customer and action; `?format=csv` for a spreadsheet. "Which cashier redeemed alice\'s points last ' +
      'Tuesday": `?date=2026-11-17&customerId=alice&action=redemption_start,otp_step,payment`. No secret, token, hash, OTP or contact detail is kept.',
    query: AuditQuery,
    success: { status: 200, description: 'A page of entries, oldest first', schema: AuditPageSchema, example: page },
    formats: { csv: { contentType: 'text/csv; charset=utf-8', write: (v) => auditCsv(v.entries), example: auditCsv([entry]) } },
    callsLoyalty: false,
    codes: [],
    handle: (deps, ctx, { query }) => readStoreAudit(deps, ctx, query),
  }),
  route({
    method: 'get',
    path: '/audit/signals',
    operationId: 'getAbuseSignals',
    tag: 'Store reports',
    roles: ['manager'],
    summary: "Patterns to look into at this store's tills: the abuse signals of a day (manager)",
    description:
      "Computed from the audit trail for the store's day (default today): one customer on a large share of a shift's sales (customer_share), a " +
      "cashier refunding or voiding several of their own sales that earned points soon after each (earn_then_refund), one customer's " +
      'redemptions at several stores within minutes (multi_store_redemptions), a cashier starting redemptions from typed customer ids with no QR code and no OTP ' +
      '(typed_customer_id); thresholds are the SIGNAL_* settings. A store sees the signals about its own cashiers and sales, and of a pattern ' +
      'across stores only its own part (with the number of stores). A signal is a pattern to look into, not a verdict; a clean day has none. ' +
      "The day's reconciliation lists the same.",
    query: SignalsQuery,
    success: { status: 200, description: 'The signals this store has a part in', schema: SignalsPageSchema, example: signals },
    callsLoyalty: false,
    codes: [],
    handle: (deps, ctx, { query }) => readStoreSignals(deps, ctx, query),
  }),
];

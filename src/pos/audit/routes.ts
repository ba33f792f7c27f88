import { routesGiven } from '../http/route';
import { auditCsv } from './format';
import { readStoreAudit } from './operations';
import { AuditPageSchema, AuditQuery } from './schemas';

import type { AuditReadDeps } from './operations';

const route = routesGiven<AuditReadDeps>();

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
];

import { STATUS_CODES } from 'node:http';
import { PROBLEM_CATALOGUE, type ProblemCode } from '../../platform/problem-catalogue';

/**
 * Examples shown in the cashier API document. They follow one walkthrough:
 * customer `alice` with 1,000 points redeems 200 of them on sale `sale-1001`.
 */
export const REDEMPTION_ID = 'rdm_Zk3vQ9bT2mXc8LpA';
export const OUTBOX_ID = 'obx_Qm7tR2vX9kLp3NcA';
const NOW = '2025-05-01T10:00:00.000Z';
const HOLD_END = '2025-05-01T10:10:00.000Z';

export const examples = {
  startByPoints: { customerId: 'alice', hash: '482913', points: 200 },
  startByQr: { qr: 'alice:482913', amount: 20 },
  startWithOtp: { customerId: 'alice', hash: '482913', points: 200, otp: '604118' },
  submitOtp: { otp: '604118' },
  redemptionHeld: {
    id: REDEMPTION_ID,
    state: 'held',
    customerId: 'alice',
    ask: { kind: 'points', points: 200 },
    points: 200,
    amount: 20,
    expiresAt: HOLD_END,
    secondsLeft: 598,
    paymentId: null,
    createdAt: NOW,
    updatedAt: NOW,
  },
  redemptionOtpRequired: {
    id: REDEMPTION_ID,
    state: 'otp_required',
    customerId: 'alice',
    ask: { kind: 'points', points: 200 },
    points: null,
    amount: null,
    expiresAt: null,
    secondsLeft: 0,
    paymentId: null,
    createdAt: NOW,
    updatedAt: NOW,
  },
  /** The bundled sandbox's own customer (config/sandbox-accounts.json): what "Try it out" on /docs sends first. */
  plainSale: {
    customerId: 'demo-customer',
    paymentId: 'demo-sale-1',
    totalPaid: 25,
    lines: [{ serviceId: 'sku-123', name: 'Coffee beans 250 g', amount: 25, category: ['grocery'] }],
  },
  payment: {
    customerId: 'alice',
    paymentId: 'sale-1001',
    totalPaid: 80,
    totalAmount: 100,
    redemptionId: REDEMPTION_ID,
    lines: [{ serviceId: 'sku-123', name: 'Coffee beans 1 kg', amount: 100, category: ['grocery'] }],
  },
  paymentRecorded: {
    paymentId: 'sale-1001',
    customerId: 'alice',
    status: 'recorded',
    pointsEarned: 80,
    pointsRedeemed: 200,
    lines: [{ serviceId: 'sku-123', points: 80 }],
    redemption: { id: REDEMPTION_ID, state: 'redeemed' },
  },
  saleVoid: { customerId: 'alice' },
  refundFull: { customerId: 'alice', refundId: 'ref-2001', paymentId: 'sale-1001' },
  refundLines: { customerId: 'alice', refundId: 'ref-2002', paymentId: 'sale-1001', lines: [{ serviceId: 'sku-123', amount: 100, quantity: 1 }] },
  refunded: {
    refundId: 'ref-2001',
    paymentId: 'sale-1001',
    customerId: 'alice',
    status: 'refunded',
    amountRefunded: 80,
    pointsReversed: 80,
    loyaltyTransactionId: 'gb_7a1c2e',
  },
  customerSummary: {
    customerId: 'alice',
    currency: 'EUR',
    pointsName: 'Points',
    points: { available: 1000, pending: 0, total: 1000, held: 0, earnedAllTime: 1000 },
    value: { available: 100, pending: 0, total: 100 },
    tier: { current: 'Silver', next: 'Gold', progress: 1000, nextAt: 5000 },
    coupons: [{ code: 'WELCOME10', name: 'Welcome 10', value: 10, currency: 'EUR', expiresAt: '2025-12-31T23:59:59.000Z', usable: true }],
    unavailable: [],
  },
  customerHash: { customerId: 'alice', hash: '482913', qr: 'alice:482913' },
  customerDeleted: { customerId: 'alice', deleted: true },
  events: { customerId: 'alice', events: { store_visit: { storeFloor: 1, section: 'coffee' } } },
  eventsAccepted: { customerId: 'alice', accepted: ['store_visit'] },
  orders: { orders: [{ customerId: 'alice', orderId: 'offline-3001', orderDate: '2025-05-01T09:12:00.000Z', totalPaid: 42.5 }] },
  ordersAccepted: { jobId: 17, orders: 1 },
  orderStatus: { jobId: 17, status: 'completed', total: 1, processed: 1, succeeded: 1, failed: 0, failures: [] },
  queuedPayment: {
    queued: true,
    outboxId: OUTBOX_ID,
    state: 'queued',
    kind: 'payment',
    reason: 'upstream_unavailable',
    paymentId: 'sale-1002',
    customerId: 'alice',
  },
  queuedRefund: {
    queued: true,
    outboxId: OUTBOX_ID,
    state: 'queued',
    kind: 'refund',
    reason: 'upstream_timeout',
    refundId: 'ref-2001',
    paymentId: 'sale-1001',
    customerId: 'alice',
  },
  queuedEvents: {
    queued: true,
    outboxId: OUTBOX_ID,
    state: 'queued',
    kind: 'events',
    reason: 'upstream_circuit_open',
    customerId: 'alice',
    accepted: ['store_visit'],
  },
  queuedOrders: { queued: true, outboxId: OUTBOX_ID, state: 'queued', kind: 'batchOrders', reason: 'upstream_unavailable', orders: 1 },
  outboxEntry: {
    outboxId: OUTBOX_ID,
    kind: 'payment',
    state: 'delivered',
    reason: 'upstream_unavailable',
    attempts: 1,
    createdAt: NOW,
    updatedAt: '2025-05-01T10:02:00.000Z',
    deliveredAt: '2025-05-01T10:02:00.000Z',
    result: { pointsEarned: 50, pointsRedeemed: 0 },
    subject: { customerId: 'alice', paymentId: 'sale-1002', totalPaid: 50 },
    terminalId: 'store-001-cashier',
  },
  deadLetter: {
    outboxId: OUTBOX_ID,
    kind: 'refund',
    state: 'dead',
    reason: 'upstream_unavailable',
    attempts: 1,
    createdAt: NOW,
    updatedAt: '2025-05-01T10:02:00.000Z',
    deadAt: '2025-05-01T10:02:00.000Z',
    lastError: { code: 'original_transaction_not_found', message: 'The transaction to refund was not found', status: 404 },
    subject: { customerId: 'alice', refundId: 'ref-2009', paymentId: 'sale-0000' },
    terminalId: 'store-001-manager',
  },
} as const;

/** A problem+json body as the BFF writes it, with the catalogue's status for the code. */
export function problemExample(code: ProblemCode, detail: string, extra: Record<string, unknown> = {}) {
  const { status } = PROBLEM_CATALOGUE[code];
  return {
    type: `urn:pos-loyalty:problem:${code}`,
    title: STATUS_CODES[status],
    status,
    detail,
    code,
    requestId: '3f1c9a0e-5b1d-4a59-9d2e-0c7b8f6e2a41',
    errorId: '8d0f7c55-2b43-4d0e-a1f6-5e9b7c3d2a10',
    ...extra,
  };
}

/** Examples of the outbox routes, and the id the queued answers of other routes name. */
export const OUTBOX_ID = 'obx_Qm7tR2vX9kLp3NcA';
const NOW = '2025-05-01T10:00:00.000Z';

export const outboxExamples = {
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

import { OUTBOX_ID } from '../outbox/examples';

/** Examples of the order upload routes: one offline sale of customer `alice`. */
export const orderExamples = {
  orders: { orders: [{ customerId: 'alice', orderId: 'offline-3001', orderDate: '2025-05-01T09:12:00.000Z', totalPaid: 42.5 }] },
  ordersAccepted: { jobId: 17, orders: 1 },
  orderStatus: { jobId: 17, status: 'completed', total: 1, processed: 1, succeeded: 1, failed: 0, failures: [] },
  queuedOrders: { queued: true, outboxId: OUTBOX_ID, state: 'queued', kind: 'batchOrders', reason: 'upstream_unavailable', orders: 1 },
} as const;

import { OUTBOX_ID } from '../outbox/examples';
import { receiptExample } from '../sales/examples';

/** Examples of the refund routes: sale `sale-1001` refunded in full, and the sale void's answer. */

/** The refund answer before its receipt block and the coupons not returned. */
const refundResult = {
  refundId: 'ref-2001',
  paymentId: 'sale-1001',
  customerId: 'alice',
  status: 'refunded',
  amountRefunded: 80,
  pointsReversed: 80,
  loyaltyTransactionId: 'gb_7a1c2e',
};

export const refundExamples = {
  refundFull: { customerId: 'alice', refundId: 'ref-2001', paymentId: 'sale-1001' },
  refundLines: { customerId: 'alice', refundId: 'ref-2002', paymentId: 'sale-1001', lines: [{ serviceId: 'sku-123', amount: 100, quantity: 1 }] },
  refunded: {
    ...refundResult,
    couponsNotReturned: ['WELCOME10'],
    receipt: {
      ...receiptExample,
      pointsEarned: 0,
      pointsRedeemed: 0,
      pointsGivenBack: 200,
      pointsTakenBack: 80,
      balanceAfter: 1000,
      lines: [
        '------------ Loyalty Stars -------------',
        'Given back                    +200 Stars',
        'Taken back                     -80 Stars',
        'Coupon WELCOME10            not returned',
        'Balance                       1000 Stars',
        '----------------------------------------',
      ],
    },
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
  refundRead: {
    refundId: 'ref-2001',
    paymentId: 'sale-1001',
    customerId: 'alice',
    amount: 80,
    pointsTakenBack: 80,
    pointsGivenBack: 200,
    at: '2025-05-01T11:00:00.000Z',
  },
} as const;

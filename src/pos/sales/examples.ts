import { COUPON_LOCK_ID } from '../coupons/examples';
import { OUTBOX_ID } from '../outbox/examples';
import { REDEMPTION_ID } from '../redemptions/examples';

/**
 * Examples of the sale routes: customer `alice` pays sale `sale-1001` with 200
 * held points, and sale `sale-1002` with 200 points and WELCOME10 locked
 * (140 of 150 paid).
 */
const NOW = '2025-05-01T10:00:00.000Z';

export const receiptExample = {
  pointsEarned: 140,
  pointsRedeemed: 200,
  pointsGivenBack: 0,
  pointsTakenBack: 0,
  balanceAfter: 940,
  pendingPoints: 0,
  nextExpiring: null,
  tier: { current: 'Bronze', next: 'Silver', progress: 140, nextAt: 1000 },
  currency: 'EGP',
  pointsName: 'Stars',
  lines: [
    '------------ Loyalty Stars -------------',
    'Earned                        +140 Stars',
    'Redeemed                      -200 Stars',
    'Coupon WELCOME10              -10.00 EGP',
    'Balance                        940 Stars',
    'Tier Bronze                860 to Silver',
    '----------------------------------------',
  ],
};

export const saleExamples = {
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
  saleVoid: { customerId: 'alice' },
  queuedPayment: {
    queued: true,
    outboxId: OUTBOX_ID,
    state: 'queued',
    kind: 'payment',
    reason: 'upstream_unavailable',
    paymentId: 'sale-1002',
    customerId: 'alice',
  },
  pointsAndCoupon: {
    customerId: 'alice',
    paymentId: 'sale-1002',
    totalPaid: 140,
    totalAmount: 150,
    redemptionId: REDEMPTION_ID,
    couponLockId: COUPON_LOCK_ID,
    lines: [{ serviceId: 'sku-123', name: 'Coffee beans 1 kg', amount: 150, category: ['grocery'] }],
  },
  preview: { customerId: 'alice', totalPaid: 140, lines: [{ serviceId: 'sku-123', name: 'Coffee beans 1 kg', amount: 150, category: ['grocery'] }] },
  previewed: { customerId: 'alice', points: 140, lines: [{ serviceId: 'sku-123', points: 140 }] },
  paymentRead: {
    paymentId: 'sale-1001',
    customerId: 'alice',
    amountPaid: 80,
    pointsEarned: 80,
    pointsRedeemed: 200,
    refunds: [{ refundId: 'ref-2001', amount: 80, pointsTakenBack: 80, pointsGivenBack: 200 }],
    transactions: [
      { type: 'PaymentReward', id: 'sale-1001', amount: 80, points: 80, at: NOW },
      { type: 'Redemption', id: 'sale-1001', amount: 20, points: 200, at: NOW },
      { type: 'Refund', id: 'ref-2001', amount: 80, points: 80, at: '2025-05-01T11:00:00.000Z' },
      { type: 'Cancel', id: 'ref-2001', amount: 20, points: 200, at: '2025-05-01T11:00:00.000Z' },
    ],
  },
  paymentWithCoupon: {
    paymentId: 'sale-1002',
    customerId: 'alice',
    status: 'recorded',
    pointsEarned: 140,
    pointsRedeemed: 200,
    lines: [{ serviceId: 'sku-123', points: 140 }],
    redemption: { id: REDEMPTION_ID, state: 'redeemed' },
    couponLock: { id: COUPON_LOCK_ID, state: 'used', coupons: ['WELCOME10'] },
    receipt: receiptExample,
  },
} as const;

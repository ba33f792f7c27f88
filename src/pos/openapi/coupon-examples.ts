import { examples as ex, REDEMPTION_ID } from './examples';

/**
 * Examples of the coupon, earn-preview, redemption-option and read-back routes:
 * customer `alice` locks WELCOME10 on sale `sale-1002` and pays 140 of 150
 * with it and 200 points.
 */
export const COUPON_LOCK_ID = 'cpl_Hx82LmQa9TzR4vWc';
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

export const couponExamples = {
  check: { customerId: 'alice', codes: ['WELCOME10', 'SUMMER20'], basketTotal: 150 },
  checks: {
    customerId: 'alice',
    basketTotal: 150,
    coupons: [
      { code: 'WELCOME10', usable: true, reason: null, type: 'fixed', value: 10, worth: 10 },
      { code: 'SUMMER20', usable: false, reason: 'coupon_expired', type: null, value: null, worth: 0 },
    ],
  },
  lock: { customerId: 'alice', codes: ['WELCOME10'], basketTotal: 150 },
  locked: {
    id: COUPON_LOCK_ID,
    state: 'locked',
    customerId: 'alice',
    basketTotal: 150,
    coupons: [{ code: 'WELCOME10', type: 'fixed', value: 10, worth: 10 }],
    totalWorth: 10,
    expiresAt: '2025-05-01T10:09:30.000Z',
    secondsLeft: 569,
    paymentId: null,
    createdAt: NOW,
    updatedAt: NOW,
  },
  payment: {
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
  options: {
    redemptionFactor: 0.1,
    rules: [
      { ruleId: '2138', name: '10 EGP off', points: 100, value: 10, type: 'fixed_discount' },
      { ruleId: '2139', name: 'Free coffee', points: 250, value: 25, type: 'free_product' },
    ],
    fetchedAt: NOW,
  },
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
  refundRead: {
    refundId: 'ref-2001',
    paymentId: 'sale-1001',
    customerId: 'alice',
    amount: 80,
    pointsTakenBack: 80,
    pointsGivenBack: 200,
    at: '2025-05-01T11:00:00.000Z',
  },
};

/** The payment and refund answers, now with the receipt block. */
export const saleExamples = {
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
  refunded: {
    ...ex.refunded,
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
};

/** Examples of the coupon routes: customer `alice` locks WELCOME10 for sale `sale-1002`, a 150.00 basket. */
export const COUPON_LOCK_ID = 'cpl_Hx82LmQa9TzR4vWc';
const NOW = '2025-05-01T10:00:00.000Z';

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
} as const;

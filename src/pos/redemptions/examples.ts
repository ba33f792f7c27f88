/**
 * Examples of the redemption routes in the cashier API document: customer
 * `alice` with 1,000 points holds 200 of them for sale `sale-1001`.
 */
export const REDEMPTION_ID = 'rdm_Zk3vQ9bT2mXc8LpA';
const NOW = '2025-05-01T10:00:00.000Z';
const HOLD_END = '2025-05-01T10:10:00.000Z';

export const redemptionExamples = {
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
  options: {
    redemptionFactor: 0.1,
    rules: [
      { ruleId: '2138', name: '10 EGP off', points: 100, value: 10, type: 'fixed_discount' },
      { ruleId: '2139', name: 'Free coffee', points: 250, value: 25, type: 'free_product' },
    ],
    fetchedAt: NOW,
  },
} as const;

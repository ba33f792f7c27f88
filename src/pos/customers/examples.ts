/** Examples of the customer routes: customer `alice` with 1,000 points. */
export const customerExamples = {
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
  customerDeleted: {
    customerId: 'alice',
    deleted: true,
    erased: { redemptions: 3, couponLocks: 1, sales: 4, otpTickets: 0, outboxEntries: 0, keptAnswers: 5, tillAnswers: 0, auditEntries: 12 },
  },
} as const;

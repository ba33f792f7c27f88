/** Valid v4.0 answers and requests, one per operation. */
export const tier = { order: 1, name: 'Silver', minProgress: 0, icon: 'silver.png' };

export const bodies = {
  hold: { customerId: 'c-1', holdAmount: 10, holdEquivalentPoints: 100, holdReference: 'h-1' },
  batchOrders: { jobId: 42 },
  payment: { customerId: 'c-1', redeemedPoints: 100, rewardedPoints: 12, paymentDetails: [{ serviceId: 's1', decimalPoints: 12.5, points: 12, score: 0 }] },
  coupons: {
    coupons: [
      {
        name: 'Ten off',
        code: 'TEN',
        value: 10,
        type: 'Fixed Rate Discount',
        target: 'POS',
        currency: 'EUR',
        startDate: '2024-01-01T00:00:00Z',
        expiryDate: '2030-01-01T00:00:00Z',
        isExpired: false,
        isActive: true,
        usageLimit: 100,
        limitPerCustomer: 1,
        usedCount: 3,
        customerUsedCount: 0,
        isAvailableToUse: true,
        iconPath: 'ten.png',
      },
    ],
  },
  refund: { gameballTransactionId: 'g-9', refundTransactionId: 'r-1', refundAmount: 5, refundEquivalentPoints: 50 },
  tierProgress: { current: tier, next: { ...tier, order: 2, name: 'Gold', minProgress: 1000 }, progress: 300 },
  deleteCustomer: {},
  hash: { hash: '123456' },
  events: { success: true, message: 'events accepted' },
  holdLookup: { customerId: 'c-1', holdAmount: 10, holdEquivalentPoints: 100, state: 'active', dateToExpire: '2030-01-01T00:10:00Z' },
  holdCancel: { success: true, message: 'released' },
  otp: { success: true, message: 'sent' },
  balance: {
    totalPointsBalance: 500,
    totalPointsValue: 50,
    availablePointsBalance: 400,
    availablePointsValue: 40,
    pendingPoints: 100,
    pendingPointsValue: 10,
    currency: 'EUR',
    pointsName: 'Stars',
    totalEarnedPoints: 900,
    nextExpiringPointsAmount: 0,
    nextExpiringPointsValue: 0,
    nextExpiringPointsDate: '',
  },
  batchStatus: {
    batchId: '42',
    status: 'completed',
    progress: 100,
    totalItems: 1,
    processedItems: 1,
    failedItems: 0,
    results: [{ index: 0, orderId: 'o-1', customerId: 'c-1', rewardedPoints: 5 }],
    errors: [],
  },
};

export const holdRequest = { customerId: 'c-1', transactionTime: '2025-03-01T10:00:00Z', amountToHold: 10 };
export const paymentRequest = { customerId: 'c-1', paymentId: 'p-1', paymentDate: '2025-03-01T10:00:00Z', totalPaid: 100, channel: 'pos' as const };
export const refundRequest = { customerId: 'c-1', refundTransactionId: 'r-1', reverseTransactionId: 'p-1', transactionTime: '2025-03-01T11:00:00Z' };
export const eventRequest = { customerId: 'c-1', events: { place_order: { total: 10 } } };
export const otpRequest = { customerId: 'c-1', amount: 10 };
export const batchRequest = { body: [{ customerId: 'c-1', orderId: 'o-1', orderDate: '2025-03-01T10:00:00Z', totalPaid: 20 }] };

/** What the client returns for each of `bodies` (./src/upstream/answers.ts reads only what the BFF uses). */
export const reads = {
  hold: bodies.hold,
  batchOrders: bodies.batchOrders,
  payment: { customerId: 'c-1', redeemedPoints: 100, rewardedPoints: 12, paymentDetails: [{ serviceId: 's1', points: 12 }] },
  coupons: { coupons: [{ code: 'TEN', name: 'Ten off', value: 10, currency: 'EUR', expiryDate: Date.UTC(2030, 0, 1), isAvailableToUse: true }] },
  refund: bodies.refund,
  tierProgress: { current: { name: 'Silver', order: 1, minProgress: 0 }, next: { name: 'Gold', order: 2, minProgress: 1000 }, progress: 300 },
  deleteCustomer: {},
  hash: bodies.hash,
  events: {},
  holdLookup: { customerId: 'c-1', holdAmount: 10, holdEquivalentPoints: 100, state: 'active', dateToExpire: Date.UTC(2030, 0, 1, 0, 10) },
  holdCancel: {},
  otp: {},
  balance: { ...bodies.balance, nextExpiringPointsDate: undefined },
  batchStatus: { status: 'completed', total: 1, processed: 1, succeeded: 1, failed: 0, failures: [] },
};

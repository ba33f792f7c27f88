import type { OperationId } from '../../contract';

/**
 * Examples of the v4.0 document, one per operation: customer `alice` of the
 * demo account (EGP, "Stars", one point = 0.1) with 1,000 points.
 */
const HOLD_REF = 'hold_4kq9T2mXc8LpAZv3';
const AT = '2025-05-01T10:00:00.000Z';

export const OPERATION_EXAMPLES: Partial<Record<OperationId, { request?: unknown; response: unknown }>> = {
  hold: {
    request: { customerId: 'alice', transactionTime: AT, pointsToHold: 200, hash: '482913' },
    response: { customerId: 'alice', holdAmount: 20, holdEquivalentPoints: 200, holdReference: HOLD_REF },
  },
  holdLookup: {
    response: { holdReference: HOLD_REF, customerId: 'alice', holdAmount: 20, holdEquivalentPoints: 200, state: 'active', dateToExpire: '2025-05-01T10:10:00.000Z' },
  },
  holdCancel: { response: { success: true, message: 'The hold was released' } },
  otp: {
    request: { customerId: 'alice', points: 200 },
    response: { success: true, message: 'A one-time password was sent to the customer', expiresAt: '2025-05-01T10:05:00.000Z' },
  },
  payment: {
    request: {
      customerId: 'alice',
      paymentId: 'sale-1001',
      paymentDate: AT,
      totalPaid: 80,
      totalAmount: 100,
      channel: 'pos',
      merchant: { uniqueId: 'm-1', name: 'Demo Retail', branch: { uniqueId: 'branch-001', name: 'Downtown' } },
      redemption: { pointsHoldReference: HOLD_REF },
      paymentDetails: [{ serviceId: 'sku-123', serviceName: 'Coffee beans 1 kg', amount: 100, category: ['grocery'] }],
    },
    response: { customerId: 'alice', redeemedPoints: 200, rewardedPoints: 80, paymentDetails: [{ serviceId: 'sku-123', decimalPoints: 80, points: 80 }] },
  },
  refund: {
    request: { customerId: 'alice', refundTransactionId: 'ref-2001', reverseTransactionId: 'sale-1001', transactionTime: AT },
    response: { gameballTransactionId: 'gb_7a1c2e', refundTransactionId: 'ref-2001', refundAmount: 80, refundEquivalentPoints: 80 },
  },
  balance: {
    response: {
      customerId: 'alice',
      totalPointsBalance: 1000,
      totalPointsValue: 100,
      availablePointsBalance: 1000,
      availablePointsValue: 100,
      pendingPoints: 0,
      pendingPointsValue: 0,
      heldPoints: 0,
      currency: 'EGP',
      pointsName: 'Stars',
      totalEarnedPoints: 1000,
    },
  },
  hash: { response: { hash: '482913' } },
  coupons: {
    response: {
      coupons: [
        {
          name: 'Welcome 10 EGP', code: 'WELCOME10', value: 10, currency: 'EGP', startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z',
          isExpired: false, isActive: true, usageLimit: 0, limitPerCustomer: 1, usedCount: 0, customerUsedCount: 0, isAvailableToUse: true, iconPath: 'https://example.com/coupons/welcome.png',
        },
      ],
    },
  },
  tierProgress: {
    response: {
      current: { order: 2, name: 'Silver', minProgress: 1000, icon: 'https://example.com/tiers/silver.png' },
      next: { order: 3, name: 'Gold', minProgress: 5000, icon: 'https://example.com/tiers/gold.png' },
      progress: 1200,
    },
  },
  deleteCustomer: { response: { success: true, message: 'The customer and their data were deleted' } },
  deleteCustomerPost: { response: { success: true, message: 'The customer and their data were deleted' } },
  events: {
    request: { customerId: 'alice', events: { review_written: { stars: 5, product: 'sku-123' } } },
    response: { success: true, message: 'Events recorded' },
  },
  batchOrders: {
    request: { body: [{ customerId: 'alice', orderId: 'offline-3001', orderDate: '2025-05-01T09:12:00.000Z', totalPaid: 42.5, channel: 'pos' }] },
    response: { jobId: 17 },
  },
  batchStatus: {
    response: {
      jobId: 17, status: 'completed', total: 1, processed: 1, succeeded: 1, failed: 0,
      results: [{ index: 0, orderId: 'offline-3001', customerId: 'alice', success: true, rewardedPoints: 32 }],
    },
  },
};

/** A v4.0 error body. */
export const loyaltyError = (code: number, type: string, message: string) => ({ code, type, message, requestId: '3f1c9a0e-5b1d-4a59-9d2e-0c7b8f6e2a41' });

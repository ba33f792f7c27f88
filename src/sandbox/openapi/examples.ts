import { loyaltyErrorCategory, type ServedOperationId } from '../../contract';
import { ERROR_DOCUMENTATION_URL } from '../errors';

/**
 * Examples of the v4.0 document, one per operation: customer `alice` of the
 * demo account (EGP, "Stars", one point = 0.1) with 1,000 points.
 */
const HOLD_REF = 'hold_4kq9T2mXc8LpAZv3';
const AT = '2025-05-01T10:00:00.000Z';

export const OPERATION_EXAMPLES: Partial<Record<ServedOperationId, { request?: unknown; response: unknown }>> = {
  hold: {
    request: { customerId: 'alice', transactionTime: AT, pointsToHold: 200, hash: '482913' },
    response: { customerId: 'alice', holdAmount: 20, holdEquivalentPoints: 200, holdReference: HOLD_REF },
  },
  holdLookup: {
    response: { customerId: 'alice', holdAmount: 20, holdEquivalentPoints: 200, state: 'active', dateToExpire: '2025-05-01T10:10:00.000Z' },
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
    response: {
      customerId: 'alice',
      redeemedPoints: 200,
      rewardedPoints: 80,
      paymentDetails: [{ serviceId: 'sku-123', decimalPoints: 80, points: 80, score: 0 }],
    },
  },
  refund: {
    request: { customerId: 'alice', refundTransactionId: 'ref-2001', reverseTransactionId: 'sale-1001', transactionTime: AT },
    response: { gameballTransactionId: 'gb_7a1c2e', refundTransactionId: 'ref-2001', refundAmount: 80, refundEquivalentPoints: 80 },
  },
  balance: {
    response: {
      totalPointsBalance: 1000,
      totalPointsValue: 100,
      availablePointsBalance: 1000,
      availablePointsValue: 100,
      pendingPoints: 0,
      pendingPointsValue: 0,
      currency: 'EGP',
      pointsName: 'Stars',
      nextExpiringPointsAmount: 0,
      nextExpiringPointsValue: 0,
      nextExpiringPointsDate: '',
      totalEarnedPoints: 1000,
      heldPoints: 0,
    },
  },
  hash: { response: { hash: '482913' } },
  coupons: {
    response: {
      coupons: [
        {
          name: 'Welcome 10 EGP',
          code: 'WELCOME10',
          value: 10,
          type: 'Fixed Rate Discount',
          target: 'POS',
          currency: 'EGP',
          startDate: '2024-01-01T00:00:00Z',
          expiryDate: '2099-12-31T23:59:59Z',
          isExpired: false,
          isActive: true,
          usageLimit: 0,
          limitPerCustomer: 1,
          usedCount: 0,
          customerUsedCount: 0,
          isAvailableToUse: true,
          iconPath: 'https://example.com/coupons/welcome.png',
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
  deleteCustomer: { response: {} },
  deleteCustomerPost: { response: {} },
  events: {
    request: { customerId: 'alice', events: { review_written: { stars: 5, product: { id: 'sku-123', category: 'grocery' } } } },
    response: { success: true, message: 'Events recorded' },
  },
  batchOrders: {
    request: {
      body: [
        {
          customerId: 'alice',
          orderId: 'offline-3001',
          orderDate: '2025-05-01T09:12:00.000Z',
          totalPaid: 42.5,
          totalPrice: 50,
          totalDiscount: 7.5,
          channel: 'pos',
          lineItems: [{ productId: 'sku-123', quantity: 1, price: 50, discount: 7.5 }],
          extra: { till: 'T-04' },
        },
      ],
    },
    response: { jobId: 17 },
  },
  batchStatus: {
    response: {
      batchId: '17',
      status: 'completed',
      progress: 100,
      totalItems: 1,
      processedItems: 1,
      failedItems: 0,
      results: [{ index: 0, orderId: 'offline-3001', customerId: 'alice', rewardedPoints: 42 }],
      errors: [],
    },
  },
  couponsValidate: {
    request: { customerId: 'alice', coupons: ['WELCOME10'], lock: true, lockDuration: 10, totalPurchaseAmount: 150 },
    response: {
      valid: true,
      coupons: [
        {
          code: 'WELCOME10',
          type: 'fixed',
          value: 10,
          usageLimit: 0,
          limitPerCustomer: 1,
          startDate: '2024-01-01T00:00:00.000Z',
          expiryDate: '2099-12-31T23:59:59.000Z',
        },
      ],
      lockReference: 'lock_7d2c9e41a0b35f6e8c1d',
      dateToExpire: '2025-05-01T10:10:00.000Z',
    },
  },
  couponValidate: {
    request: { customerId: 'alice', totalPurchaseAmount: 150 },
    response: {
      valid: true,
      coupon: {
        code: 'WELCOME10',
        type: 'fixed',
        value: 10,
        usageLimit: 0,
        limitPerCustomer: 1,
        startDate: '2024-01-01T00:00:00.000Z',
        expiryDate: '2099-12-31T23:59:59.000Z',
      },
    },
  },
  couponBurn: {
    request: { customerId: 'alice', lockReference: 'lock_7d2c9e41a0b35f6e8c1d', transactionId: 'sale-1002' },
    response: { success: true, burnedAt: AT },
  },
  couponRelease: { response: { success: true, releasedAt: AT, releasedCoupons: ['WELCOME10'] } },
  rewardPreview: {
    request: { customerId: 'alice', totalPaid: 80, lineItems: [{ productId: 'sku-123', price: 100, quantity: 1, discount: 20, category: ['grocery'] }] },
    response: {
      customerId: 'alice',
      customerFound: true,
      totalPoints: 80,
      totalCoupons: 0,
      eventRewards: null,
      cashback: {
        totalPoints: 80,
        totalScore: 80,
        lineItems: [
          {
            productId: 'sku-123',
            quantity: 1,
            totalPoints: 80,
            totalScore: 80,
            totalDecimalPoints: 80,
            rewardWalletFactor: 1,
            campaignId: null,
            campaignName: null,
            campaignEndDate: null,
            campaignImpactPoints: 0,
            campaignImpactWalletFactor: 0,
          },
        ],
      },
    },
  },
  trackOrder: {
    request: {
      customerId: 'alice',
      orderId: 'ord-2001',
      orderDate: AT,
      totalPaid: 80,
      totalPrice: 100,
      totalDiscount: 20,
      channel: 'pos',
      lineItems: [{ productId: 'sku-123', price: 100, quantity: 1, discount: 20, category: ['grocery'] }],
      redemption: { pointsHoldReference: HOLD_REF },
    },
    response: {
      customerId: 'alice',
      redeemedPoints: 200,
      rewardedPoints: 80,
      lineItems: [{ productId: 'sku-123', quantity: 1, decimalPoints: 80, points: 80, score: 0 }],
    },
  },
  redeem: {
    request: { customerId: 'alice', transactionId: 'sale-1003', transactionTime: AT, points: 100, reason: 'Discount on sale-1003' },
    response: {
      customerId: 'alice',
      gameballTransactionId: '11034760',
      transactionId: 'sale-1003',
      redeemAmount: 10,
      redeemEquivalentPoints: 100,
      reason: 'Discount on sale-1003',
    },
  },
  orderTransactions: {
    response: {
      transactions: [
        {
          transactionDate: AT,
          gameballTransactionId: 11034754,
          transactionType: 'PaymentReward',
          amount: 80,
          transactionId: 'sale-1001',
          equivalentPoints: 80,
        },
        { transactionDate: AT, gameballTransactionId: 11034755, transactionType: 'Redemption', amount: 20, transactionId: 'sale-1001', equivalentPoints: 200 },
      ],
      count: 2,
    },
  },
  transactions: {
    response: {
      transactions: [
        {
          transactionId: 'sale-1001',
          gameballTransactionId: '11034754',
          type: 'PaymentReward',
          direction: '+',
          customerId: 'alice',
          points: 80,
          amount: 80,
          transactionTime: AT,
          status: 'Active',
          merchantName: 'Demo Retail',
          branchName: 'Downtown',
        },
      ],
      count: 1,
      hasMore: false,
    },
  },
  upsertCustomer: {
    request: {
      customerId: 'alice',
      email: 'alice@example.com',
      mobile: '+201001234567',
      customerAttributes: { displayName: 'Alice Example', firstName: 'Alice', lastName: 'Example', preferredLanguage: 'en', channel: 'pos' },
    },
    response: { gameballId: 1 },
  },
  redemptionConfig: {
    response: {
      redemptionFactor: 0.1,
      redemptionRules: [
        {
          id: 2138,
          pointsToRedeem: 100,
          valueOfPoint: 10,
          ruleType: 'fixed_discount_settings',
          coupon: { couponType: 'fixed_discount', discountValue: 10, options: { name: '10 EGP off' } },
          creationDate: '2025-05-01T00:00:00.000Z',
          isActive: true,
        },
      ],
    },
  },
};

/** A v4.0 error body, as the sandbox writes it. */
export const loyaltyError = (code: number, reason: string, message: string) => ({
  code,
  type: loyaltyErrorCategory(code),
  message,
  documentationUrl: ERROR_DOCUMENTATION_URL,
  requestId: '3f1c9a0e-5b1d-4a59-9d2e-0c7b8f6e2a41',
  reason,
});

import { z } from 'zod';
import * as cs from './schemas';
import * as req from '../schemas';
import type { TerminalRole } from '../terminals/types';
import type { ErrorName } from '../openapi/components';
import { examples as ex, REDEMPTION_ID } from '../openapi/examples';
import type { PosRouteDoc } from '../openapi/routes';

/**
 * The coupon, earn-preview, redemption-option and read-back routes, as the
 * OpenAPI document describes them (joined to POS_ROUTES), with their examples:
 * customer `alice` locks WELCOME10 on sale `sale-1002` and pays 140 of 150
 * with it and 200 points.
 */
export const COUPON_LOCK_ID = 'cpl_Hx82LmQa9TzR4vWc';
const NOW = '2025-05-01T10:00:00.000Z';
const TILL: TerminalRole[] = ['cashier', 'manager'];
const READ_ERRORS: ErrorName[] = ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'BadGateway', 'ServiceUnavailable'];
const WRITE_ERRORS: ErrorName[] = [
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'Conflict',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'Unprocessable',
  'TooManyRequests',
  'BadGateway',
  'ServiceUnavailable',
];
const one = (summary: string, value: unknown) => ({ default: { summary, value } });

const lockId = z.object({ id: cs.CouponLockIdParam.shape.id.meta({ description: 'The coupon lock id from POST /coupon-locks', example: COUPON_LOCK_ID }) });

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

export const COUPON_ROUTES: PosRouteDoc[] = [
  {
    method: 'post',
    path: '/coupons/validate',
    operationId: 'checkCoupons',
    tag: 'Payments',
    roles: TILL,
    summary: 'Check coupon codes for a basket: what each is worth, or why not',
    description:
      'Nothing is locked. One verdict per code named, in the order given; each is checked for this customer and basket total, and a code named twice ' +
      "for two uses (a copy beyond the coupon's or the customer's limit is refused). `reason` says why a code is refused.",
    body: { schema: cs.CouponCheckBody, examples: one('Two codes for a 150.00 basket', couponExamples.check) },
    success: { status: 200, description: 'One verdict per code', schema: cs.CouponChecksSchema, example: couponExamples.checks },
    errors: WRITE_ERRORS,
  },
  {
    method: 'post',
    path: '/coupon-locks',
    operationId: 'lockCoupons',
    tag: 'Payments',
    roles: TILL,
    summary: 'Lock coupons for this sale (all or none)',
    description:
      'Locks the codes with the loyalty service so no other till can use them, until a payment names the lock (`couponLockId`), the till releases it, ' +
      "or nobody pays in time (then the BFF releases it, HOLD_SAFETY_MARGIN_SECONDS before the loyalty service's lock ends). " +
      "If one code cannot be used, nothing is locked: 422 `coupon_refused` with each code's verdict in `coupons` (as POST /coupons/validate gives them) " +
      "and the lock's own refusal in `reason`. When no verdict is refused, the codes were refused together (or changed in between): `reason` is the only explanation.",
    body: { schema: cs.CouponCheckBody, examples: one('Lock WELCOME10 for a 150.00 basket', couponExamples.lock) },
    success: { status: 201, description: 'The lock', schema: cs.CouponLockViewSchema, example: couponExamples.locked, location: true },
    errors: WRITE_ERRORS,
  },
  {
    method: 'get',
    path: '/coupon-locks/:id',
    operationId: 'getCouponLock',
    tag: 'Payments',
    roles: TILL,
    summary: "State of a coupon lock (this store's)",
    params: lockId,
    success: { status: 200, description: 'The lock', schema: cs.CouponLockViewSchema, example: couponExamples.locked },
    errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable'],
  },
  {
    method: 'post',
    path: '/coupon-locks/:id/release',
    operationId: 'releaseCouponLock',
    tag: 'Payments',
    roles: TILL,
    summary: 'Release the coupons (the sale is voided or goes ahead without them)',
    description: 'Releasing a released (or abandoned) lock answers it again; a used lock is 409 `coupon_lock_used`.',
    params: lockId,
    success: {
      status: 200,
      description: 'The lock, now `released`',
      schema: cs.CouponLockViewSchema,
      example: { ...couponExamples.locked, state: 'released', secondsLeft: 0 },
    },
    errors: WRITE_ERRORS,
  },
  {
    method: 'post',
    path: '/earn-preview',
    operationId: 'previewEarn',
    tag: 'Payments',
    roles: TILL,
    summary: 'Points a basket would earn, before the customer pays (reads only)',
    description: 'Priced by the same rules as the payment: send the same lines and `totalPaid` and the payment earns `points`.',
    body: { schema: cs.EarnPreviewBody, examples: one('One line', couponExamples.preview) },
    success: { status: 200, description: 'The preview', schema: cs.EarnPreviewSchema, example: couponExamples.previewed },
    errors: WRITE_ERRORS,
  },
  {
    method: 'get',
    path: '/redemption-options',
    operationId: 'listRedemptionOptions',
    tag: 'Redemptions',
    roles: TILL,
    summary: "The account's redemption rules, for the till's buttons",
    description: 'Cached by each instance for REDEMPTION_OPTIONS_TTL_SECONDS, then refreshed in the background. Start one with POST /redemptions `{ ruleId }`.',
    success: { status: 200, description: 'Factor and rules', schema: cs.RedemptionOptionsSchema, example: couponExamples.options },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/payments/:paymentId',
    operationId: 'getPayment',
    tag: 'Payments',
    roles: TILL,
    summary: "What a sale did at the loyalty service (this store's sales)",
    description: "For a till that lost an answer: read before retrying. 404 when the sale is another store's, unknown, or not delivered yet (queued).",
    params: z.object({ paymentId: req.PaymentIdParam.shape.paymentId.meta({ description: "The sale's paymentId", example: 'sale-1001' }) }),
    success: { status: 200, description: 'The sale', schema: cs.PaymentReadbackSchema, example: couponExamples.paymentRead },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/refunds/:refundId',
    operationId: 'getRefund',
    tag: 'Payments',
    roles: TILL,
    summary: "What a refund did at the loyalty service (this store's refunds)",
    params: z.object({ refundId: cs.RefundIdParam.shape.refundId.meta({ description: 'The refundId', example: 'ref-2001' }) }),
    success: { status: 200, description: 'The refund', schema: cs.RefundReadbackSchema, example: couponExamples.refundRead },
    errors: READ_ERRORS,
  },
];

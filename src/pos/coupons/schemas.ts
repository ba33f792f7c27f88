import { COUPON_LOCK_MACHINE, type CouponLockState } from '../money/machines';
import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { displayWidth } from '../../platform/display-width';
import { RECEIPT_WIDTH } from '../sales/receipt';
import { PaymentViewSchema, QueuedRefundSchema, RefundViewSchema } from '../response-schemas';
import { CouponLockId, CustomerId, Id, Money, NO_CONTROL, PRINTABLE, SaleLine } from '../schemas';

/**
 * Request and response shapes of the coupon, earn-preview, redemption-option,
 * receipt and read-back routes of the cashier API.
 */
export const CouponCode = z.string().trim().min(1).max(100).regex(PRINTABLE, NO_CONTROL);
export const CouponLockIdParam = z.strictObject({ id: CouponLockId });
export const RefundIdParam = z.strictObject({ refundId: Id });

export const CouponCheckBody = z.strictObject({
  customerId: CustomerId,
  codes: z.array(CouponCode).min(1).max(20),
  basketTotal: Money.describe('What the basket costs before coupons; each coupon is priced against it'),
  email: Email.optional(),
  mobile: Mobile.optional(),
});
export type CouponCheckBody = z.infer<typeof CouponCheckBody>;

export const EarnPreviewBody = z.strictObject({
  customerId: CustomerId.optional(),
  totalPaid: Money,
  lines: z.array(SaleLine).min(1, 'give at least one line').max(500),
});
export type EarnPreviewBody = z.infer<typeof EarnPreviewBody>;

const CouponCheckSchema = z.strictObject({
  code: z.string(),
  usable: z.boolean(),
  reason: z
    .string()
    .nullable()
    .describe(
      'Why not: coupon_not_found, coupon_expired, coupon_not_started, coupon_inactive, coupon_exhausted, coupon_locked, coupon_not_offered, coupon_minimum_not_met',
    ),
  type: z.string().nullable(),
  value: z.number().nullable(),
  worth: z.number().describe('Money it takes off this basket (0 when refused or not a money coupon)'),
});
export const CouponChecksSchema = z.strictObject({ customerId: z.string(), basketTotal: z.number(), coupons: z.array(CouponCheckSchema) });

export const CouponLockViewSchema = z.strictObject({
  id: z.string().describe('cpl_...; name it as couponLockId in POST /payments'),
  state: z
    .enum(Object.keys(COUPON_LOCK_MACHINE) as [CouponLockState, ...CouponLockState[]])
    .describe(
      'locked -> paying -> used; locked -> releasing -> released; locked -> abandoned (nobody paid in time; released upstream by the sweeper). `paying` and `releasing` are a payment or a release under way (or its outcome not yet known). docs/STATES.md has every transition; ending states are final.',
    ),
  customerId: z.string(),
  basketTotal: z.number(),
  coupons: z.array(z.strictObject({ code: z.string(), type: z.string(), value: z.number(), worth: z.number() })),
  totalWorth: z.number().describe('Money the coupons take off this basket together'),
  expiresAt: DateTime.describe('Pay before this; then the lock is released'),
  secondsLeft: z.number().int().nonnegative(),
  paymentId: z.string().nullable(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const EarnPreviewSchema = z.strictObject({
  customerId: z.string().nullable(),
  points: z.number().describe('Points the sale would earn; the payment earns the same'),
  lines: z.array(z.strictObject({ serviceId: z.string(), points: z.number() })),
});

export const RedemptionOptionsSchema = z.strictObject({
  redemptionFactor: z.number().nullable().describe('Money value of one point'),
  rules: z.array(
    z.strictObject({
      ruleId: z.string().describe('Send as ruleId to POST /redemptions'),
      name: z.string(),
      points: z.number(),
      value: z.number(),
      type: z.string(),
    }),
  ),
  fetchedAt: DateTime.describe('When this instance read them from the loyalty service'),
});

export const ReceiptSchema = z
  .strictObject({
    pointsEarned: z.number(),
    pointsRedeemed: z.number(),
    pointsGivenBack: z.number().nullable().describe('Redeemed points a refund gave back; null when they could not be read (the receipt line says unknown)'),
    pointsTakenBack: z.number(),
    balanceAfter: z.number().nullable().describe("Points the customer can spend now (the loyalty service's available balance); null when it could not be read"),
    pendingPoints: z.number().nullable().describe('Points earned but not spendable yet (a return window); not in balanceAfter'),
    nextExpiring: z.strictObject({ points: z.number(), date: z.string() }).nullable(),
    tier: z.strictObject({ current: z.string(), next: z.string().nullable(), progress: z.number(), nextAt: z.number().nullable() }).nullable(),
    currency: z.string().nullable(),
    pointsName: z.string().nullable(),
    lines: z
      .array(z.string().refine((l) => displayWidth(l) <= RECEIPT_WIDTH, `at most ${RECEIPT_WIDTH} printed columns`))
      .describe(`Ready to print: plain text, ${RECEIPT_WIDTH} printed columns each (a double-width character, as in ポイント, takes two)`),
  })
  .nullable()
  .describe('Loyalty lines for the receipt; null when the figures are unknown (a retry found the sale already recorded)');

export const SalePaymentSchema = PaymentViewSchema.extend({
  couponLock: z
    .strictObject({ id: z.string(), state: z.string(), coupons: z.array(z.string()) })
    .optional()
    .describe('The coupon lock the payment used, when one was named'),
  receipt: ReceiptSchema,
});
const CouponsNotReturned = z
  .array(z.string())
  .nullable()
  .describe(
    'Coupons the sale burned through its coupon lock: the loyalty service has no way to give a used coupon back, so they stay used (the receipt says so). ' +
      '[] when the sale used no lock; null when not known (a sale this middleware did not take, or its records could not be read). Coupons a till named directly (couponCodes) are not tracked.',
  );
export const SaleRefundSchema = RefundViewSchema.extend({ couponsNotReturned: CouponsNotReturned, receipt: ReceiptSchema });
export const QueuedSaleRefundSchema = QueuedRefundSchema.extend({ couponsNotReturned: CouponsNotReturned });

const Txn = z.strictObject({
  type: z.string(),
  id: z.string().nullable(),
  amount: z.number().nullable(),
  points: z.number().nullable(),
  at: z.string().nullable(),
});
export const PaymentReadbackSchema = z.strictObject({
  paymentId: z.string(),
  customerId: z.string(),
  amountPaid: z.number().nullable(),
  pointsEarned: z.number(),
  pointsRedeemed: z.number(),
  refunds: z.array(z.strictObject({ refundId: z.string(), amount: z.number(), pointsTakenBack: z.number(), pointsGivenBack: z.number() })),
  transactions: z.array(Txn).describe('As the loyalty service lists them'),
});
export const RefundReadbackSchema = z.strictObject({
  refundId: z.string(),
  paymentId: z.string(),
  customerId: z.string(),
  amount: z.number(),
  pointsTakenBack: z.number(),
  pointsGivenBack: z.number(),
  at: z.string().nullable(),
});

import { z } from 'zod';
import { displayWidth } from '../../platform/display-width';
import { PaymentViewSchema, QueuedRefundSchema, RefundViewSchema } from '../response-schemas';
import { CustomerId, Id, Money, SaleLine } from '../schemas';
import { RECEIPT_WIDTH } from './receipt';

/** Request and answer shapes of a sale beyond its payment: the earn preview, the receipt block, the sale's refunds and voids, reading a sale back. */
export const RefundIdParam = z.strictObject({ refundId: Id });

export const EarnPreviewBody = z.strictObject({
  customerId: CustomerId.optional(),
  totalPaid: Money,
  lines: z.array(SaleLine).min(1, 'give at least one line').max(500),
});
export type EarnPreviewBody = z.infer<typeof EarnPreviewBody>;

export const EarnPreviewSchema = z.strictObject({
  customerId: z.string().nullable(),
  points: z.number().describe('Points the sale would earn; the payment earns the same'),
  lines: z.array(z.strictObject({ serviceId: z.string(), points: z.number() })),
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

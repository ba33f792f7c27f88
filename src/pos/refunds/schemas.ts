import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { absent, CustomerId, exclusive, Id, PositiveMoney } from '../fields';
import { queuedAnswer } from '../outbox/schemas';
import { ReceiptSchema, SaleLine } from '../sales/schemas';

/** Request and answer shapes of a refund, the sale void's answer too (a void is the sale's full refund), and reading a refund back. */

export const RefundIdParam = z.strictObject({ refundId: Id });

export const RefundFields = z
  .strictObject({
    customerId: CustomerId,
    // `void-<paymentId>` is the refund id of a sale's void: a till's refund under it would make that sale impossible to void.
    refundId: Id.refine((v) => !/^void-/i.test(v), 'must not start with "void-" (kept for the refund id of a sale\'s void)'),
    paymentId: Id,
    amount: PositiveMoney.optional(),
    lines: z.array(SaleLine).min(1).max(500).optional(),
    transactionTime: DateTime.optional(),
    email: Email.optional(),
    mobile: Mobile.optional(),
  })
  .refine((v) => !(v.amount !== undefined && v.lines !== undefined), { path: ['lines'], message: 'give amount or lines, not both' });
/** A full refund (neither amount nor lines), by amount, or by lines: documented as those three variants. */
export const RefundBody = exclusive(RefundFields, [
  z.strictObject({ ...RefundFields.shape, amount: absent('a full refund'), lines: absent('a full refund') }),
  z.strictObject({ ...RefundFields.shape, amount: PositiveMoney, lines: absent('amount') }),
  z.strictObject({ ...RefundFields.shape, lines: RefundFields.shape.lines.unwrap(), amount: absent('lines') }),
]);
export type RefundBody = z.infer<typeof RefundFields>;

export const RefundViewSchema = z.strictObject({
  refundId: z.string(),
  paymentId: z.string(),
  customerId: z.string(),
  status: z.enum(['refunded', 'already_refunded']).describe('already_refunded: a retry found the refund applied earlier'),
  amountRefunded: z.number().nullable(),
  pointsReversed: z.number().nullable(),
  loyaltyTransactionId: z.string().nullable(),
});

export const QueuedRefundSchema = queuedAnswer({ refundId: z.string(), paymentId: z.string(), customerId: z.string() });

const CouponsNotReturned = z
  .array(z.string())
  .nullable()
  .describe(
    'Coupons the sale burned through its coupon lock: the loyalty service has no way to give a used coupon back, so they stay used (the receipt says so). ' +
      '[] when the sale used no lock; null when not known (a sale this middleware did not take, or its records could not be read). Coupons a till named directly (couponCodes) are not tracked.',
  );
export const SaleRefundSchema = RefundViewSchema.extend({ couponsNotReturned: CouponsNotReturned, receipt: ReceiptSchema });
export const QueuedSaleRefundSchema = QueuedRefundSchema.extend({ couponsNotReturned: CouponsNotReturned });

export const RefundReadbackSchema = z.strictObject({
  refundId: z.string(),
  paymentId: z.string(),
  customerId: z.string(),
  amount: z.number(),
  pointsTakenBack: z.number(),
  pointsGivenBack: z.number(),
  at: z.string().nullable(),
});

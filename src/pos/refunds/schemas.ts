import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { absent, CustomerId, exclusive, Id, PositiveMoney } from '../fields';
import { queuedAnswer } from '../outbox/schemas';
import { ReceiptSchema, SaleLine } from '../sales/schemas';

/** Request and answer shapes of a refund, the sale void's answer too (a void is the sale's full refund), and reading a refund back. */

export const RefundIdParam = z.strictObject({ refundId: Id });

/** Money a refund by amount gives back; the variant below shares its description. */
const Amount = PositiveMoney.describe('The money to refund; without amount or lines the whole sale is refunded');
const Lines = z.array(SaleLine).min(1).max(500).describe("The sale's lines to refund (named by serviceId): only these are refunded");

export const RefundFields = z
  .strictObject({
    customerId: CustomerId.describe("The loyalty customer id of the sale's buyer"),
    // `void-<paymentId>` is the refund id of a sale's void: a till's refund under it would make that sale impossible to void.
    refundId: Id.refine((v) => !/^void-/i.test(v), 'must not start with "void-" (kept for the refund id of a sale\'s void)').describe(
      "The till's own unique id of this refund (a retry sends the same)",
    ),
    paymentId: Id.describe('The paymentId of the sale refunded'),
    amount: Amount.optional(),
    lines: Lines.optional(),
    transactionTime: DateTime.optional().describe('When the refunded sale was rung up (default: when the BFF received the refund)'),
    email: Email.optional().describe("The customer's email, when the account merges channels by email"),
    mobile: Mobile.optional().describe("The customer's mobile, when the account merges channels by mobile"),
  })
  .refine((v) => !(v.amount !== undefined && v.lines !== undefined), { path: ['lines'], message: 'give amount or lines, not both' });
/** A full refund (neither amount nor lines), by amount, or by lines: documented as those three variants. */
export const RefundBody = exclusive(RefundFields, [
  z.strictObject({ ...RefundFields.shape, amount: absent('a full refund'), lines: absent('a full refund') }),
  z.strictObject({ ...RefundFields.shape, amount: Amount, lines: absent('amount') }),
  z.strictObject({ ...RefundFields.shape, lines: Lines, amount: absent('lines') }),
]);
export type RefundBody = z.infer<typeof RefundFields>;

export const RefundViewSchema = z.strictObject({
  refundId: z.string().describe("The till's id of the refund (of a void: the one it gave, or `void-` and the payment id)"),
  paymentId: z.string().describe('The sale refunded'),
  customerId: z.string().describe("The loyalty customer id of the sale's buyer"),
  status: z.enum(['refunded', 'already_refunded']).describe('already_refunded: a retry found the refund applied earlier'),
  amountRefunded: z.number().nullable().describe('Money refunded, as the loyalty service answered; null when not known (already_refunded)'),
  pointsReversed: z.number().nullable().describe('Earned points the refund took back, as the loyalty service answered; null when not known (already_refunded)'),
  loyaltyTransactionId: z.string().nullable().describe("The loyalty service's id of the refund transaction; null when not known (already_refunded)"),
});

export const QueuedRefundSchema = queuedAnswer({
  refundId: z.string().describe("The till's id of the queued refund (of a void: the one it gave, or `void-` and the payment id)"),
  paymentId: z.string().describe('The sale refunded'),
  customerId: z.string().describe("The loyalty customer id of the sale's buyer"),
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

export const RefundReadbackSchema = z.strictObject({
  refundId: z.string().describe("The till's id of the refund"),
  paymentId: z.string().describe('The sale refunded'),
  customerId: z.string().describe("The loyalty customer id of the sale's buyer"),
  amount: z.number().describe("Money refunded, in the account's currency, on the loyalty service's record"),
  pointsTakenBack: z.number().describe('Earned points the refund took back'),
  pointsGivenBack: z.number().describe('Redeemed points the refund gave back'),
  at: z.string().nullable().describe("The refund transaction's date on the loyalty service's record, ISO 8601 UTC; null when it does not say"),
});

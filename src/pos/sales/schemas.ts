import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { displayWidth } from '../../platform/display-width';
import { CouponLockId } from '../coupons/schemas';
import { CustomerId, Id, Money, NO_CONTROL, PositiveMoney, PRINTABLE } from '../fields';
import { queuedAnswer } from '../outbox/schemas';
import { RedemptionIdParam, RedemptionStateSchema } from '../redemptions/schemas';
import { RECEIPT_WIDTH } from './receipt';

/** Request and answer shapes of a sale: the payment, the sale void's request, the earn preview, the receipt block, reading a sale back. */

const Label = z.string().max(500);
const Scalars = z.record(z.string().max(200), z.union([z.string().max(2000), z.number().finite()]));

/**
 * One line of a sale, the same shape in payments, refunds and earn previews.
 * `amount` is the line's total before tax and discount (all its units, what
 * earns points); `quantity` defaults to 1. A payment sends it as a
 * `paymentDetails` entry, a refund as a `lineItems` entry (unit price times
 * quantity): see toUpstreamPayment and toUpstreamRefund. No limit is wider
 * than either upstream request's, so what they would refuse is refused here,
 * naming the till's field.
 */
export const SaleLine = z.strictObject({
  serviceId: Id.describe("The product or service id; a refund by lines names the sale's line by it"),
  sku: Id.optional().describe("The item's stock-keeping unit (a payment sends it in the line's extra)"),
  name: Label.optional().describe("The product or service name (a payment line's serviceName, a refund line's title)"),
  // A refund sends it as the line's `vendor`, which the loyalty service takes up to 200 (a payment's serviceProvider, 500): the stricter, so a sold line can be refunded as sold.
  provider: z.string().max(200).optional().describe('Who provides the product or service (brand, vendor)'),
  quantity: z.number().finite().positive().max(1_000_000).optional().describe('Units on the line (default 1); may be a fraction (weighed goods)'),
  amount: Money.describe('The line total before tax and discount: unit price times quantity'),
  tax: Money.optional().describe("The line's total tax (a payment leaves out 0)"),
  discount: Money.optional().describe("The line's total discount (a payment leaves out 0)"),
  category: z.array(z.string().max(200)).max(50).optional().describe('One or more categories of the product or service'),
  tags: z.array(z.string().max(200)).max(50).optional().describe('Categorisation or promotional tags'),
  extra: Scalars.optional().describe('Key-value pairs about the line (values are strings or numbers), sent on to the loyalty service'),
});
export type SaleLine = z.infer<typeof SaleLine>;

export const PaymentIdParam = z.strictObject({ paymentId: Id });

export const PaymentBody = z.strictObject({
  customerId: CustomerId.describe('The loyalty customer id of the buyer'),
  paymentId: Id.describe("The till's own unique id of this sale (the loyalty service keys the transaction by it; a retry sends the same)"),
  totalPaid: Money.describe('What the customer finally paid after discounts, coupons and points: what earns points'),
  paymentDate: DateTime.optional().describe('When the payment was taken (default: when the BFF received it)'),
  totalAmount: PositiveMoney.optional().describe(
    "The sale before discounts, coupons and points; totalPaid may not be more than it less what each discount takes off it. Needed with a percentage redemption rule; with a coupon lock it defaults to the lock's basketTotal",
  ),
  totalDiscount: Money.optional().describe('The total discount on the sale, as the till rang it up (passed to the loyalty service as history)'),
  totalTax: Money.optional().describe('The total tax on the sale (passed to the loyalty service as history)'),
  lines: z.array(SaleLine).max(500).optional().describe('The items sold; without lines the loyalty service rewards the totals only'),
  redemptionId: RedemptionIdParam.shape.id.optional().describe('A held redemption (rdm_...) from POST /redemptions: its points pay for part of this sale'),
  couponCodes: z
    .array(z.string().min(1).max(100).regex(PRINTABLE, NO_CONTROL))
    .max(50)
    .optional()
    .describe('Coupon codes applied, when the till locked them itself (they must be locked first); prefer couponLockId'),
  couponsLockReference: Id.optional().describe("The loyalty service's lock reference of coupons the till locked itself; prefer couponLockId"),
  couponLockId: CouponLockId.optional().describe('A coupon lock (cpl_...) from POST /coupon-locks: its coupons are used by this payment'),
  email: Email.optional().describe("The customer's email, when the account merges channels by email"),
  mobile: Mobile.optional().describe("The customer's mobile, when the account merges channels by mobile"),
  guest: z.boolean().optional().describe('True for a guest (not signed-up) customer; otherwise the customer is treated as registered'),
  returnWindowDays: z
    .number()
    .int()
    .min(0)
    .max(7300)
    .optional()
    .describe("Days the sale's cashback stays pending (0 to 7300), usually the store's return window for refunds"),
  extra: Scalars.optional().describe(
    "Key-value pairs about the payment (values are strings or numbers), sent on to the loyalty service with the till's cashier and shift ids",
  ),
});
export type PaymentBody = z.infer<typeof PaymentBody>;

export const SaleVoidBody = z.strictObject({
  customerId: CustomerId.describe("The loyalty customer id of the sale's buyer"),
  refundId: Id.optional().describe("The till's own id of the void's refund (default `void-` and the payment id)"),
  transactionTime: DateTime.optional().describe('When the voided sale was rung up (default: when the BFF received the void)'),
  email: Email.optional().describe("The customer's email, when the account merges channels by email"),
  mobile: Mobile.optional().describe("The customer's mobile, when the account merges channels by mobile"),
});
export type SaleVoidBody = z.infer<typeof SaleVoidBody>;

/** Points earned per payment line, as the loyalty service rewarded (or would reward) them. */
const LinePoints = z.strictObject({
  serviceId: z.string().describe("The line's product or service id, as the till sent it"),
  points: z.number().describe('Points the line earns'),
});

export const PaymentViewSchema = z.strictObject({
  paymentId: z.string().describe("The till's id of the sale"),
  customerId: z.string().describe('The loyalty customer id of the buyer'),
  status: z
    .enum(['recorded', 'already_recorded'])
    .describe('already_recorded: a retry found the payment applied earlier; its reward figures are then unknown (null)'),
  pointsEarned: z.number().nullable().describe('Points the payment earned; null when already_recorded'),
  pointsRedeemed: z.number().nullable().describe('Points redeemed for the payment; null when already_recorded'),
  lines: z.array(LinePoints).describe('Points earned per payment line'),
  redemption: z
    .strictObject({
      id: z.string().describe('The redemption (rdm_...)'),
      state: RedemptionStateSchema.describe("The redemption's state once the payment was recorded"),
    })
    .optional()
    .describe('The redemption the payment used, when one was named'),
});

export const QueuedPaymentSchema = queuedAnswer({
  paymentId: z.string().describe("The till's id of the queued sale"),
  customerId: z.string().describe('The loyalty customer id of the buyer'),
});

export const EarnPreviewBody = z.strictObject({
  customerId: CustomerId.optional().describe('The buyer, when known; the quote works without one (a guest)'),
  totalPaid: Money.describe('What the customer would pay after discounts, coupons and points'),
  lines: z.array(SaleLine).min(1, 'give at least one line').max(500).describe('The items in the basket'),
});
export type EarnPreviewBody = z.infer<typeof EarnPreviewBody>;

export const EarnPreviewSchema = z.strictObject({
  customerId: z.string().nullable().describe('The buyer named in the request; null when none was'),
  points: z.number().describe('Points the sale would earn; the payment earns the same'),
  lines: z.array(LinePoints).describe('Points per line, as the loyalty service previewed them'),
});

export const ReceiptSchema = z
  .strictObject({
    pointsEarned: z.number().describe('Points the sale earned (0 on a refund or void)'),
    pointsRedeemed: z.number().describe('Points the sale redeemed (0 on a refund or void)'),
    pointsGivenBack: z.number().nullable().describe('Redeemed points a refund gave back; null when they could not be read (the receipt line says unknown)'),
    pointsTakenBack: z.number().describe('Earned points a refund or void took back (0 on a sale)'),
    balanceAfter: z.number().nullable().describe("Points the customer can spend now (the loyalty service's available balance); null when it could not be read"),
    pendingPoints: z.number().nullable().describe('Points earned but not spendable yet (a return window); not in balanceAfter'),
    nextExpiring: z
      .strictObject({
        points: z.number().describe('Points that expire next'),
        date: z.string().describe('When they expire, ISO 8601 UTC'),
      })
      .nullable()
      .describe('The next points to expire; null when none are due or the balance could not be read'),
    tier: z
      .strictObject({
        current: z.string().describe("The customer's tier name"),
        next: z.string().nullable().describe('The next tier name; null at the top tier'),
        progress: z.number().describe("Progress toward the next tier, in the account's tiering-up measure (amount spent, points earned...)"),
        nextAt: z.number().nullable().describe('The progress the next tier needs; null at the top tier'),
      })
      .nullable()
      .describe("The customer's tier; null when it could not be read"),
    currency: z.string().nullable().describe("The account's currency, as the loyalty service names it; null when the balance could not be read"),
    pointsName: z.string().nullable().describe("The account's name for its points; null when the balance could not be read"),
    lines: z
      .array(z.string().refine((l) => displayWidth(l) <= RECEIPT_WIDTH, `at most ${RECEIPT_WIDTH} printed columns`))
      .describe(`Ready to print: plain text, ${RECEIPT_WIDTH} printed columns each (a double-width character, as in ポイント, takes two)`),
  })
  .nullable()
  .describe(
    'Loyalty lines for the receipt; null when the figures are unknown (a retry found the sale already recorded), or when its reads did not fit ' +
      'in the time the till waits (Prefer: wait): then `receiptLocation` says where to read it',
  );

export const SalePaymentSchema = PaymentViewSchema.extend({
  couponLock: z
    .strictObject({
      id: z.string().describe('The coupon lock (cpl_...)'),
      state: z.string().describe("The lock's state once the payment was recorded"),
      coupons: z.array(z.string()).describe('The codes of its coupons'),
    })
    .optional()
    .describe('The coupon lock the payment used, when one was named'),
  receipt: ReceiptSchema,
  receiptLocation: z
    .string()
    .optional()
    .describe('Present when `receipt` is null because its reads did not fit in the time the till waits: GET it for the receipt block'),
});

/** One of the sale's transactions on the loyalty service's record; null where the record does not say. */
const Txn = z.strictObject({
  type: z.string().describe("The loyalty service's transaction type (PaymentReward, Redemption, Refund, PartialRefund, Cancel...)"),
  id: z.string().nullable().describe("The till's id it was recorded under (the payment's or a refund's)"),
  amount: z.number().nullable().describe("Money, in the account's currency"),
  points: z.number().nullable().describe('Points it moved'),
  at: z.string().nullable().describe('When it happened, ISO 8601 UTC'),
});
export const PaymentReadbackSchema = z.strictObject({
  paymentId: z.string().describe("The till's id of the sale"),
  customerId: z.string().describe('The loyalty customer id of the buyer'),
  amountPaid: z.number().nullable().describe("What the sale paid, in the account's currency; null when its record does not say"),
  pointsEarned: z.number().describe('Points the sale earned'),
  pointsRedeemed: z.number().describe('Points redeemed for the sale'),
  refunds: z
    .array(
      z.strictObject({
        refundId: z.string().describe("The till's id of the refund"),
        amount: z.number().describe("Money refunded, in the account's currency"),
        pointsTakenBack: z.number().describe('Earned points it took back'),
        pointsGivenBack: z.number().describe('Redeemed points it gave back'),
      }),
    )
    .describe('Each refund of the sale since (a void is one)'),
  transactions: z.array(Txn).describe('As the loyalty service lists them'),
});

/** `GET /payments/{paymentId}`: the customer lets a sale this BFF has no record of be found at the loyalty service. */
export const PaymentReadbackQuery = z.strictObject({
  customerId: CustomerId.optional().meta({
    description: "The sale's customer: when this BFF has no record of the sale (its data was lost), the loyalty service's record shows whose store it is",
    example: 'cust-42',
  }),
});

import { z } from 'zod';
import { CustomerId as ContractCustomerId, DateTime, Email, Mobile } from '../contract';

/**
 * The cashier API's own request and response shapes. Requests are strict:
 * an unknown field is an error, so a till's typo is caught on day one.
 */
/** No till sale is a billion; a bigger number is a bug upstream of us, not a sale to earn points on. */
const MAX_MONEY = 1_000_000_000;
/**
 * The smallest currency unit any currency has (ISO 4217 minor units go to three
 * decimals): an amount finer than that is no amount a till can take, and 1e-7
 * would otherwise hold a point for 0.00.
 */
export const MONEY_UNIT = 0.001;
const wholeUnits = (v: number) => Math.abs(v / MONEY_UNIT - Math.round(v / MONEY_UNIT)) < 1e-6;
export const Money = z
  .number()
  .finite()
  .nonnegative()
  .max(MAX_MONEY)
  .refine(wholeUnits, `must be a whole number of ${MONEY_UNIT} (no currency has a smaller unit)`);
const PositiveMoney = z
  .number()
  .finite()
  .min(MONEY_UNIT, `must be at least ${MONEY_UNIT}, the smallest currency unit`)
  .max(MAX_MONEY)
  .refine(wholeUnits, `must be a whole number of ${MONEY_UNIT} (no currency has a smaller unit)`);
/**
 * No control or invisible format characters (NUL, newlines, C1, soft hyphen,
 * zero-width and bidi controls, BOM): ids end up in logs, keys and the upstream.
 * Spelled out rather than \p{Cc}\p{Cf}, so the OpenAPI pattern works without the u flag.
 */
export const PRINTABLE = /^[^\x00-\x1F\x7F-\x9F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB]*$/;
export const NO_CONTROL = 'must not contain control characters';
export const Id = z.string().trim().min(1).max(200).regex(PRINTABLE, NO_CONTROL);
export const CustomerId = ContractCustomerId.regex(PRINTABLE, NO_CONTROL);
const Label = z.string().max(500);
const Scalars = z.record(z.string().max(200), z.union([z.string().max(2000), z.number().finite()]));

export const CustomerIdParam = z.strictObject({ id: CustomerId });
export const CouponLockId = z.string().regex(/^cpl_[A-Za-z0-9_-]{8,64}$/, 'must be a coupon lock id (cpl_...)');
export const RedemptionIdParam = z.strictObject({ id: z.string().regex(/^rdm_[A-Za-z0-9_-]{8,64}$/, 'must be a redemption id (rdm_...)') });
export const PaymentIdParam = z.strictObject({ paymentId: Id });
export const JobIdParam = z.strictObject({
  jobId: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a numeric job id')
    .transform(Number),
});

/**
 * The customer's hash as the loyalty service hands it out: our sandbox's are six
 * digits; the published reference types it only as a string. No control
 * characters, and none of the QR separators `:` and `|`.
 */
export const Hash = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^:|]+$/, 'must be the customer\'s hash (no ":" or "|")')
  .regex(PRINTABLE, NO_CONTROL);
/** `qr` is the customer id, then the hash (DESIGN.md section 3): `id:hash`, `id|hash`, or the id directly followed by a six-digit hash. */
export const QrCode = z.string().min(1).max(265).regex(PRINTABLE, NO_CONTROL);
export const Otp = z.string().regex(/^[0-9]{6}$/, 'must be six digits');

export const StartRedemptionBody = z
  .strictObject({
    qr: QrCode.optional(),
    customerId: CustomerId.optional(),
    hash: Hash.optional(),
    email: Email.optional(),
    mobile: Mobile.optional(),
    amount: PositiveMoney.optional(),
    points: z.number().int().positive().optional(),
    ruleId: Id.optional(),
    otp: Otp.optional(),
  })
  .superRefine((v, ctx) => {
    const how = (['amount', 'points', 'ruleId'] as const).filter((k) => v[k] !== undefined);
    if (how.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: how.length ? [how[1]] : ['amount'],
        message: `give exactly one of amount, points, ruleId (got ${how.join(', ') || 'none'})`,
      });
    }
    if (v.qr !== undefined && (v.customerId !== undefined || v.hash !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['qr'], message: 'give either qr, or customerId and hash, not both' });
    }
    if (v.qr === undefined && v.customerId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'give qr, or customerId (with hash)' });
    }
  });
export type StartRedemptionBody = z.infer<typeof StartRedemptionBody>;

export const SubmitOtpBody = z.strictObject({ otp: Otp });

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
  sku: Id.optional(),
  name: Label.optional(),
  // A refund sends it as the line's `vendor`, which the loyalty service takes up to 200 (a payment's serviceProvider, 500): the stricter, so a sold line can be refunded as sold.
  provider: z.string().max(200).optional().describe('Who provides the product or service (brand, vendor)'),
  quantity: z.number().finite().positive().max(1_000_000).optional().describe('Units on the line (default 1); may be a fraction (weighed goods)'),
  amount: Money.describe('The line total before tax and discount: unit price times quantity'),
  tax: Money.optional(),
  discount: Money.optional(),
  category: z.array(z.string().max(200)).max(50).optional(),
  tags: z.array(z.string().max(200)).max(50).optional(),
  extra: Scalars.optional(),
});
export type SaleLine = z.infer<typeof SaleLine>;

export const PaymentBody = z.strictObject({
  customerId: CustomerId,
  paymentId: Id,
  totalPaid: Money,
  paymentDate: DateTime.optional(),
  totalAmount: PositiveMoney.optional().describe(
    "The sale before discounts, coupons and points; totalPaid may not be more than it less what each discount takes off it. Needed with a percentage redemption rule; with a coupon lock it defaults to the lock's basketTotal",
  ),
  totalDiscount: Money.optional(),
  totalTax: Money.optional(),
  lines: z.array(SaleLine).max(500).optional(),
  redemptionId: RedemptionIdParam.shape.id.optional(),
  couponCodes: z.array(z.string().min(1).max(100).regex(PRINTABLE, NO_CONTROL)).max(50).optional(),
  couponsLockReference: Id.optional(),
  /** A coupon lock (cpl_...) from POST /coupon-locks: its coupons are burned by this payment. */
  couponLockId: CouponLockId.optional(),
  email: Email.optional(),
  mobile: Mobile.optional(),
  guest: z.boolean().optional(),
  returnWindowDays: z.number().int().min(0).max(7300).optional(),
  extra: Scalars.optional(),
});
export type PaymentBody = z.infer<typeof PaymentBody>;

export const SaleVoidBody = z.strictObject({
  customerId: CustomerId,
  refundId: Id.optional(),
  transactionTime: DateTime.optional(),
  email: Email.optional(),
  mobile: Mobile.optional(),
});
export type SaleVoidBody = z.infer<typeof SaleVoidBody>;

export const RefundBody = z
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
export type RefundBody = z.infer<typeof RefundBody>;

const EventName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'event names are letters, digits and _ . : -');
const MetadataValue = z.union([z.string().max(2000), z.number().finite(), z.boolean(), z.null()]);
export const EventsBody = z.strictObject({
  customerId: CustomerId,
  email: Email.optional(),
  mobile: Mobile.optional(),
  events: z
    .record(EventName, z.record(z.string().min(1).max(200), MetadataValue))
    .refine((e) => Object.keys(e).length >= 1 && Object.keys(e).length <= 50, 'give between 1 and 50 events'),
  eventId: Id.optional(),
});
export type EventsBody = z.infer<typeof EventsBody>;

export const BatchOrder = z.strictObject({
  customerId: CustomerId,
  orderId: Id,
  orderDate: DateTime,
  totalPaid: Money,
  email: Email.optional(),
  mobile: Mobile.optional(),
  guest: z.boolean().optional(),
});
export const BatchOrdersBody = z.strictObject({ orders: z.array(BatchOrder).min(1).max(1000) });
export type BatchOrdersBody = z.infer<typeof BatchOrdersBody>;

export const TierQuery = z.strictObject({
  lang: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'must be a language code')
    .optional(),
});

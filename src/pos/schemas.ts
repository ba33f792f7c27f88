import { z } from 'zod';
import { CustomerId, DateTime, Email, Mobile } from '../contract';

/**
 * The cashier API's own request and response shapes. Requests are strict:
 * an unknown field is an error, so a till's typo is caught on day one.
 */
/** No till sale is a billion; a bigger number is a bug upstream of us, not a sale to earn points on. */
const MAX_MONEY = 1_000_000_000;
const Money = z.number().finite().nonnegative().max(MAX_MONEY);
const PositiveMoney = z.number().finite().positive().max(MAX_MONEY);
const Id = z.string().trim().min(1).max(200);
const Label = z.string().max(500);
const Scalars = z.record(z.string().max(200), z.union([z.string().max(2000), z.number().finite()]));

export const CustomerIdParam = z.strictObject({ id: CustomerId });
export const RedemptionIdParam = z.strictObject({ id: z.string().regex(/^rdm_[A-Za-z0-9_-]{8,64}$/, 'must be a redemption id (rdm_...)') });
export const PaymentIdParam = z.strictObject({ paymentId: Id });
export const JobIdParam = z.strictObject({ jobId: z.string().regex(/^[0-9]{1,15}$/, 'must be a numeric job id').transform(Number) });

/** `qr` is the customer id followed by the six-digit hash (DESIGN.md section 3). */
export const QrCode = z.string().max(220).regex(/^.+\d{6}$/, 'must be a customer id followed by a six-digit hash');
export const Otp = z.string().regex(/^[0-9]{6}$/, 'must be six digits');

export const StartRedemptionBody = z
  .strictObject({
    qr: QrCode.optional(),
    customerId: CustomerId.optional(),
    hash: z.string().regex(/^[0-9]{6}$/, 'must be six digits').optional(),
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
      ctx.addIssue({ code: 'custom', path: how.length ? [how[1]] : ['amount'], message: `give exactly one of amount, points, ruleId (got ${how.join(', ') || 'none'})` });
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

export const PaymentLine = z.strictObject({
  serviceId: Id,
  name: Label.optional(),
  provider: Label.optional(),
  amount: Money,
  tax: Money.optional(),
  discount: Money.optional(),
  category: z.array(z.string().max(200)).max(50).optional(),
  tags: z.array(z.string().max(200)).max(50).optional(),
  extra: Scalars.optional(),
});

export const PaymentBody = z.strictObject({
  customerId: CustomerId,
  paymentId: Id,
  totalPaid: Money,
  paymentDate: DateTime.optional(),
  totalAmount: PositiveMoney.optional(),
  totalDiscount: Money.optional(),
  totalTax: Money.optional(),
  lines: z.array(PaymentLine).max(500).optional(),
  redemptionId: RedemptionIdParam.shape.id.optional(),
  couponCodes: z.array(z.string().min(1).max(100)).max(50).optional(),
  couponsLockReference: Id.optional(),
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

export const RefundLine = z.strictObject({
  serviceId: Id,
  price: Money,
  quantity: z.number().finite().positive().optional(),
  title: Label.optional(),
});

export const RefundBody = z
  .strictObject({
    customerId: CustomerId,
    refundId: Id,
    paymentId: Id,
    amount: PositiveMoney.optional(),
    lines: z.array(RefundLine).min(1).max(500).optional(),
    transactionTime: DateTime.optional(),
    email: Email.optional(),
    mobile: Mobile.optional(),
  })
  .refine((v) => !(v.amount !== undefined && v.lines !== undefined), { path: ['lines'], message: 'give amount or lines, not both' });
export type RefundBody = z.infer<typeof RefundBody>;

const EventName = z.string().min(1).max(200).regex(/^[A-Za-z0-9_.:-]+$/, 'event names are letters, digits and _ . : -');
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

export const TierQuery = z.strictObject({ lang: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'must be a language code').optional() });

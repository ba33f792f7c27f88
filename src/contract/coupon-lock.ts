import { z } from 'zod';
import { ChannelMergingFields, CustomerId, DateTime, NonNegativeMoney } from './common';

/** Coupon kinds as the published `Coupon` object names them. */
export const CouponKind = z.enum(['shipping', 'fixed', 'percentage', 'product', 'percentage-fees', 'fixed-cashback', 'percentage-cashback']);
export type CouponKind = z.infer<typeof CouponKind>;

const Code = z.string().min(1).max(100);
const LockReference = z.string().min(1).max(200);

/** What validate and lock share: the customer, the basket, and the lock options. */
const ValidateFields = {
  customerId: CustomerId,
  ...ChannelMergingFields,
  lock: z.boolean().optional(),
  /** Given with `lock`: the lock session to replace (its coupons are freed first). */
  lockReference: LockReference.optional(),
  /** Minutes the lock lasts (default: the account's hold period). */
  lockDuration: z
    .number()
    .int()
    .min(1)
    .max(15 * 24 * 60)
    .optional(),
  merchantId: z.string().max(200).optional(),
  collectionId: z.string().max(200).optional(),
  collectionsIds: z.array(z.string().max(200)).max(100).optional(),
  /** The basket total; checked against each coupon's minimum order value. */
  totalPurchaseAmount: NonNegativeMoney.optional(),
};

/** `POST /coupons/validate`. */
export const CouponsValidateRequest = z.strictObject({ ...ValidateFields, coupons: z.array(Code).min(1).max(50) });
export type CouponsValidateRequest = z.infer<typeof CouponsValidateRequest>;

/** `POST /coupons/{code}/validate`. */
export const CouponValidateRequest = z.strictObject(ValidateFields);
export type CouponValidateRequest = z.infer<typeof CouponValidateRequest>;

/** A coupon as validate describes it (the published `Coupon` object). */
export const CouponDetail = z.object({
  code: z.string(),
  type: CouponKind,
  value: z.number(),
  usageLimit: z.number(),
  limitPerCustomer: z.number(),
  startDate: DateTime,
  expiryDate: DateTime,
  capping: z.number().optional(),
  minOrderValue: z.number().optional(),
});
export type CouponDetail = z.infer<typeof CouponDetail>;

export const CouponsValidateResponse = z.object({
  valid: z.boolean(),
  coupons: z.array(CouponDetail),
  lockReference: z.string().optional(),
  dateToExpire: DateTime.optional(),
});
export type CouponsValidateResponse = z.infer<typeof CouponsValidateResponse>;

export const CouponValidateResponse = z.object({
  valid: z.boolean(),
  coupon: CouponDetail,
  lockReference: z.string().optional(),
  dateToExpire: DateTime.optional(),
});
export type CouponValidateResponse = z.infer<typeof CouponValidateResponse>;

/** `POST /coupons/burn`: codes, or the lock holding them. */
export const CouponBurnRequest = z
  .strictObject({
    customerId: CustomerId,
    ...ChannelMergingFields,
    transactionId: z.string().min(1).max(200).optional(),
    transactionTime: DateTime.optional(),
    coupons: z.array(Code).min(1).max(50).optional(),
    lockReference: LockReference.optional(),
  })
  .refine((b) => b.coupons !== undefined || b.lockReference !== undefined, { path: ['coupons'], message: 'give coupons or lockReference' });
export type CouponBurnRequest = z.infer<typeof CouponBurnRequest>;

export const CouponBurnResponse = z.object({ success: z.boolean(), burnedAt: DateTime });
export type CouponBurnResponse = z.infer<typeof CouponBurnResponse>;

/** `DELETE /coupons/{lockReference}`. */
export const CouponReleaseResponse = z.object({ success: z.boolean(), releasedAt: DateTime, releasedCoupons: z.array(z.string()) });
export type CouponReleaseResponse = z.infer<typeof CouponReleaseResponse>;

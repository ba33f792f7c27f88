import { COUPON_LOCK_MACHINE, type CouponLockState } from '../money/machines';
import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { CustomerId, Money, NO_CONTROL, PRINTABLE } from '../fields';

/** Request and answer shapes of the coupon routes: checks and locks. */
export const CouponCode = z.string().trim().min(1).max(100).regex(PRINTABLE, NO_CONTROL);
export const CouponLockId = z.string().regex(/^cpl_[A-Za-z0-9_-]{8,64}$/, 'must be a coupon lock id (cpl_...)');
export const CouponLockIdParam = z.strictObject({ id: CouponLockId });

export const CouponCheckBody = z.strictObject({
  customerId: CustomerId,
  codes: z.array(CouponCode).min(1).max(20),
  basketTotal: Money.describe('What the basket costs before coupons; each coupon is priced against it'),
  email: Email.optional(),
  mobile: Mobile.optional(),
});
export type CouponCheckBody = z.infer<typeof CouponCheckBody>;

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

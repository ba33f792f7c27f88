import { COUPON_LOCK_MACHINE, type CouponLockState } from '../money/machines';
import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { CustomerId, Money, NO_CONTROL, PRINTABLE } from '../fields';

/** Request and answer shapes of the coupon routes: checks and locks. */
export const CouponCode = z.string().trim().min(1).max(100).regex(PRINTABLE, NO_CONTROL);
export const CouponLockId = z.string().regex(/^cpl_[A-Za-z0-9_-]{8,64}$/, 'must be a coupon lock id (cpl_...)');
export const CouponLockIdParam = z.strictObject({ id: CouponLockId });

/** The coupon's own figures, as the loyalty service describes the coupon. */
const CouponType = z.string().describe("The coupon's type, as the loyalty service names it (fixed, percentage, shipping, product...)");
const CouponValue = z.number().describe('The money off (fixed) or the percentage (percentage), depending on its type');
const Usable = z.boolean().describe('True when the customer can use it on this basket now');

export const CouponCheckBody = z.strictObject({
  customerId: CustomerId.describe('The loyalty customer id of the buyer'),
  codes: z.array(CouponCode).min(1).max(20).describe('The coupon codes to check or lock, 1 to 20; a code named twice counts as two uses'),
  basketTotal: Money.describe('What the basket costs before coupons; each coupon is priced against it'),
  email: Email.optional().describe("The customer's email, when the account merges channels by email"),
  mobile: Mobile.optional().describe("The customer's mobile, when the account merges channels by mobile"),
});
export type CouponCheckBody = z.infer<typeof CouponCheckBody>;

const CouponCheckSchema = z.strictObject({
  code: z.string().describe('The code, as named in the request'),
  usable: Usable,
  reason: z
    .string()
    .nullable()
    .describe(
      'Why not: coupon_not_found, coupon_expired, coupon_not_started, coupon_inactive, coupon_exhausted, coupon_locked, coupon_not_offered, coupon_minimum_not_met',
    ),
  type: CouponType.nullable().describe("The coupon's type, as the loyalty service names it; null when refused or not given"),
  value: CouponValue.nullable().describe('The money off (fixed) or the percentage (percentage); null when refused or not given'),
  worth: z.number().describe('Money it takes off this basket (0 when refused or not a money coupon)'),
});
export const CouponChecksSchema = z.strictObject({
  customerId: z.string().describe('The loyalty customer id of the buyer'),
  basketTotal: z.number().describe('The basket total the coupons were priced against'),
  coupons: z.array(CouponCheckSchema).describe("One verdict per code named, in the request's order"),
});

export const CouponLockViewSchema = z.strictObject({
  id: z.string().describe('cpl_...; name it as couponLockId in POST /payments'),
  state: z
    .enum(Object.keys(COUPON_LOCK_MACHINE) as [CouponLockState, ...CouponLockState[]])
    .describe(
      'locked -> paying -> used; locked -> releasing -> released; locked -> abandoned (nobody paid in time; released upstream by the sweeper). `paying` and `releasing` are a payment or a release under way (or its outcome not yet known). docs/STATES.md has every transition; ending states are final.',
    ),
  customerId: z.string().describe('The loyalty customer id of the buyer'),
  basketTotal: z.number().describe('What the basket cost before coupons, as the lock was asked for'),
  coupons: z
    .array(
      z.strictObject({
        code: z.string().describe('The code'),
        type: CouponType,
        value: CouponValue,
        worth: z.number().describe('Money it takes off this basket (0 when not a money coupon)'),
      }),
    )
    .describe('The coupons locked'),
  totalWorth: z.number().describe('Money the coupons take off this basket together'),
  expiresAt: DateTime.describe('Pay before this; then the lock is released'),
  secondsLeft: z.number().int().nonnegative().describe('Seconds until expiresAt while locked; 0 in any other state'),
  paymentId: z.string().nullable().describe('The payment that is using (paying) or used it; null otherwise'),
  createdAt: DateTime.describe('When the lock was taken, ISO 8601 UTC'),
  updatedAt: DateTime.describe('When it last changed, ISO 8601 UTC'),
});

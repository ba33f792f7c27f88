import { z } from 'zod';
import { DateTime } from './common';

/** Published coupon kinds and where a coupon can be used. */
export const CouponType = z.enum([
  'Free Shipping',
  'Fixed Rate Discount',
  'Percentage',
  'Free Product',
  'Custom',
  'Percentage-based Fees Discount',
  'Percentage-based Cashback',
]);
export const CouponTarget = z.enum(['Online', 'POS', 'Permanent', 'Reward', 'Automation']);

export const Coupon = z.object({
  name: z.string(),
  code: z.string(),
  value: z.number(),
  type: CouponType,
  target: CouponTarget,
  currency: z.string(),
  startDate: DateTime,
  expiryDate: DateTime,
  isExpired: z.boolean(),
  isActive: z.boolean(),
  usageLimit: z.number(),
  limitPerCustomer: z.number(),
  usedCount: z.number(),
  customerUsedCount: z.number(),
  isAvailableToUse: z.boolean(),
  iconPath: z.string(),
});
export type Coupon = z.infer<typeof Coupon>;

export const CouponsResponse = z.object({ coupons: z.array(Coupon) });
export type CouponsResponse = z.infer<typeof CouponsResponse>;

export const Tier = z.object({
  order: z.number(),
  name: z.string(),
  minProgress: z.number(),
  icon: z.string(),
});
export type Tier = z.infer<typeof Tier>;

export const TierExpansion = z.enum(['tier', 'referrals']);

/** `expand`: comma-separated, only `tier` and `referrals`. */
export const TierProgressQuery = z.strictObject({
  expand: z
    .string()
    .max(100)
    .optional()
    .transform((v, ctx) => {
      const parts = (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const p of parts) {
        if (!TierExpansion.safeParse(p).success) {
          ctx.addIssue({ code: 'custom', message: `unknown expansion "${p}"; allowed: tier, referrals` });
          return z.NEVER;
        }
      }
      return [...new Set(parts)] as z.infer<typeof TierExpansion>[];
    }),
});

export const TierProgressResponse = z.object({
  current: Tier,
  /**
   * An object, as published. In the top tier there is nothing above, so the
   * sandbox repeats the top tier: `next.order === current.order` says "top".
   */
  next: Tier,
  progress: z.number(),
  /** With `expand=tier` (a sandbox reading; the shape is not published): every tier of the programme, in order. */
  tiers: z.array(Tier).optional(),
  /** With `expand=referrals`. */
  referrals: z.object({ count: z.number() }).optional(),
});
export type TierProgressResponse = z.infer<typeof TierProgressResponse>;

export const HashResponse = z.object({ hash: z.string() });
export type HashResponse = z.infer<typeof HashResponse>;

/** `GET /customers/{customerId}/balance`: the published fields, plus the sandbox's `heldPoints`. */
export const BalanceResponse = z.object({
  totalPointsBalance: z.number(),
  totalPointsValue: z.number(),
  availablePointsBalance: z.number(),
  availablePointsValue: z.number(),
  pendingPoints: z.number(),
  pendingPointsValue: z.number(),
  currency: z.string(),
  pointsName: z.string(),
  /** Points that expire next, their value, and when (date-time without offset, UTC, as published; "" when none expire). */
  nextExpiringPointsAmount: z.number(),
  nextExpiringPointsValue: z.number(),
  nextExpiringPointsDate: z.string(),
  totalEarnedPoints: z.number(),
  /** Sandbox extension: points locked by active holds (not published; a client must not need it). */
  heldPoints: z.number().optional(),
});
export type BalanceResponse = z.infer<typeof BalanceResponse>;

/** Deletion is published as a bare 200; the sandbox sends an empty object. */
export const DeleteCustomerResponse = z.object({});
export type DeleteCustomerResponse = z.infer<typeof DeleteCustomerResponse>;

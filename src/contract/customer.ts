import { z } from 'zod';
import { DateTime } from './common';

export const Coupon = z.object({
  name: z.string(),
  code: z.string(),
  value: z.number(),
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
      const parts = (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
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
  /** Null when the customer is already in the top tier. */
  next: Tier.nullable(),
  progress: z.number(),
  /** With `expand=tier`: every tier of the programme, in order. */
  tiers: z.array(Tier).optional(),
  /** With `expand=referrals`. */
  referrals: z.object({ count: z.number() }).optional(),
});
export type TierProgressResponse = z.infer<typeof TierProgressResponse>;

export const HashResponse = z.object({ hash: z.string() });
export type HashResponse = z.infer<typeof HashResponse>;

/** `GET /customers/{customerId}/balance` (DESIGN.md section 4). */
export const BalanceResponse = z.object({
  customerId: z.string(),
  totalPointsBalance: z.number(),
  totalPointsValue: z.number(),
  availablePointsBalance: z.number(),
  availablePointsValue: z.number(),
  pendingPoints: z.number(),
  pendingPointsValue: z.number(),
  heldPoints: z.number().optional(),
  currency: z.string(),
  pointsName: z.string(),
  totalEarnedPoints: z.number(),
});
export type BalanceResponse = z.infer<typeof BalanceResponse>;

/** Deletion's body is "not shown" in the spec; settled as an acknowledgement. */
export const DeleteCustomerResponse = z.object({ success: z.boolean(), message: z.string() });
export type DeleteCustomerResponse = z.infer<typeof DeleteCustomerResponse>;

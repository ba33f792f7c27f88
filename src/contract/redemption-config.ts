import { z } from 'zod';

/** `GET /configurations/redemption?customerId=`: the optional customer the rules are read for. */
export const RedemptionConfigQuery = z.strictObject({ customerId: z.string().trim().min(1).max(200).optional() });

export const RedemptionRuleView = z.object({
  id: z.number(),
  pointsToRedeem: z.number(),
  /** Money the rule is worth (fixed discount), or the points' value at the redemption factor. */
  valueOfPoint: z.number(),
  ruleType: z.string(),
  coupon: z.object({
    couponType: z.string(),
    discountValue: z.number(),
    product: z.object({ productId: z.string() }).optional(),
    options: z.object({ name: z.string() }),
  }),
  creationDate: z.string(),
  isActive: z.boolean(),
});
export type RedemptionRuleView = z.infer<typeof RedemptionRuleView>;

/** `GET /configurations/redemption`. */
export const RedemptionConfigResponse = z.object({ redemptionFactor: z.number(), redemptionRules: z.array(RedemptionRuleView) });
export type RedemptionConfigResponse = z.infer<typeof RedemptionConfigResponse>;

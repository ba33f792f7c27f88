import { z } from 'zod';
import { ChannelMergingFields, CustomerId, DateTime, Merchant, NonNegativeMoney } from './common';
import { exactlyOne } from './hold';

/** `POST /transactions/redeem`: points spent now, by amount, by points, or the points of a hold. */
export const RedeemRequest = z
  .strictObject({
    customerId: CustomerId,
    /** The caller's id of this redemption; a second request under it is refused (9004). */
    transactionId: z.string().min(1).max(200),
    transactionTime: DateTime,
    ...ChannelMergingFields,
    amount: NonNegativeMoney.optional(),
    points: z.number().int().nonnegative().optional(),
    holdReference: z.string().min(1).max(200).optional(),
    merchant: Merchant.optional(),
    hash: z.string().max(64).optional(),
    otp: z
      .string()
      .regex(/^[0-9]{4,8}$/, 'must be the digits of the one-time password')
      .optional(),
    ignoreOTP: z.boolean().optional(),
    reason: z.string().max(255).optional(),
  })
  // A zero counts as not given: the published request example sends `"amount": 10, "points": 0,
  // "holdReference": null` while its text says only one of the three may be provided, so 0 (like
  // null) is how a caller leaves one out; a redemption of nothing is not one.
  .superRefine(exactlyOne(['amount', 'points', 'holdReference'], '', (v) => v !== undefined && v !== 0));
export type RedeemRequest = z.infer<typeof RedeemRequest>;

export const RedeemResponse = z.object({
  customerId: z.string(),
  /** The service's id of the redemption: the `gameballTransactionId` its `Redemption` row of the order transactions shows. */
  gameballTransactionId: z.string(),
  transactionId: z.string(),
  /** The money value of the points redeemed. */
  redeemAmount: z.number(),
  redeemEquivalentPoints: z.number(),
  /** Echoed when the request gave one. */
  reason: z.string().optional(),
});
export type RedeemResponse = z.infer<typeof RedeemResponse>;

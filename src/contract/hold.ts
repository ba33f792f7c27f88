import { z } from 'zod';
import { ChannelMergingFields, CustomerId, DateTime } from './common';

const HoldAmount = z.number().finite().positive();
const HoldPoints = z.number().int().positive();
const RuleId = z.string().min(1).max(200);
/**
 * The OTP request types `ruleId` as an integer (the hold types it as a
 * string); a string naming a configured rule is accepted too, so the same
 * rule id works for both calls.
 */
const OtpRuleId = z.union([z.number().int().positive(), RuleId]);

/** Exactly one of the ways to say how much (spec, Hold request); `isGiven` says what counts as given. */
export function exactlyOne<T extends Record<string, unknown>>(
  keys: (keyof T & string)[],
  label: string,
  isGiven: (v: unknown) => boolean = (v) => v !== undefined,
) {
  return (value: T, ctx: z.RefinementCtx) => {
    const given = keys.filter((k) => isGiven(value[k]));
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given.length > 1 ? [given[1]] : [],
        message: `exactly one of ${keys.join(', ')} must be provided${label ? ` ${label}` : ''} (got ${given.length ? given.join(', ') : 'none'})`,
        params: { rule: given.length ? 'exactly_one' : 'missing_one_of' },
      });
    }
  };
}

export const HoldRequest = z
  .strictObject({
    customerId: CustomerId,
    transactionTime: DateTime,
    ...ChannelMergingFields,
    otp: z
      .string()
      .regex(/^[0-9]{4,8}$/, 'must be the digits of the one-time password')
      .optional(),
    ignoreOTP: z.boolean().optional(),
    amountToHold: HoldAmount.optional(),
    pointsToHold: HoldPoints.optional(),
    ruleId: RuleId.optional(),
    hash: z.string().max(64).optional(),
  })
  .superRefine(exactlyOne(['ruleId', 'amountToHold', 'pointsToHold'], 'for the hold to proceed'));
export type HoldRequest = z.infer<typeof HoldRequest>;

export const HoldResponse = z.object({
  customerId: z.string(),
  holdAmount: z.number(),
  holdEquivalentPoints: z.number(),
  holdReference: z.string().min(1),
});
export type HoldResponse = z.infer<typeof HoldResponse>;

/**
 * The published hold states (Active, Expired, Used), in the lower case of the
 * published example. A released (cancelled) hold reads `expired`: its points
 * are free again and it can no longer be used, which is what Expired means.
 */
export const HoldState = z.enum(['active', 'used', 'expired']);
export type HoldState = z.infer<typeof HoldState>;

/** `GET /transactions/hold/{holdReferenceId}`. */
export const HoldLookupResponse = z.object({
  customerId: z.string(),
  holdAmount: z.number(),
  holdEquivalentPoints: z.number(),
  state: HoldState,
  dateToExpire: DateTime,
});
export type HoldLookupResponse = z.infer<typeof HoldLookupResponse>;

/** `POST /transactions/otp`: ask the service to send the customer a code. */
export const OtpRequest = z
  .strictObject({
    customerId: CustomerId,
    ...ChannelMergingFields,
    amount: HoldAmount.optional(),
    points: HoldPoints.optional(),
    ruleId: OtpRuleId.optional(),
  })
  .superRefine(exactlyOne(['amount', 'points', 'ruleId'], ''));
export type OtpRequest = z.infer<typeof OtpRequest>;

/** The reference documents no answer body for OTP; the sandbox's own. */
export const OtpResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  expiresAt: DateTime.optional(),
});
export type OtpResponse = z.infer<typeof OtpResponse>;

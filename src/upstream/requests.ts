import { z } from 'zod';
import { CustomerId, Email, Mobile, OperationId } from '../contract';

/**
 * Request shapes where the client sends something other than what
 * `src/contract` describes, because the published v4.0 reference types the
 * field differently. The rest are checked with the contract's schemas.
 */

/** The OTP request: the reference types `ruleId` as an integer here (a string in the hold request). */
const OtpWireRequest = z
  .strictObject({
    customerId: CustomerId,
    email: Email.optional(),
    mobile: Mobile.optional(),
    amount: z.number().finite().positive().optional(),
    points: z.number().int().positive().optional(),
    ruleId: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .refine((r) => [r.amount, r.points, r.ruleId].filter((v) => v !== undefined).length === 1, {
    path: ['amount'],
    message: 'exactly one of amount, points, ruleId must be provided',
  });

export const REQUESTS: Partial<Record<OperationId, z.ZodType>> = {
  otp: OtpWireRequest,
};

import { z } from 'zod';

/** The v4.0 error body (DESIGN.md section 4). */
export const LoyaltyErrorBody = z.object({
  code: z.number().int(),
  type: z.string(),
  message: z.string(),
  requestId: z.string(),
});
export type LoyaltyErrorBody = z.infer<typeof LoyaltyErrorBody>;

/** v4.0 error codes with their HTTP statuses, as settled in DESIGN.md section 4. */
export const LoyaltyErrorCode = {
  apiKeyInvalid: 1000,
  secretKeyRequired: 1001,
  missingField: 3000,
  invalidValue: 3003,
  invalidPayload: 3016,
  notFound: 4004,
  customerNotFound: 7000,
  alreadyCancelled: 9001,
  transactionNotFound: 9002,
  duplicateTransaction: 9004,
  reversedTransactionNotFound: 9005,
  holdNotFound: 9006,
  insufficientPoints: 9008,
  rateLimited: 429,
  internal: 5000,
} as const;
export type LoyaltyErrorCode = (typeof LoyaltyErrorCode)[keyof typeof LoyaltyErrorCode];

export const LOYALTY_ERROR_STATUS: Record<LoyaltyErrorCode, number> = {
  1000: 401,
  1001: 401,
  3000: 400,
  3003: 422,
  3016: 400,
  4004: 404,
  7000: 404,
  9001: 422,
  9002: 404,
  9004: 422,
  9005: 404,
  9006: 404,
  9008: 422,
  429: 429,
  5000: 500,
};

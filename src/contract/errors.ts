import { z } from 'zod';

/**
 * The published error categories: the thousands digit of `code` picks one
 * (1xxx authentication ... 9xxx transactions).
 */
export const LoyaltyErrorCategory = z.enum([
  'AUTHENTICATION_ERROR',
  'REQUEST_ERROR',
  'PAYLOAD_ERROR',
  'GENERAL_ERROR',
  'SERVER_ERROR',
  'CONFIGURATIONS_ERROR',
  'CUSTOMER_ERROR',
  'SUBSCRIPTION_ERROR',
  'TRANSACTIONS_ERROR',
]);
export type LoyaltyErrorCategory = z.infer<typeof LoyaltyErrorCategory>;

/**
 * The v4.0 error body as the reference publishes it. `reason` is the
 * sandbox's own addition: the specific rule that failed (e.g. `OTPInvalid`
 * under 3003), which the published body has no field for.
 */
export const LoyaltyErrorBody = z.object({
  code: z.number().int(),
  type: z.string(),
  message: z.string(),
  documentationUrl: z.string(),
  requestId: z.string(),
  reason: z.string().optional(),
});
export type LoyaltyErrorBody = z.infer<typeof LoyaltyErrorBody>;

/** v4.0 error codes used by the sandbox and understood by the client, from the published error table. */
export const LoyaltyErrorCode = {
  apiKeyInvalid: 1000,
  secretKeyRequired: 1001,
  missingField: 3000,
  nullArgument: 3001,
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
  /** Not in the published table (which gives only the 429 status); the sandbox uses the status as the code. */
  rateLimited: 429,
  internal: 5000,
} as const;
export type LoyaltyErrorCode = (typeof LoyaltyErrorCode)[keyof typeof LoyaltyErrorCode];

/** The published HTTP status of each code. */
export const LOYALTY_ERROR_STATUS: Record<LoyaltyErrorCode, number> = {
  1000: 401,
  1001: 401,
  3000: 400,
  3001: 422,
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

const CATEGORY_BY_THOUSAND: Record<number, LoyaltyErrorCategory> = {
  1: 'AUTHENTICATION_ERROR',
  2: 'REQUEST_ERROR',
  3: 'PAYLOAD_ERROR',
  4: 'GENERAL_ERROR',
  5: 'SERVER_ERROR',
  6: 'CONFIGURATIONS_ERROR',
  7: 'CUSTOMER_ERROR',
  8: 'SUBSCRIPTION_ERROR',
  9: 'TRANSACTIONS_ERROR',
};

/** The published category of a code; 429 (no published code) counts as a request error, like 2001 "concurrent request". */
export function loyaltyErrorCategory(code: number): LoyaltyErrorCategory {
  if (code === LoyaltyErrorCode.rateLimited) return 'REQUEST_ERROR';
  return CATEGORY_BY_THOUSAND[Math.floor(code / 1000)] ?? 'GENERAL_ERROR';
}

import type { Request, Response } from 'express';
import { LOYALTY_ERROR_STATUS, LoyaltyErrorBody, LoyaltyErrorCode, loyaltyErrorCategory } from '../contract';
import {
  AppError,
  AppErrorOptions,
  AuthenticationError,
  BadRequestError,
  FieldError,
  InternalError,
  NotFoundError,
  RateLimitedError,
  UnprocessableError,
} from '../platform/errors';
import { requestIdOf } from '../platform/http';

/**
 * The sandbox's errors are platform AppErrors whose `code` names the rule that
 * failed (PascalCase) and whose `loyaltyCode` is the numeric v4.0 code; the
 * renderer writes them in the published body shape `{ code, type, message,
 * documentationUrl, requestId }`, `type` being the code's published category,
 * plus `reason`: the rule's name (a sandbox extension).
 */

/** The published page of the error table (an address, not a link from this repository's docs). */
export const ERROR_DOCUMENTATION_URL = 'https://docs.gameball.co/api-reference/overview/status-error-codes';

type Opts = Omit<AppErrorOptions, 'loyaltyCode'>;
const C = LoyaltyErrorCode;

export const loyaltyErrors = {
  apiKeyInvalid: (message: string) => new AuthenticationError('ApiKeyInvalid', message, { loyaltyCode: C.apiKeyInvalid }),
  secretKeyRequired: (message: string) => new AuthenticationError('SecretKeyRequired', message, { loyaltyCode: C.secretKeyRequired }),
  missingField: (message: string, errors?: FieldError[]) => new BadRequestError('MissingField', message, { loyaltyCode: C.missingField, errors }),
  /** 422/3001: `null` sent for a required field (null for an optional one means "not given"). */
  nullArgument: (message: string, errors?: FieldError[]) => new UnprocessableError('NullArgument', message, { loyaltyCode: C.nullArgument, errors }),
  /** 422/3003; `type` says which rule failed (e.g. OTPRequired, HashInvalid). */
  invalidValue: (message: string, type = 'InvalidValue', opts: Opts = {}) => new UnprocessableError(type, message, { ...opts, loyaltyCode: C.invalidValue }),
  invalidPayload: (message: string) => new BadRequestError('InvalidPayload', message, { loyaltyCode: C.invalidPayload }),
  notFound: (message: string) => new NotFoundError('NotFound', message, { loyaltyCode: C.notFound }),
  customerNotFound: (customerId: string) =>
    new NotFoundError('CustomerNotFound', `Customer "${customerId}" was not found`, { loyaltyCode: C.customerNotFound }),
  alreadyCancelled: (message: string) => new UnprocessableError('AlreadyCancelled', message, { loyaltyCode: C.alreadyCancelled }),
  transactionNotFound: (message: string) => new NotFoundError('TransactionNotFound', message, { loyaltyCode: C.transactionNotFound }),
  /** 422/9004; `type` says which rule failed (e.g. TransactionIdTaken: another request under the id). */
  duplicateTransaction: (message: string, type = 'DuplicateTransaction') => new UnprocessableError(type, message, { loyaltyCode: C.duplicateTransaction }),
  reversedTransactionNotFound: (message: string) => new NotFoundError('ReversedTransactionNotFound', message, { loyaltyCode: C.reversedTransactionNotFound }),
  holdNotFound: (message: string) => new NotFoundError('HoldReferenceNotFound', message, { loyaltyCode: C.holdNotFound }),
  insufficientPoints: (message: string) => new UnprocessableError('InsufficientPoints', message, { loyaltyCode: C.insufficientPoints }),
  rateLimited: (message: string, retryAfterSeconds: number) => new RateLimitedError('RateLimited', message, { loyaltyCode: C.rateLimited, retryAfterSeconds }),
  internal: (message: string) => new InternalError('InternalError', message, { loyaltyCode: C.internal }),
};

/** Errors raised by the platform itself (body parser, unknown route) in v4.0 terms. */
const PLATFORM_CODES: Record<string, { code: number; type: string; status?: number }> = {
  malformed_json: { code: C.invalidPayload, type: 'InvalidPayload' },
  payload_too_large: { code: C.invalidPayload, type: 'PayloadTooLarge' },
  unsupported_encoding: { code: C.invalidPayload, type: 'InvalidPayload' },
  request_aborted: { code: C.invalidPayload, type: 'InvalidPayload' },
  request_size_invalid: { code: C.invalidPayload, type: 'InvalidPayload' },
  request_unreadable: { code: C.invalidPayload, type: 'InvalidPayload' },
  bad_request: { code: C.invalidPayload, type: 'InvalidPayload' },
  body_too_deep: { code: C.invalidPayload, type: 'InvalidPayload' },
  malformed_path: { code: C.invalidValue, type: 'InvalidValue', status: 422 },
  malformed_body_encoding: { code: C.invalidPayload, type: 'InvalidPayload' },
  validation_failed: { code: C.invalidValue, type: 'InvalidValue', status: 422 },
  route_not_found: { code: C.notFound, type: 'NotFound' },
  internal_error: { code: C.internal, type: 'InternalError' },
};

function byStatus(status: number): number {
  if (status === 401) return C.apiKeyInvalid;
  if (status === 404) return C.notFound;
  if (status === 422) return C.invalidValue;
  if (status === 429) return C.rateLimited;
  if (status >= 500) return C.internal;
  return C.invalidPayload;
}

export function toLoyaltyBody(err: AppError, requestId: string): LoyaltyErrorBody {
  const known = PLATFORM_CODES[err.code];
  const code = err.loyaltyCode ?? known?.code ?? byStatus(err.status);
  // A 500 never shows its internals.
  const message = err.status >= 500 ? 'An internal error occurred' : err.message;
  const reason = err.loyaltyCode !== undefined ? err.code : (known?.type ?? err.code);
  return { code, type: loyaltyErrorCategory(code), message, documentationUrl: ERROR_DOCUMENTATION_URL, requestId, reason };
}

/** ErrorRenderer for `errorHandler(logger, renderLoyaltyError)`. */
export function renderLoyaltyError(err: AppError, req: Request, res: Response): void {
  const requestId = requestIdOf(req) || err.id;
  if (!res.getHeader('X-Request-Id')) res.setHeader('X-Request-Id', requestId);
  const body = toLoyaltyBody(err, requestId);
  // The status follows the v4.0 table when the code is one of its own; 413 and friends keep theirs.
  const tableStatus = LOYALTY_ERROR_STATUS[body.code as LoyaltyErrorCode];
  const status = err.loyaltyCode !== undefined && tableStatus !== undefined ? tableStatus : (PLATFORM_CODES[err.code]?.status ?? err.status);
  res.status(status).json(body);
}

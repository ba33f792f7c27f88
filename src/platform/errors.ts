import { randomUUID } from 'node:crypto';

/** One field that failed validation: where it is and what is wrong with it. */
export interface FieldError {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  /** Per-field problems of a validation failure. */
  errors?: FieldError[];
  /** Seconds a caller should wait before trying again (429/503). */
  retryAfterSeconds?: number;
  /** The loyalty v4.0 numeric error code, when the error is rendered in the upstream's shape. */
  loyaltyCode?: number;
  /** Extra, safe-to-show fields for the response body. */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error family of both programs. Every error carries a stable machine
 * `code`, an HTTP `status`, and an `id` that is logged with it so a till's
 * support ticket can be matched to a log line.
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
  readonly id: string = randomUUID();
  readonly errors?: FieldError[];
  readonly retryAfterSeconds?: number;
  readonly loyaltyCode?: number;
  readonly extra?: Record<string, unknown>;

  constructor(
    readonly code: string,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.loyaltyCode = options.loyaltyCode;
    this.extra = options.extra;
  }
}

export class BadRequestError extends AppError {
  readonly status = 400;
}
export class AuthenticationError extends AppError {
  readonly status = 401;
}
export class NotAllowedError extends AppError {
  readonly status = 403;
}
export class NotFoundError extends AppError {
  readonly status = 404;
}
export class MethodNotAllowedError extends AppError {
  readonly status = 405;
}
export class ConflictError extends AppError {
  readonly status = 409;
}
export class RequestTimeoutError extends AppError {
  readonly status = 408;
}
export class PayloadTooLargeError extends AppError {
  readonly status = 413;
}
export class UnsupportedMediaTypeError extends AppError {
  readonly status = 415;
}
export class UnprocessableError extends AppError {
  readonly status = 422;
}
export class HeaderFieldsTooLargeError extends AppError {
  readonly status = 431;
}
export class RateLimitedError extends AppError {
  readonly status = 429;
}
export class InternalError extends AppError {
  readonly status = 500;
}
export class UpstreamError extends AppError {
  readonly status = 502;
}
export class ServiceUnavailableError extends AppError {
  readonly status = 503;
}
export class UpstreamTimeoutError extends AppError {
  readonly status = 504;
}

/** The class of each status an AppError can have: a problem's status picks its class here. */
export const ERROR_CLASS_OF_STATUS = {
  400: BadRequestError,
  401: AuthenticationError,
  403: NotAllowedError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  408: RequestTimeoutError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableError,
  429: RateLimitedError,
  431: HeaderFieldsTooLargeError,
  500: InternalError,
  502: UpstreamError,
  503: ServiceUnavailableError,
  504: UpstreamTimeoutError,
} as const;

export type ErrorStatus = keyof typeof ERROR_CLASS_OF_STATUS;

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

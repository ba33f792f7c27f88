import { z } from 'zod';
import type { OperationId } from '../contract';
import { AppError, ServiceUnavailableError, UpstreamError } from '../platform/errors';
import { problem } from '../platform/problem';
import type { ProblemCode } from '../platform/problem-catalogue';
import { couponError, isCouponRefusal } from './coupon-answers';

/**
 * Upstream answers and transport failures, turned into the platform's own
 * errors. A till only ever sees our code and our message; the upstream's
 * numeric code survives in `loyaltyCode` for support, its text never does.
 */

export type UpstreamFailureKind = 'unavailable' | 'timeout' | 'rate_limited' | 'rejected' | 'duplicate' | 'invalid_response';

/** Our codes, with the kind the outbox and the retry rules act on. */
const KIND_BY_CODE: Partial<Record<ProblemCode, UpstreamFailureKind>> = {
  upstream_unavailable: 'unavailable',
  /** Raised by a circuit breaker policy: nothing was sent, the upstream is considered down. */
  upstream_circuit_open: 'unavailable',
  upstream_timeout: 'timeout',
  upstream_busy: 'rate_limited',
  duplicate_transaction: 'duplicate',
  upstream_invalid_response: 'invalid_response',
  insufficient_points: 'rejected',
  hold_not_active: 'rejected',
  hold_already_cancelled: 'rejected',
  customer_not_found: 'rejected',
  original_transaction_not_found: 'rejected',
  transaction_not_found: 'rejected',
  batch_job_not_found: 'rejected',
  upstream_not_found: 'rejected',
  upstream_rejected: 'rejected',
  channel_field_required: 'rejected',
  otp_invalid: 'rejected',
  hash_invalid: 'rejected',
  rule_not_found: 'rejected',
  refund_exceeds_remaining: 'rejected',
  coupon_unavailable: 'rejected',
  upstream_auth_failed: 'rejected',
  /** No configured key is accepted (./keys): nothing was done, and like an outage it lasts until someone acts. */
  loyalty_key_refused: 'unavailable',
};

/**
 * What kind of upstream failure `err` is, or null when it is not one (a local
 * validation error, a caller abort, a bug). A write that fails with
 * `unavailable`, `timeout` or `rate_limited` is queued in the outbox
 * (src/pos/outbox/forward.ts); the rest reach the till. When the outbox
 * delivers, `duplicate` counts as delivered, those three, `invalid_response`
 * and our keys being refused are retried, and other refusals become dead
 * letters (src/pos/outbox/deliver.ts).
 */
export function upstreamFailureKind(err: unknown): UpstreamFailureKind | null {
  if (!(err instanceof AppError)) return null;
  return KIND_BY_CODE[err.code as ProblemCode] ?? (isCouponRefusal(err.code) ? 'rejected' : null);
}

/**
 * Failures where the request certainly never reached the upstream (connection
 * refused, 429, a policy refusing to send). Even a non-idempotent write may be
 * sent again after one of these. Kept outside the error object so it never
 * shows in a response.
 */
const notDelivered = new WeakSet<object>();
export function markNotDelivered<E extends AppError>(err: E): E {
  notDelivered.add(err);
  return err;
}
export function certainlyNotDelivered(err: unknown): boolean {
  return typeof err === 'object' && err !== null && notDelivered.has(err);
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  // Every HTTP-date form starts with a day name; anything else ("-3", "soon") is unreadable.
  if (!/^[A-Za-z]{3}/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

export function unavailable(cause?: Error, retryAfterSeconds?: number): ServiceUnavailableError {
  return problem('upstream_unavailable', 'The loyalty service is unavailable; try again shortly', { cause, retryAfterSeconds });
}

export function timedOut(timeoutMs: number): ServiceUnavailableError {
  return problem('upstream_timeout', `The loyalty service did not answer within ${timeoutMs} ms; try again shortly`);
}

/** The loyalty service answered 429: over its limits, nothing was applied. */
export function rateLimited(retryAfterSeconds?: number): ServiceUnavailableError {
  return markNotDelivered(problem('upstream_busy', 'The loyalty service is busy; try again shortly', { retryAfterSeconds, loyaltyCode: 429 }));
}

const budgetRefusals = new WeakSet<object>();

/**
 * The fleet's budget for this call is used up until `retryAfterSeconds` from
 * now (the published rate and quota, or a pause after a 429): refused before
 * anything was sent, and final (not retried: the budget already waited as
 * long as the call's priority allows). The same code as an upstream 429: for
 * the till both say "the loyalty service has no room now, come back then".
 */
export function overBudget(retryAfterSeconds: number): ServiceUnavailableError {
  const err = markNotDelivered(
    problem('upstream_busy', 'The loyalty service is at its published limit for this right now; try again shortly', { retryAfterSeconds }),
  );
  budgetRefusals.add(err);
  return err;
}

/** Refused by the fleet's budget (not by the upstream): never retried by the client. */
export function isBudgetRefusal(err: unknown): boolean {
  return typeof err === 'object' && err !== null && budgetRefusals.has(err);
}

/**
 * An upstream 429 the budget has turned into a fleet-wide pause: the client
 * retries it at once, and that attempt's reservation waits out the pause or
 * is refused (`overBudget`) without sending.
 */
const paused = new WeakSet<object>();
export function markPaused<E extends object>(err: E): E {
  paused.add(err);
  return err;
}
export function pausedByBudget(err: unknown): boolean {
  return typeof err === 'object' && err !== null && paused.has(err);
}

export function invalidResponse(): UpstreamError {
  return problem('upstream_invalid_response', 'The loyalty service gave an answer that could not be understood');
}

const keyFailures = new WeakSet<object>();

/**
 * An answer with a published key code (1000 unauthorised, 1001 secret key
 * required or wrong, 1002 forbidden): the service refused our keys before
 * doing anything, so nothing was applied. A 401 or 403 without one of them
 * (a proxy's page) is not taken for a key failure.
 */
function keyFailure(loyaltyCode: number): UpstreamError {
  const err = markNotDelivered(authFailed(loyaltyCode));
  keyFailures.add(err);
  return err;
}

/** An answer with a published key code: the key pair used is refused (./keys tries the other one). */
export function isKeyFailure(err: unknown): err is AppError {
  return typeof err === 'object' && err !== null && keyFailures.has(err);
}

/** A 401 or 403, with or without a key code: refused before anything was done (callers mark it not delivered). */
export function authFailed(loyaltyCode?: number): UpstreamError {
  return problem('upstream_auth_failed', "The loyalty service refused the middleware's credentials; this is a configuration problem, not the till's", {
    loyaltyCode,
  });
}

const REJECTION_SUMMARY: Record<number, string> = {
  3000: 'a required field is missing',
  3003: 'a value is not valid',
  3016: 'the request is not valid',
};

/**
 * A v4.0 error body as the client reads it: only the numeric `code` is needed.
 * `type` is a specific name in our sandbox and a category in the published
 * reference ("Payload Error", PAYLOAD_ERROR); `documentationUrl` and other
 * fields are ignored.
 */
const LoyaltyErrorBody = z.object({
  code: z.union([
    z.number().int(),
    z
      .string()
      .regex(/^[0-9]{1,6}$/)
      .transform(Number),
  ]),
  type: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  /** Our sandbox's name of the rule that refused; the published body has only the category in `type`. */
  reason: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  message: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
});
type LoyaltyErrorBody = z.output<typeof LoyaltyErrorBody>;

/** Maps a v4.0 error body (already parsed) to our error, per DESIGN.md section 4. */
function fromLoyaltyError(operation: OperationId, status: number, body: LoyaltyErrorBody, retryAfterSeconds: number | undefined): AppError {
  const code = body.code;
  const o = { loyaltyCode: code };
  const coupon = couponError(operation, body);
  if (coupon) return coupon;
  switch (code) {
    case 9008:
      return problem('insufficient_points', 'The customer does not have enough points for this', o);
    case 9006:
      return problem('hold_not_active', 'The points hold was not found or is no longer active', o);
    case 9004:
      return problem('duplicate_transaction', 'A transaction with this id was already recorded', o);
    case 7000:
      return problem('customer_not_found', 'The customer was not found in the loyalty programme', o);
    case 9005:
      return problem('original_transaction_not_found', 'The transaction to refund was not found', o);
    case 9002:
      return operation === 'refund'
        ? problem('original_transaction_not_found', 'The transaction to refund was not found', o)
        : problem('transaction_not_found', 'The transaction was not found', o);
    case 9001:
      return problem('hold_already_cancelled', 'The points hold was already cancelled', o);
    case 4004:
      return operation === 'batchStatus'
        ? problem('batch_job_not_found', 'The batch job was not found', o)
        : problem('upstream_not_found', 'The loyalty service has no such resource', o);
    case 1000:
    case 1001:
    case 1002:
      return keyFailure(code);
    case 429:
      return rateLimited(retryAfterSeconds);
    case 3000:
    case 3003:
    case 3016:
      return rejection(operation, code, body);
    default:
      break;
  }
  if (status === 429) return rateLimited(retryAfterSeconds);
  if (status === 401 || status === 403) return markNotDelivered(authFailed(code));
  if (status >= 500) return unavailable(undefined, retryAfterSeconds);
  return problem('upstream_rejected', `The loyalty service refused the ${operation} request (code ${code})`, o);
}

/** What a 3003 is about, by the words it uses: only steers our code. */
const SUBJECTS: [RegExp, (o: { loyaltyCode: number }) => AppError][] = [
  [/otp/i, (o) => problem('otp_invalid', 'The one-time password is missing, wrong or expired', o)],
  [/hash/i, (o) => problem('hash_invalid', "The customer's hash is wrong or out of date; scan the customer's code again", o)],
  [/rule/i, (o) => problem('rule_not_found', "The redemption rule is not one of this loyalty programme's rules", o)],
  [/refund/i, (o) => problem('refund_exceeds_remaining', 'The refund is more than what is left to refund on that sale', o)],
  [/coupon/i, (o) => problem('coupon_unavailable', 'A coupon code is unknown, not offered to this customer, or not usable now', o)],
];

/**
 * 3003 is also how the upstream says "wrong OTP" or "wrong hash": its `type`
 * tells which (our sandbox), or, where `type` is only a category ("Payload
 * Error" in the published reference), its message. It only steers our code;
 * the upstream's text never reaches a till.
 */
function rejection(operation: OperationId, code: number, body: LoyaltyErrorBody): AppError {
  const channelField = code === 3000 ? missingChannelField(body) : undefined;
  if (channelField) return channelFieldRequired(channelField);
  if (code === 3003) {
    for (const text of [body.reason, body.type, body.message]) {
      const subject = SUBJECTS.find(([pattern]) => pattern.test(text));
      if (subject) return subject[1]({ loyaltyCode: code });
    }
  }
  return problem('upstream_rejected', `The loyalty service refused the ${operation} request: ${REJECTION_SUMMARY[code]} (code ${code})`, { loyaltyCode: code });
}

/**
 * 3000 naming `email` or `mobile`: the account merges a customer's channels
 * (online and till ids) by that field, so it must come with every customer
 * request. Only the upstream's message says which field (the published error
 * body has no per-field list); it steers our answer, its text is not passed on.
 */
function missingChannelField(body: LoyaltyErrorBody): 'email' | 'mobile' | undefined {
  const named = /\b(email|mobile)\b/i.exec(body.message)?.[1].toLowerCase();
  return named === 'email' || named === 'mobile' ? named : undefined;
}

function channelFieldRequired(field: 'email' | 'mobile'): AppError {
  return problem('channel_field_required', `This loyalty account joins a customer's profiles by ${field}: send the customer's ${field} with this request`, {
    loyaltyCode: 3000,
    errors: [{ path: field, message: `required: the loyalty account merges customer channels by ${field}` }],
  });
}

/**
 * A non-2xx answer to our error. `json` is the parsed body, or undefined when
 * the body was not JSON (a proxy's HTML page, an empty 503).
 */
export function fromUpstreamStatus(operation: OperationId, status: number, json: unknown, retryAfterSeconds: number | undefined): AppError {
  const parsed = LoyaltyErrorBody.safeParse(json);
  if (parsed.success) return fromLoyaltyError(operation, status, parsed.data, retryAfterSeconds);
  if (status === 429) return rateLimited(retryAfterSeconds);
  if (status >= 500) return unavailable(undefined, retryAfterSeconds);
  if (status === 401 || status === 403) return markNotDelivered(authFailed());
  // A redirect, or a 4xx without a v4.0 body: most likely not the loyalty service at all.
  return invalidResponse();
}

/** Transport codes meaning the connection was never made, so nothing was sent. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * A transport failure (no HTTP answer) to our error. The cause keeps only the
 * system code and axios' short message, never the request config (which
 * carries the keys in its headers).
 */
export function fromTransportFailure(code: string | undefined, message: string, timeoutMs: number): AppError {
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED') return timedOut(timeoutMs);
  if (code === 'ERR_BAD_RESPONSE') return invalidResponse();
  const err = unavailable(new Error(`${code ?? 'ERR_UNKNOWN'}: ${message.slice(0, 200)}`));
  return code && NEVER_CONNECTED.has(code) ? markNotDelivered(err) : err;
}

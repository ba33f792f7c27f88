import { AppError } from '../../platform/errors';
import { isProblem } from '../../platform/problem';
import type { ProblemCode } from '../../platform/problem-catalogue';
import { nothingSent, RETRY_SAME_REQUEST } from '../../upstream';

/**
 * Codes that mean "nothing was done, try again": storing them would replay a
 * transient refusal for 24 hours.
 */
const NOTHING_DONE_CODES: ProblemCode[] = [
  // The start waits for a manager's approval: the same request again (same key) is how the cashier gets the approved stand-in.
  'stand_in_needs_approval',
  'redis_unavailable',
  'redemption_busy',
  'coupon_lock_busy',
  'sale_busy',
  'sale_owner_unreadable',
];

/**
 * Codes that mean "the upstream may have acted and the BFF could not record
 * it; send the same request again". Their key is neither stored (a replay
 * would repeat "retry" for 24 hours) nor freed (the answer must not read as
 * "nothing was done"): it stays claimed until its lease lapses, and the retry
 * then runs again, which the upstream de-duplicates by payment or refund id.
 */
const RETRY_SAME_CODES: ProblemCode[] = [RETRY_SAME_REQUEST];

/** `leave`: neither stored nor released (see RETRY_SAME_CODES). */
export function keyOutcome(status: number, err?: unknown): 'keep' | 'release' | 'leave' {
  if (isProblem(err, ...RETRY_SAME_CODES)) return 'leave';
  return keepsResponse(status, err) ? 'keep' : 'release';
}

/**
 * Whether a response is kept for replay, or the key released for a new try.
 *
 * Kept: every 2xx/3xx; 409 and 422 (the operation ran and refused, e.g. a hold
 * not active, a duplicate payment); every 5xx (the upstream may have acted:
 * a timeout or an outage is replayed, so a second try needs a new key, or the
 * same paymentId/refundId, which the upstream de-duplicates).
 *
 * Released: the other 4xx (validation, 401/403, unknown route, 413/415, a 404
 * from a lookup: the request was wrong and did nothing), and failures that
 * certainly reached nothing: Redis unavailable, a CAS round-out, an upstream
 * call refused before sending (circuit open, fleet rate limit, connection refused)
 * when no earlier attempt of it may have landed.
 */
export function keepsResponse(status: number, err?: unknown): boolean {
  if (status < 400) return true;
  if (err !== undefined) {
    if (nothingSent(err)) return false;
    if (isProblem(err, ...NOTHING_DONE_CODES)) return false;
  }
  return status === 409 || status === 422 || status >= 500;
}

/** Whether the till was told "nothing was done" for this failure (its key freed for a new try): the audit trail records it as refused, not unknown. */
export function toldNothingDone(err: unknown): boolean {
  return keyOutcome(err instanceof AppError ? err.status : 500, err) === 'release';
}

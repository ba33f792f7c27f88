import { AppError, ServiceUnavailableError } from '../platform/errors';
import { isProblem, problem } from '../platform/problem';
import { certainlyNotDelivered } from './errors';

/**
 * What became of one upstream write, decided here and nowhere else:
 * - `applied`: the upstream answered 2xx, or answered "duplicate" and its own
 *   record shows this very write (`body` is then absent);
 * - `refused`: the write was certainly not applied (a 4xx refusal, a call that
 *   never left this BFF, or a duplicate whose id the record shows is another's);
 * - `unknown`: it may have been applied (timeout, 5xx, an answer that could not
 *   be read, any attempt of it that may have landed, a record that could not be read).
 */
export type WriteOutcome<T> = { kind: 'applied'; body: T | undefined } | { kind: 'refused'; error: AppError } | { kind: 'unknown'; error: unknown };

/**
 * Errors of a call some earlier attempt of which may have been applied. Retries
 * keep the worst: once an attempt may have landed, whatever refuses a later one
 * (an open circuit, a 429, a duplicate) says nothing about the first.
 */
const mayHaveLanded = new WeakSet<object>();

export function markMayHaveLanded<E>(err: E): E {
  if (typeof err === 'object' && err !== null) mayHaveLanded.add(err);
  return err;
}

/** Some earlier attempt of the call that ended in `err` may have landed (a duplicate answer may then be the call's own write). */
export const earlierAttemptMayHaveLanded = (err: unknown): boolean => typeof err === 'object' && err !== null && mayHaveLanded.has(err);

const isDuplicate = (err: unknown) => isProblem(err, 'duplicate_transaction');

/** Certainly nothing reached the upstream: no attempt of the call may have landed. */
export function nothingSent(err: unknown): boolean {
  return certainlyNotDelivered(err) && !(typeof err === 'object' && err !== null && mayHaveLanded.has(err));
}

/** A failed write read on its own: refused, unknown, or a duplicate that only the upstream's record can settle. */
export function failureOf(err: unknown): 'refused' | 'unknown' | 'duplicate' {
  if (isDuplicate(err)) return 'duplicate';
  if (!(err instanceof AppError)) return 'unknown';
  if (typeof err === 'object' && mayHaveLanded.has(err)) return 'unknown';
  if (certainlyNotDelivered(err)) return 'refused';
  // Our own refusals before sending (validation, 4xx of this BFF) and the upstream's 4xx.
  return err.status < 500 ? 'refused' : 'unknown';
}

/**
 * Sends a write and reads its outcome. `onRecord` is asked only after a
 * duplicate answer: true when the upstream's own record of that id is this
 * very write (so it was applied, now or by an attempt whose answer was lost).
 */
export async function writeOutcome<T>(send: () => Promise<T>, onRecord: (duplicate: AppError) => Promise<boolean>): Promise<WriteOutcome<T>> {
  try {
    return { kind: 'applied', body: await send() };
  } catch (err) {
    const failure = failureOf(err);
    if (failure === 'refused') return { kind: 'refused', error: err as AppError };
    if (failure === 'unknown') return { kind: 'unknown', error: err };
    try {
      return (await onRecord(err as AppError)) ? { kind: 'applied', body: undefined } : { kind: 'refused', error: err as AppError };
    } catch (readErr) {
      return { kind: 'unknown', error: readErr };
    }
  }
}

/** The code of an answer that says: the upstream may have acted, this BFF has not recorded it; send the same request again. */
export const RETRY_SAME_REQUEST = 'retry_same_request';

/**
 * What the till hears when a write may have been applied: never "nothing was
 * done" (a till that believed it and started over would redeem twice). The
 * idempotency layer neither stores nor frees the key for this code, and the
 * record is settled from the upstream.
 */
export function maybeApplied(what: string, cause: unknown): ServiceUnavailableError {
  return problem(
    RETRY_SAME_REQUEST,
    `${what} may have been applied by the loyalty service, but it could not be confirmed or recorded here; send the same request again (same Idempotency-Key, same ids), do not start over`,
    { retryAfterSeconds: 1, cause },
  );
}

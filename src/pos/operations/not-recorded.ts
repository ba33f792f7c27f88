import { ServiceUnavailableError } from '../../platform/errors';

/** The code of an answer that says: the upstream may have acted, this BFF could not record it; send the same request again. */
export const RETRY_SAME_REQUEST = 'retry_same_request';

/**
 * After an upstream write that may have happened, a local failure (Redis down,
 * a write that kept losing its compare-and-set) must not read as "nothing was
 * done": a till that believed it and started over would redeem twice. The
 * idempotency layer neither stores nor frees the key for this code (see
 * idempotency/outcome.ts), and the record is repaired from the upstream.
 */
export function notRecorded(what: string, cause: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError(
    RETRY_SAME_REQUEST,
    `${what} may have been applied by the loyalty service, but it could not be recorded here; send the same request again (same Idempotency-Key, same ids), do not start over`,
    { retryAfterSeconds: 1, cause },
  );
}

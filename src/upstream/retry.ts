import type { OperationId } from '../contract';
import { ServiceUnavailableError } from '../platform/errors';
import { isProblem, problem } from '../platform/problem';
import { certainlyNotDelivered, isBudgetRefusal, pausedByBudget, upstreamFailureKind } from './errors';
import { markMayHaveLanded } from './outcome';

/**
 * Which calls may be sent again after an unknown outcome (timeout, 5xx, reset):
 * reads, and the writes whose own ids make the upstream refuse a second copy
 * (payment: `paymentId`, tracked order: `orderId`, redeem: `transactionId`, refund: `refundTransactionId`), and the customer
 * upsert (keyed by `customerId`, so a second copy changes nothing more). A hold, an OTP, events,
 * a batch upload, a hold release or a deletion could be applied twice, so they
 * are only sent again when the first attempt certainly never arrived
 * (connection refused, 429).
 */
export const RETRY_SAFE: Readonly<Record<OperationId, boolean>> = {
  hold: false,
  batchOrders: false,
  payment: true,
  trackOrder: true,
  coupons: true,
  // Deduplicated by the caller's transactionId (a second copy is refused 9004).
  redeem: true,
  refund: true,
  tierProgress: true,
  deleteCustomer: false,
  deleteCustomerPost: false,
  hash: true,
  events: false,
  holdLookup: true,
  holdCancel: false,
  otp: false,
  balance: true,
  batchStatus: true,
  // A lock made twice holds the coupons twice; burn and release are not repeatable either.
  couponsValidate: false,
  couponValidate: false,
  couponBurn: false,
  couponRelease: false,
  rewardPreview: true,
  orderTransactions: true,
  transactions: true,
  redemptionConfig: true,
  // Get-or-create by customerId: a second copy updates the same profile with the same fields.
  upsertCustomer: true,
};

export interface RetryTuning {
  /** Attempts after the first. */
  retries: number;
  /** First backoff step; doubles per attempt. */
  baseDelayMs: number;
  /** Ceiling of one backoff step. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error goes to the caller (who may queue). */
  maxRetryAfterSeconds: number;
}

export const DEFAULT_RETRY_TUNING: Omit<RetryTuning, 'retries'> = {
  baseDelayMs: 100,
  maxDelayMs: 2000,
  maxRetryAfterSeconds: 5,
};

/** Waits `ms`, or rejects early when `signal` aborts. Tests inject a recording one. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The caller gave up (its till disconnected, it is shutting down). Not an upstream failure. */
export function aborted(): ServiceUnavailableError {
  return problem('upstream_call_aborted', 'The call to the loyalty service was cancelled');
}

/**
 * How long to wait before attempt `attempt + 1`, or null to give up now.
 * `attempt` counts from 1 (the attempt that just failed).
 */
export function nextDelayMs(err: unknown, operation: OperationId, attempt: number, tuning: RetryTuning, random: () => number): number | null {
  if (attempt > tuning.retries) return null;
  const kind = upstreamFailureKind(err);
  if (kind !== 'unavailable' && kind !== 'timeout' && kind !== 'rate_limited') return null;
  if (isProblem(err, 'upstream_circuit_open') || isBudgetRefusal(err)) return null;
  if (!RETRY_SAFE[operation] && !certainlyNotDelivered(err)) return null;
  // The budget's reservation for the next attempt waits out the pause, or refuses at once.
  if (pausedByBudget(err)) return 0;
  const retryAfter = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
  if (retryAfter !== undefined) {
    return retryAfter <= tuning.maxRetryAfterSeconds ? retryAfter * 1000 : null;
  }
  // "Equal jitter": never zero, never in lockstep with the other instances.
  const step = Math.min(tuning.maxDelayMs, tuning.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** What an attempt learns about the attempts before it. */
export interface AttemptState {
  /** 1 for the first attempt. */
  attempt: number;
  /** An earlier attempt may have been applied upstream (its answer was lost). */
  earlierMayHaveLanded: boolean;
}

export interface RetryRun {
  operation: OperationId;
  tuning: RetryTuning;
  sleep: Sleep;
  random: () => number;
  signal?: AbortSignal;
  /** Epoch ms by which an attempt must be over (the till's deadline, for reads), if any: no retry starts that cannot end by then. */
  deadline?: () => number | undefined;
  onRetry?: (attempt: number, delayMs: number, err: unknown) => void;
}

/** The least time a retry needs to be worth sending before a deadline. */
const MIN_ATTEMPT_MS = 100;

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries run out.
 * The error it ends with carries the worst of the attempts: if any of them may
 * have landed, so may the call (see ./outcome).
 */
export async function withRetries<T>(run: RetryRun, attemptOnce: (state: AttemptState) => Promise<T>): Promise<T> {
  let earlierMayHaveLanded = false;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await attemptOnce({ attempt, earlierMayHaveLanded });
    } catch (err) {
      const final = (e: unknown) => (earlierMayHaveLanded ? markMayHaveLanded(e) : e);
      if (run.signal?.aborted) throw final(err);
      const delay = nextDelayMs(err, run.operation, attempt, run.tuning, run.random);
      if (delay === null) throw final(err);
      const deadline = run.deadline?.();
      if (deadline !== undefined && Date.now() + delay + MIN_ATTEMPT_MS > deadline) throw final(err);
      if (!certainlyNotDelivered(err)) earlierMayHaveLanded = true;
      run.onRetry?.(attempt, delay, err);
      await run.sleep(delay, run.signal).catch((e: unknown) => {
        throw final(e);
      });
    }
  }
}

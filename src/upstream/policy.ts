import type { LimitBucket, OperationId } from '../contract';

/**
 * The seam for upstream protection (circuit breaker, the fleet's budget):
 * a policy wraps every attempt the client sends, so it sees each HTTP exchange
 * and can refuse one before it goes out. Retries stay in the client, outside
 * the policies: an attempt refused by a breaker or by the budget is not
 * retried (the budget already waited as long as the call's priority allows).
 *
 * A policy that refuses MUST throw a platform AppError, and mark it with
 * `markNotDelivered` (nothing was sent), e.g.
 *   - breaker open: `markNotDelivered(problem('upstream_circuit_open', ...))`
 *   - no budget in time: `overBudget(seconds)` from ./errors
 * so `upstreamFailureKind` and the retry rules treat it correctly. A breaker
 * counts failures with `upstreamFailureKind(err)` ('unavailable' | 'timeout').
 */
export interface CallInfo {
  operation: OperationId;
  method: 'GET' | 'POST' | 'DELETE';
  /** Which published limit (rate and 30-s quota) this call counts against. */
  bucket: LimitBucket;
  priority: CallPriority;
  /** 1 for the first attempt of a call. */
  attempt: number;
  requestId: string;
  signal?: AbortSignal;
  /** Epoch ms the till stops waiting (`Prefer: wait`), while it waits: a policy must not hold the call past it. */
  deadline?: number;
  /** The bucket the next step of the write this call starts will use (a hold's sale); see LoyaltyCallContext. */
  thenNeeds?: LimitBucket;
}

/**
 * Who is waiting for a call, which decides who gets the loyalty service's
 * budget when it runs short:
 * - `secondLeg`: the second step of a checkout already under way (the payment
 *   naming a held redemption or a locked coupon, the OTP step). Points or
 *   coupons are held, so it must not fail for want of budget: it may use all of it;
 * - `cashier`: any other call a till waits for (the default);
 * - `background`: work nobody waits for (outbox deliveries, sweeps, repairs,
 *   refreshes). It goes only in budget the others leave free, never waits
 *   long, and catches up after the peak.
 */
export type CallPriority = 'secondLeg' | 'cashier' | 'background';

export const CALL_PRIORITIES: readonly CallPriority[] = ['secondLeg', 'cashier', 'background'];

export type CallPolicy = <T>(info: CallInfo, next: () => Promise<T>) => Promise<T>;

/** Policies in order, the first outermost. */
export function composePolicies(policies: readonly CallPolicy[]): CallPolicy {
  return <T>(info: CallInfo, next: () => Promise<T>): Promise<T> =>
    policies.reduceRight<() => Promise<T>>((inner, policy) => () => policy(info, inner), next)();
}

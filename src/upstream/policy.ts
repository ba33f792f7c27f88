import type { OperationId } from '../contract';

/**
 * The seam for upstream protection (circuit breaker, fleet rate limiter):
 * a policy wraps every attempt the client sends, so it sees each HTTP exchange
 * and can refuse one before it goes out. Retries stay in the client, outside
 * the policies: an attempt refused by a breaker is not retried; one refused by
 * a limiter with a short `retryAfterSeconds` is, like an upstream 429.
 *
 * A policy that refuses MUST throw a platform AppError, and mark it with
 * `markNotDelivered` (nothing was sent), e.g.
 *   - breaker open: `markNotDelivered(problem('upstream_circuit_open', ...))`
 *   - over the fleet limit: `rateLimited(seconds)` from ./errors
 * so `upstreamFailureKind` and the retry rules treat it correctly. A breaker
 * counts failures with `upstreamFailureKind(err)` ('unavailable' | 'timeout').
 */
export interface CallInfo {
  operation: OperationId;
  method: 'GET' | 'POST' | 'DELETE';
  /** Which published upstream rate limit this call counts against. */
  rateGroup: RateGroup;
  /** 1 for the first attempt of a call. */
  attempt: number;
  requestId: string;
  signal?: AbortSignal;
}

export type CallPolicy = <T>(info: CallInfo, next: () => Promise<T>) => Promise<T>;

/**
 * The loyalty service's published limits (DESIGN.md section 4): about 30/s for
 * transactions, coupons and orders; about 100/s for customer reads and events.
 */
export type RateGroup = 'transactions' | 'coupons' | 'orders' | 'customers' | 'events';

export const RATE_GROUP: Readonly<Record<OperationId, RateGroup>> = {
  hold: 'transactions',
  payment: 'transactions',
  refund: 'transactions',
  holdLookup: 'transactions',
  holdCancel: 'transactions',
  otp: 'transactions',
  coupons: 'coupons',
  batchOrders: 'orders',
  batchStatus: 'orders',
  tierProgress: 'customers',
  deleteCustomer: 'customers',
  deleteCustomerPost: 'customers',
  hash: 'customers',
  balance: 'customers',
  events: 'events',
  couponsValidate: 'coupons',
  couponValidate: 'coupons',
  couponBurn: 'coupons',
  couponRelease: 'coupons',
  rewardPreview: 'orders',
  orderTransactions: 'orders',
  redemptionConfig: 'customers',
  upsertCustomer: 'customers',
};

/** Policies in order, the first outermost. */
export function composePolicies(policies: readonly CallPolicy[]): CallPolicy {
  return <T>(info: CallInfo, next: () => Promise<T>): Promise<T> =>
    policies.reduceRight<() => Promise<T>>((inner, policy) => () => policy(info, inner), next)();
}

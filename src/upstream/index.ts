export { LoyaltyClient } from './client';
export type { PaymentOutcome, RefundOutcome, TierExpansion, TierProgressOptions } from './client';
export type { CallRequest, LoyaltyCallContext, LoyaltyClientOptions, ResponseOf, UpstreamCallEvent, UpstreamOutcome, WriteOutcome } from './call';
export {
  certainlyNotDelivered,
  markNotDelivered,
  parseRetryAfter,
  rateLimited,
  upstreamFailureKind,
} from './errors';
export type { UpstreamFailureKind } from './errors';
export { composePolicies, RATE_GROUP } from './policy';
export type { CallInfo, CallPolicy, RateGroup } from './policy';
export { DEFAULT_RETRY_TUNING, DUPLICATE_MEANS_APPLIED, RETRY_SAFE } from './retry';
export type { RetryTuning, Sleep } from './retry';

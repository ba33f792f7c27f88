export { LoyaltyClient } from './client';
export type { OtpCall, TierExpansion, TierProgressOptions } from './client';
export { ANSWERS } from './answers';
export type {
  AnswerOf,
  BalanceAnswer,
  BatchItemFailure,
  BatchJobState,
  BatchOrdersAnswer,
  BatchStatusAnswer,
  CouponsAnswer,
  HashAnswer,
  HoldAnswer,
  HoldLookupAnswer,
  HoldStateRead,
  PaymentAnswer,
  RedeemAnswer,
  RefundAnswer,
  SaleAnswer,
  TierProgressAnswer,
} from './answers';
export { upstreamTime } from './date-time';
export type { CallRequest, LoyaltyCallContext, LoyaltyClientOptions, ResponseOf, UpstreamCallEvent, UpstreamOutcome } from './call';
export { certainlyNotDelivered, isBudgetRefusal, markNotDelivered, overBudget, parseRetryAfter, rateLimited, upstreamFailureKind } from './errors';
export type { UpstreamFailureKind } from './errors';
export { CALL_PRIORITIES, composePolicies } from './policy';
export type { CallInfo, CallPolicy, CallPriority } from './policy';
export { DEFAULT_RETRY_TUNING, RETRY_SAFE } from './retry';
export { earlierAttemptMayHaveLanded, failureOf, markMayHaveLanded, maybeApplied, nothingSent, RETRY_SAME_REQUEST, writeOutcome } from './outcome';
export type { WriteOutcome } from './outcome';
export { CENT, isPaymentLine, isRedeemLine, isRefundLine, paymentLine, redeemLinesOf, refundLines, transactionsOf } from './records';
export type { RetryTuning, Sleep } from './retry';
export { keyFingerprint, LoyaltyKeys } from './keys';
export type { KeySlot, KeyState, KeyVerdict, LoyaltyKeyPair } from './keys';
export { currentTill, isReadCall, tillDeadlineReached, TillWait, withTill } from './till';
export type { TillPhase } from './till';
export { asTrackedOrder, encodingMark, encodingOf, orderLine, saleBucket, sendSale } from './sale-encoding';
export type { SaleEncoding } from './sale-encoding';

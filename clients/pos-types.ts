/**
 * A name for every request and answer of the cashier API, derived from the
 * generated types (pos-v1.d.ts, written by `npm run openapi`), so each stays
 * exactly what the OpenAPI document says. Answers the document gives inline
 * are named here by operation and status; those it names itself
 * (components.schemas) come out the same way.
 */
import type { components, operations } from './pos-v1';

type Operation = keyof operations;
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON answer of an operation with one status. */
export type Answer<O extends Operation, S extends keyof operations[O]['responses']> = Json<operations[O]['responses'][S]>;
/**
 * The problem answer of an operation with one status: its `code` is one of the
 * codes the document lists for that operation and status, e.g.
 * `ProblemOf<'recordPayment', 409>['code']` is `'payment_id_taken' | 'write_unconfirmed' | ...`.
 */
export type ProblemOf<O extends Operation, S extends keyof operations[O]['responses']> = operations[O]['responses'][S] extends {
  content: { 'application/problem+json': infer P };
}
  ? P
  : never;
/** The JSON request body of an operation. */
export type Body<O extends Operation> = Json<NonNullable<operations[O]['requestBody']>>;

// Customers
export type CustomerSummary = Answer<'getCustomerSummary', 200>;
export type RegisterCustomerRequest = Body<'registerCustomer'>;
export type CustomerRegistration = Answer<'registerCustomer', 200>;
export type CustomerDeleted = Answer<'deleteCustomer', 200>;
export type CustomerDeletedByPost = Answer<'deleteCustomerPost', 200>;
export type CustomerHash = Answer<'getCustomerHash', 200>;

// Redemptions
export type RedemptionOptions = Answer<'listRedemptionOptions', 200>;
export type StartRedemptionRequest = Body<'startRedemption'>;
export type Redemption = Answer<'startRedemption', 201>;
export type SubmitOtpRequest = Body<'submitRedemptionOtp'>;
export type RedemptionAfterOtp = Answer<'submitRedemptionOtp', 200>;
export type RedemptionView = Answer<'getRedemption', 200>;
export type VoidedRedemption = Answer<'voidRedemption', 200>;
export type ApprovedStandIn = Answer<'approveStandInRedemption', 200>;

// Sales and refunds
export type PaymentRequest = Body<'recordPayment'>;
export type PaymentResult = Answer<'recordPayment', 201>;
export type QueuedPayment = Answer<'recordPayment', 202>;
export type PaymentRecord = Answer<'getPayment', 200>;
export type SaleVoidRequest = Body<'voidSale'>;
export type SaleVoidResult = Answer<'voidSale', 200>;
export type QueuedSaleVoid = Answer<'voidSale', 202>;
export type RefundRequest = Body<'refund'>;
export type RefundResult = Answer<'refund', 201>;
export type QueuedRefund = Answer<'refund', 202>;
export type RefundRecord = Answer<'getRefund', 200>;

// Coupons and earn preview
export type CouponCheckRequest = Body<'checkCoupons'>;
export type CouponCheck = Answer<'checkCoupons', 200>;
export type CouponLockRequest = Body<'lockCoupons'>;
export type CouponLock = Answer<'lockCoupons', 201>;
export type CouponLockView = Answer<'getCouponLock', 200>;
export type ReleasedCouponLock = Answer<'releaseCouponLock', 200>;
export type EarnPreviewRequest = Body<'previewEarn'>;
export type EarnPreview = Answer<'previewEarn', 200>;

// Events, offline orders, the outbox
export type EventsRequest = Body<'recordEvents'>;
export type EventsAccepted = Answer<'recordEvents', 200>;
export type QueuedEvents = Answer<'recordEvents', 202>;
export type OrderBatchRequest = Body<'uploadOrders'>;
export type OrderBatchUpload = Answer<'uploadOrders', 202>;
export type OrderBatchStatus = Answer<'getOrderBatch', 200>;
export type OutboxEntry = Answer<'getOutboxEntry', 200>;
export type DeadLetters = Answer<'listDeadLetters', 200>;
export type RetriedDeadLetter = Answer<'retryDeadLetter', 200>;
export type DiscardedDeadLetter = Answer<'discardDeadLetter', 200>;
export type DeletedDeadLetter = Answer<'deleteDeadLetter', 200>;

// Store managers: the audit trail and the day's reconciliation
export type AuditTrail = Answer<'getAuditTrail', 200>;
/** The abuse signals of a store's day (manager). */
export type AbuseSignals = Answer<'getAbuseSignals', 200>;
export type Reconciliation = Answer<'getReconciliation', 200>;

// The till's deadline: a write still under way at `Prefer: wait` is answered 202 pending (read it back at its Location)
export type PendingAnswer = components['schemas']['PendingAnswer'];
export type RegistrationPending = Answer<'registerCustomer', 202>;
export type DeletionPending = Answer<'deleteCustomer', 202>;
export type DeletionByPostPending = Answer<'deleteCustomerPost', 202>;
export type RedemptionPending = Answer<'startRedemption', 202>;
export type OtpStepPending = Answer<'submitRedemptionOtp', 202>;
export type RedemptionVoidPending = Answer<'voidRedemption', 202>;
export type CouponLockPending = Answer<'lockCoupons', 202>;
export type CouponReleasePending = Answer<'releaseCouponLock', 202>;
/** `GET /pos/v1/answers/{requestId}` while the write still runs. */
export type AnswerStillPending = Answer<'readAnswer', 202>;
export type PaymentReceipt = Answer<'getPaymentReceipt', 200>;

// Health
export type Health = Answer<'getHealth', 200>;
export type Readiness = Answer<'getReadiness', 200>;

/** Every error answer: RFC 9457 problem details with a stable `code` (the README's error table). */
export type Problem = components['schemas']['Problem'];

import { z } from 'zod';
import {
  CouponsValidateAnswer,
  CouponValidateAnswer,
  OrderTransactionsAnswer,
  RedemptionConfigAnswer,
  RewardPreviewAnswer,
  TransactionsAnswer,
} from './coupon-answers';
import type { OperationId } from '../contract';

/**
 * The client's reading of each v4.0 answer: a tolerant reader. It checks only
 * what the BFF uses from an answer, so unknown fields pass, numbers may come
 * as numeric strings (`holdAmount: "5"` in the published examples), date-times
 * without an offset are UTC, fields the reference leaves optional may be
 * absent or `null`, and an empty body is fine where the BFF needs nothing.
 * A missing or unusable field the BFF does use fails the parse with that
 * field's path, which the caller logs (`upstream_invalid_response`).
 *
 * Writes (hold, payment, refund) differ in one way: once the upstream said
 * 2xx the write happened, so their figures are informative and a figure that
 * cannot be read is treated as absent, never as a failure. Only what the BFF
 * cannot go on without (a hold's reference) is required.
 *
 * The strict `src/contract` schemas describe what the sandbox answers; this
 * module does not depend on them.
 */

import { Anything, Count, DateTimeMs, figure, NonEmptyText, Num, optional, Text, writeBody } from './readers';

export const HoldAnswer = writeBody({
  /** Without it the hold can be neither used nor released. */
  holdReference: NonEmptyText,
  customerId: figure(Text),
  holdAmount: figure(Num),
  holdEquivalentPoints: figure(Num),
});

/** What a hold is now. The reference documents Active, Expired, Used; older sandboxes wrote held, redeemed, released. */
export type HoldStateRead = 'active' | 'used' | 'expired' | 'released' | 'unknown';
const HOLD_STATES: Record<string, HoldStateRead> = {
  active: 'active',
  held: 'active',
  used: 'used',
  redeemed: 'used',
  expired: 'expired',
  released: 'released',
  cancelled: 'released',
  canceled: 'released',
};

export const HoldLookupAnswer = z.object({
  /** Epoch ms. */
  dateToExpire: DateTimeMs,
  state: optional(z.string()).transform((s): HoldStateRead | undefined => {
    if (s === undefined) return undefined;
    const k = s.trim().toLowerCase();
    return Object.hasOwn(HOLD_STATES, k) ? HOLD_STATES[k] : 'unknown';
  }),
  customerId: optional(Text),
  holdAmount: optional(Num),
  holdEquivalentPoints: optional(Num),
});

/** One line of a payment answer. Built once: zod compiles an object schema on its first parse, so one built per line cost a compile per line. */
const PaymentAnswerLine = z.object({ serviceId: NonEmptyText, points: Num });

export const PaymentAnswer = writeBody({
  customerId: figure(Text),
  redeemedPoints: figure(Num),
  rewardedPoints: figure(Num),
  /** Lines without a service id or points are left out. */
  paymentDetails: figure(z.array(z.unknown())).transform((lines) =>
    (lines ?? []).flatMap((l) => {
      const line = PaymentAnswerLine.safeParse(l);
      return line.success ? [line.data] : [];
    }),
  ),
});

const OrderAnswerLine = z.object({ productId: NonEmptyText, points: Num });

/**
 * A tracked order's answer, read into a payment answer's shape (the sale's
 * lines by their product id, which is the sale line's service id), so a sale
 * reads the same whichever way it was recorded. The published schema names
 * the figures `rewardedPoints` and `redeemedPoints`; the POS guide's example
 * shows `pointsEarned` and `pointsRedeemed`: either is read.
 */
export const TrackOrderAnswer = writeBody({
  customerId: figure(Text),
  redeemedPoints: figure(Num),
  rewardedPoints: figure(Num),
  pointsRedeemed: figure(Num),
  pointsEarned: figure(Num),
  lineItems: figure(z.array(z.unknown())),
}).transform((a) => ({
  customerId: a.customerId,
  redeemedPoints: a.redeemedPoints ?? a.pointsRedeemed,
  rewardedPoints: a.rewardedPoints ?? a.pointsEarned,
  paymentDetails: (a.lineItems ?? []).flatMap((l) => {
    const line = OrderAnswerLine.safeParse(l);
    return line.success ? [{ serviceId: line.data.productId, points: line.data.points }] : [];
  }),
}));

/** A redemption by points or amount (POST /transactions/redeem): the points and money it took. */
export const RedeemAnswer = writeBody({
  gameballTransactionId: figure(Text),
  transactionId: figure(Text),
  redeemAmount: figure(Num),
  redeemEquivalentPoints: figure(Num),
});

export const RefundAnswer = writeBody({
  gameballTransactionId: figure(NonEmptyText),
  refundTransactionId: figure(Text),
  refundAmount: figure(Num),
  refundEquivalentPoints: figure(Num),
});

/** Only the available balance is essential (it decides a redemption); the rest is shown when present. */
export const BalanceAnswer = z.object({
  customerId: optional(Text),
  availablePointsBalance: Num,
  availablePointsValue: optional(Num),
  totalPointsBalance: optional(Num),
  totalPointsValue: optional(Num),
  pendingPoints: optional(Num),
  pendingPointsValue: optional(Num),
  heldPoints: optional(Num),
  totalEarnedPoints: optional(Num),
  currency: optional(z.string()),
  pointsName: optional(z.string()),
  /** Only printed on the receipt: an unreadable value (our sandbox's "" when nothing expires) is the same as none. */
  nextExpiringPointsAmount: figure(Num),
  nextExpiringPointsValue: figure(Num),
  nextExpiringPointsDate: figure(DateTimeMs),
});

const CurrentTier = z.object({ name: z.string(), order: optional(Num), minProgress: optional(Num) });
const NextTier = z.object({ name: optional(z.string()), order: optional(Num), minProgress: optional(Num) });

/**
 * `next` is null (our sandbox, for a top-tier customer) or an object (the
 * reference's schema wants one). An object without a name, or naming the
 * current tier or one not above it, means there is no next tier: null.
 */
export const TierProgressAnswer = z.object({ current: CurrentTier, next: optional(NextTier), progress: Num }).transform(({ current, next, progress }) => {
  const above =
    next?.name !== undefined && next.name !== current.name && !(next.order !== undefined && current.order !== undefined && next.order <= current.order);
  return { current, progress, next: above && next?.name !== undefined ? { name: next.name, order: next.order, minProgress: next.minProgress } : null };
});

export const CouponAnswer = z.object({
  code: NonEmptyText,
  name: optional(z.string()),
  value: optional(Num),
  currency: optional(z.string()),
  /** Epoch ms. */
  expiryDate: optional(DateTimeMs),
  isAvailableToUse: optional(z.boolean()),
});

/** No list is no coupons. */
export const CouponsAnswer = z.object({ coupons: optional(z.array(CouponAnswer)).transform((c) => c ?? []) });

/** The hash goes into a QR code as `customerId:hash`: no control characters, no `:` or `|`. */
export const HashAnswer = z.object({
  hash: NonEmptyText.pipe(
    z
      .string()
      .max(64)
      .regex(/^[^\x00-\x1f\x7f:|]+$/, 'not usable in a QR code'),
  ),
});

/**
 * `POST /customers`: the write happened on 2xx, so nothing is required. The
 * published schema answers `gameballId`; the guide's example answers the
 * profile instead, so neither shape is needed and an unreadable id is absent.
 */
export const UpsertCustomerAnswer = writeBody({ gameballId: figure(Text) });

/** A job id the BFF can hand to a till and use in a path: a whole number, zero or more (a numeric string too). */
export const BatchOrdersAnswer = z.object({ jobId: Num.pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)) });

/** Batch job states as the BFF names them; the reference's `pending` and `processing` are `queued` and `running`. */
export type BatchJobState = 'queued' | 'running' | 'completed' | 'failed';
const JOB_STATES: Record<string, BatchJobState> = {
  pending: 'queued',
  queued: 'queued',
  processing: 'running',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
};

/** A failed item: which order and the upstream's numeric code. Its text never leaves the client. */
export interface BatchItemFailure {
  orderId?: string;
  customerId?: string;
  code?: number;
}

const textOf = (v: unknown) => {
  const t = Text.safeParse(v);
  return t.success ? t.data : undefined;
};

function failureOf(item: unknown): BatchItemFailure {
  if (item === null || typeof item !== 'object') return {};
  const r = item as Record<string, unknown>;
  const nested = r.error !== null && typeof r.error === 'object' ? (r.error as Record<string, unknown>).code : undefined;
  const code = Num.safeParse(nested ?? r.code);
  return { orderId: textOf(r.orderId), customerId: textOf(r.customerId), code: code.success ? code.data : undefined };
}

const isFailedResult = (item: unknown) => item !== null && typeof item === 'object' && (item as { success?: unknown }).success === false;

/**
 * Batch job status in both shapes the upstream may use: the reference's
 * `{batchId, status: pending|processing|completed|failed, progress, totalItems,
 * processedItems, failedItems, results, errors}` and our sandbox's earlier
 * `{jobId, status: queued|running|..., total, processed, succeeded, failed,
 * results: [{orderId, customerId, success, error}]}`. Failures are the
 * results marked `success: false` and the entries of `errors`.
 */
export const BatchStatusAnswer = z
  .object({
    status: z.string().transform((s, ctx) => {
      const k = s.trim().toLowerCase();
      // Own keys only, as HOLD_STATES: "constructor" must not find Object.prototype's.
      const state = Object.hasOwn(JOB_STATES, k) ? JOB_STATES[k] : undefined;
      if (!state) ctx.addIssue({ code: 'custom', message: 'not a known job state' });
      return state ?? z.NEVER;
    }),
    totalItems: optional(Count),
    total: optional(Count),
    processedItems: optional(Count),
    processed: optional(Count),
    failedItems: optional(Count),
    failed: optional(Count),
    succeeded: optional(Count),
    results: optional(z.array(z.unknown())),
    errors: optional(z.array(z.unknown())),
  })
  .transform((b, ctx) => {
    const failures = [...(b.results ?? []).filter(isFailedResult), ...(b.errors ?? [])].map(failureOf);
    const total = b.totalItems ?? b.total;
    const processed = b.processedItems ?? b.processed;
    if (total === undefined) ctx.addIssue({ code: 'custom', path: ['totalItems'], message: 'missing (nor total)' });
    if (processed === undefined) ctx.addIssue({ code: 'custom', path: ['processedItems'], message: 'missing (nor processed)' });
    if (total === undefined || processed === undefined) return z.NEVER;
    const failed = b.failedItems ?? b.failed ?? failures.length;
    return { status: b.status, total, processed, failed, succeeded: b.succeeded ?? Math.max(0, processed - failed), failures };
  });

/** How the client reads each operation's 2xx answer. */
export const ANSWERS = {
  hold: HoldAnswer,
  batchOrders: BatchOrdersAnswer,
  payment: PaymentAnswer,
  trackOrder: TrackOrderAnswer,
  coupons: CouponsAnswer,
  redeem: RedeemAnswer,
  refund: RefundAnswer,
  tierProgress: TierProgressAnswer,
  deleteCustomer: Anything,
  deleteCustomerPost: Anything,
  hash: HashAnswer,
  events: Anything,
  holdLookup: HoldLookupAnswer,
  holdCancel: Anything,
  otp: Anything,
  balance: BalanceAnswer,
  batchStatus: BatchStatusAnswer,
  couponsValidate: CouponsValidateAnswer,
  couponValidate: CouponValidateAnswer,
  couponBurn: Anything,
  couponRelease: Anything,
  rewardPreview: RewardPreviewAnswer,
  orderTransactions: OrderTransactionsAnswer,
  transactions: TransactionsAnswer,
  redemptionConfig: RedemptionConfigAnswer,
  upsertCustomer: UpsertCustomerAnswer,
} as const satisfies Record<OperationId, z.ZodType>;

export type AnswerOf<K extends OperationId> = z.output<(typeof ANSWERS)[K]>;
export type HoldAnswer = AnswerOf<'hold'>;
export type HoldLookupAnswer = AnswerOf<'holdLookup'>;
export type PaymentAnswer = AnswerOf<'payment'>;
/** A sale's answer, recorded as a payment or as a tracked order (read into the same shape). */
export type SaleAnswer = PaymentAnswer | AnswerOf<'trackOrder'>;
export type RefundAnswer = AnswerOf<'refund'>;
export type RedeemAnswer = AnswerOf<'redeem'>;
export type BalanceAnswer = AnswerOf<'balance'>;
export type TierProgressAnswer = AnswerOf<'tierProgress'>;
export type CouponsAnswer = AnswerOf<'coupons'>;
export type HashAnswer = AnswerOf<'hash'>;
export type UpsertCustomerAnswer = AnswerOf<'upsertCustomer'>;
export type BatchOrdersAnswer = AnswerOf<'batchOrders'>;
export type BatchStatusAnswer = AnswerOf<'batchStatus'>;

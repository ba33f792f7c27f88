import { z } from 'zod';
import type { OperationId } from '../contract';
import { AppError } from '../platform/errors';
import { problem } from '../platform/problem';
import type { ProblemCodeWithStatus } from '../platform/problem-catalogue';
import { DateTimeMs, figure, NonEmptyText, Num, optional, readableItems, Text, writeBody } from './readers';

/** What the coupon mapping reads of an error body: our sandbox names the rule in `reason`, older answers in `type`. */
type ErrorBodyRead = { code: number; type: string; reason?: string; message: string };

/**
 * Tolerant readers of the answers to the coupon, preview, order and
 * redemption-configuration calls, built like ./answers.ts: only what the BFF
 * uses is read (unknown fields are dropped), `null` is absent, numbers may be
 * numeric strings, date-times are UTC without an offset. A lock is a write:
 * once the upstream said 2xx the coupons are locked, so only its reference is
 * required and an unreadable figure is absent, never a failed answer.
 */

export const CouponAnswer = z.object({
  code: NonEmptyText,
  type: optional(z.string()),
  value: optional(Num),
  capping: optional(Num),
  minOrderValue: optional(Num),
});
export type CouponAnswer = z.infer<typeof CouponAnswer>;

export const CouponsValidateAnswer = writeBody({
  coupons: readableItems(CouponAnswer),
  lockReference: figure(NonEmptyText),
  /** Epoch ms. */
  dateToExpire: figure(DateTimeMs),
});
export type CouponsValidateAnswer = z.infer<typeof CouponsValidateAnswer>;

export const CouponValidateAnswer = writeBody({ coupon: figure(CouponAnswer), lockReference: figure(NonEmptyText), dateToExpire: figure(DateTimeMs) });
export type CouponValidateAnswer = z.infer<typeof CouponValidateAnswer>;

export const RewardPreviewAnswer = z.object({
  totalPoints: optional(Num),
  cashback: optional(z.object({ totalPoints: optional(Num), lineItems: readableItems(z.object({ productId: optional(Text), totalPoints: optional(Num) })) })),
});
export type RewardPreviewAnswer = z.infer<typeof RewardPreviewAnswer>;

export const OrderTransactionsAnswer = z.object({
  transactions: readableItems(
    z.object({
      transactionType: z.string(),
      transactionId: optional(Text),
      amount: optional(Num),
      equivalentPoints: optional(Num),
      transactionDate: optional(DateTimeMs),
    }),
  ),
});
export type OrderTransactionsAnswer = z.infer<typeof OrderTransactionsAnswer>;

/** A page of the account's transactions: which sale a transaction is, and the merchant and branch it carried. */
export const TransactionsAnswer = z.object({
  transactions: readableItems(
    z.object({
      transactionId: optional(Text),
      type: optional(z.string()),
      customerId: optional(Text),
      amount: optional(Num),
      merchantName: optional(Text),
      branchName: optional(Text),
      gameballTransactionId: optional(Text),
    }),
  ),
  hasMore: optional(z.boolean()),
});
export type TransactionsAnswer = z.infer<typeof TransactionsAnswer>;

export const RedemptionConfigAnswer = z.object({
  redemptionFactor: optional(Num),
  /** One unreadable rule is left out; the others still make buttons. */
  redemptionRules: readableItems(
    z.object({
      id: NonEmptyText,
      pointsToRedeem: Num,
      valueOfPoint: optional(Num),
      ruleType: optional(z.string()),
      isActive: optional(z.boolean()),
      coupon: optional(
        z.object({
          couponType: optional(z.string()),
          discountValue: optional(Num),
          // What the totals rule prices a redemption by; unreadable reads as absent, so the rule still makes a button.
          product: figure(z.object({ productId: figure(NonEmptyText) })),
          options: optional(z.object({ name: optional(z.string()), capping: figure(Num) })),
        }),
      ),
    }),
  ),
});
export type RedemptionConfigAnswer = z.infer<typeof RedemptionConfigAnswer>;

/** Upstream coupon refusal `type`s and the code a till sees for each. */
const COUPON_REFUSALS: [RegExp, ProblemCodeWithStatus<422>, string][] = [
  [/expired/i, 'coupon_expired', 'The coupon has expired'],
  [/notstarted/i, 'coupon_not_started', 'The coupon is not valid yet'],
  [/inactive/i, 'coupon_inactive', 'The coupon is switched off'],
  [/limit/i, 'coupon_exhausted', 'The coupon has no uses left'],
  [/locked/i, 'coupon_locked', 'The coupon is locked by another sale'],
  [/notoffered/i, 'coupon_not_offered', 'The coupon is not offered to this customer'],
  [/minimum/i, 'coupon_minimum_not_met', "The basket is below the coupon's minimum order value"],
];

const VALIDATE: readonly OperationId[] = ['couponsValidate', 'couponValidate'];

/**
 * Coupon answers in our terms, or undefined to leave the error to the
 * general mapping. Only the upstream's `type` steers the code; its text is
 * never passed on.
 */
export function couponError(operation: OperationId, body: ErrorBodyRead): AppError | undefined {
  const o = { loyaltyCode: body.code };
  const rule = body.reason || body.type;
  if (body.code === 3003 && /^couponlocknotactive$/i.test(rule))
    return problem('coupon_lock_not_active', 'The coupon lock is no longer active (used, released or expired)', o);
  if (body.code === 4004 && VALIDATE.includes(operation)) return problem('coupon_not_found', "The coupon code is not one of this programme's coupons", o);
  // A payment's 4004 is left to the general mapping: only a payment that named a lock can mean the lock (completeSale says so).
  if (body.code === 4004 && (operation === 'couponRelease' || operation === 'couponBurn')) {
    return problem('coupon_lock_not_found', 'The coupon lock was not found', o);
  }
  if (body.code === 9001 && operation === 'couponRelease')
    return problem('coupon_lock_not_active', 'The coupon lock is no longer active (used, released or expired)', o);
  if (body.code === 3003 && VALIDATE.includes(operation)) {
    const hit = COUPON_REFUSALS.find(([re]) => re.test(rule));
    if (hit) return problem(hit[1], hit[2], o);
  }
  return undefined;
}

/** Our coupon codes are refusals (for the outbox and retry rules). */
export function isCouponRefusal(code: string): boolean {
  return code.startsWith('coupon_');
}

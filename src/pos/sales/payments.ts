import type { PaymentDetail, PaymentRequest } from '../../contract';
import { encodingMark, encodingOf, sendSale, type SaleAnswer, type SaleEncoding } from '../../upstream';
import { AppError } from '../../platform/errors';
import { isProblem, problem } from '../../platform/problem';
import { claimActSettle, type Claim } from '../money/claim-step';
import { couponLockForPayment, type CouponLockClaim, type CouponLockClaimDeps } from '../coupons/locks/claims';
import { redemptionForPayment, type RedemptionClaim, type RedemptionPaymentClaimDeps } from '../redemptions/claims';
import { saleIdClaim, type SaleClaimDeps } from './claims';
import { lockCarriedWith } from '../money/ids/same-write';
import type { CallContext, SharedDeps } from '../context';
import { QueuedView, sendOrQueue, type OutboxDeps } from '../outbox/forward';
import type { CouponLock } from '../coupons/locks/types';
import type { Redemption } from '../redemptions/types';
import type { PaymentBody, SaleLine } from './schemas';
import { merchantOf } from '../terminals/store-merchant';
import { checkSaleTotals, type TotalsDeps } from './totals';
import { auditNote, type AuditDeps } from '../audit/record';
import { saleSubject } from '../audit/subjects';
import { withCashier } from '../audit/cashier';
import { recordStandInSale } from './stand-in-sale';

/** What recording a sale uses: the claims it may take, the totals check, the outbox and the audit trail. */
export type PaymentDeps = RedemptionPaymentClaimDeps & CouponLockClaimDeps & SaleClaimDeps & TotalsDeps & OutboxDeps & AuditDeps & Pick<SharedDeps, 'settings'>;

/** Drops zero tax/discount: the v4.0 interface wants them positive or absent. */
const positiveOrAbsent = (n: number | undefined) => (n !== undefined && n > 0 ? n : undefined);

/**
 * A v4.0 payment line has no sku or quantity (its amount is the line total
 * here), so they travel in the line's `extra`; the till's own extra keys of
 * the same name give way to them.
 */
function lineExtra(l: SaleLine): SaleLine['extra'] {
  const known = { ...(l.sku !== undefined ? { sku: l.sku } : {}), ...(l.quantity !== undefined ? { quantity: l.quantity } : {}) };
  return l.extra || Object.keys(known).length ? { ...l.extra, ...known } : undefined;
}

/** A till's sale line as a payment line (the line total as its amount; zero tax and discount left out). */
export function paymentLine(l: SaleLine): PaymentDetail {
  return {
    serviceId: l.serviceId,
    serviceName: l.name,
    serviceProvider: l.provider,
    amount: l.amount,
    tax: positiveOrAbsent(l.tax),
    discount: positiveOrAbsent(l.discount),
    category: l.category,
    tags: l.tags,
    extra: lineExtra(l),
  };
}

export function toUpstreamPayment(ctx: CallContext, body: PaymentBody, now: number, holdReference?: string): PaymentRequest {
  const redemption =
    holdReference || body.couponCodes?.length || body.couponsLockReference
      ? { pointsHoldReference: holdReference, couponCodes: body.couponCodes, couponsLockReference: body.couponsLockReference }
      : undefined;
  return {
    customerId: body.customerId,
    paymentId: body.paymentId,
    paymentDate: body.paymentDate ?? new Date(now).toISOString(),
    totalPaid: body.totalPaid,
    totalAmount: body.totalAmount,
    totalDiscount: body.totalDiscount,
    totalTax: body.totalTax,
    email: body.email,
    mobile: body.mobile,
    guest: body.guest,
    channel: 'pos',
    merchant: merchantOf(ctx.identity.store),
    redemption,
    cashbackConfigurations: body.returnWindowDays !== undefined ? { returnWindow: body.returnWindowDays } : undefined,
    extra: withCashier(ctx, body.extra),
    paymentDetails: body.lines?.map(paymentLine),
  };
}

export interface PaymentView {
  paymentId: string;
  customerId: string;
  /** `recorded` now, or `already_recorded` when the upstream's record showed it applied earlier. */
  status: 'recorded' | 'already_recorded';
  pointsEarned: number | null;
  pointsRedeemed: number | null;
  lines: { serviceId: string; points: number }[];
  redemption?: { id: string; state: Redemption['state'] };
}

/** The till's view of a payment: the upstream's answer, or (absent) its record showed it applied before. */
export function paymentView(body: PaymentBody, answer: SaleAnswer | undefined, redemption?: Redemption): PaymentView {
  return {
    paymentId: body.paymentId,
    customerId: body.customerId,
    status: answer ? 'recorded' : 'already_recorded',
    pointsEarned: answer?.rewardedPoints ?? null,
    pointsRedeemed: answer?.redeemedPoints ?? null,
    lines: answer ? answer.paymentDetails.map((l) => ({ serviceId: l.serviceId, points: l.points })) : [],
    ...(redemption ? { redemption: { id: redemption.id, state: redemption.state } } : {}),
  };
}

/** A payment without a redemption or a coupon lock, queued in the outbox (answered 202). */
export type QueuedPayment = QueuedView & { paymentId: string; customerId: string; redemption?: { id: string; state: Redemption['state'] } };

export interface RecordedSale {
  view: PaymentView | QueuedPayment;
  /** The coupon lock the payment burned, as it ended. */
  lock?: CouponLock;
}

/**
 * Records a sale: points (a held redemption), coupons (a lock), both or
 * neither, through the one claim -> act -> settle step. The redemption, the
 * lock and the sale id are claimed first (a refusal of any frees the others:
 * nothing was sent), then the payment goes upstream with the hold and the
 * lock; its outcome settles all three. A sale with neither can wait: when the
 * upstream is out of reach it is queued (202) and its id stays claimed until
 * the outbox delivers it. One with a hold or a lock cannot (they would lapse).
 */
export async function recordSale(deps: PaymentDeps, ctx: CallContext, body: PaymentBody): Promise<RecordedSale> {
  // A stand-in redemption (no hold: the service was out) is paid through the outbox with its redeem (./stand-in-sale.ts).
  const named = body.redemptionId ? await deps.redemptions.get(body.redemptionId, deps.clock()) : null;
  if (named && named.storeId === ctx.identity.store.id && (named.state === 'stand_in' || named.state === 'stand_in_paid'))
    return { view: await recordStandInSale(deps, ctx, body, named, toUpstreamPayment(ctx, body, deps.clock())) };
  // Every discount the sale names (redemption, coupon lock) is priced for this basket before anything is claimed.
  await checkSaleTotals(deps, ctx, body);
  const who = { customerId: body.customerId, paymentId: body.paymentId };
  const redemption: RedemptionClaim | undefined = body.redemptionId ? redemptionForPayment(deps, ctx, body.redemptionId, who) : undefined;
  const lock: CouponLockClaim | undefined = body.couponLockId
    ? couponLockForPayment(deps, ctx, body.couponLockId, { ...who, totalPaid: body.totalPaid })
    : undefined;
  // A new sale is sent the way the account records sales now; its entry keeps that way for its retries.
  const now: SaleEncoding = deps.settings.salesRecordedAs ?? 'payment';
  // The sale's whole identity, read once the redemption and lock are claimed (the sale id is claimed last).
  const sale = saleIdClaim(
    deps,
    ctx,
    { kind: 'payment', id: body.paymentId, customerId: body.customerId, paymentId: body.paymentId, ...encodingMark(now) },
    {
      kind: 'payment',
      totalPaid: body.totalPaid,
      get hold() {
        return redemption ? { reference: redemption.claimed.holdReference as string, points: redemption.claimed.holdPoints } : null;
      },
      get coupons() {
        const codes = [...new Set([...(body.couponCodes ?? []), ...(lock ? lock.claimed.coupons.map((c) => c.code) : [])])];
        const lockReference = lock?.claimed.lockReference ?? body.couponsLockReference ?? null;
        return lockReference || codes.length ? { lockReference, codes } : null;
      },
    },
    // The lock's own record names this payment when an earlier attempt of it carried the lock (same-write.ts lockCarriedWith).
    {
      claims: (entry) =>
        lock && lockCarriedWith(entry, lock.claimed)
          ? { carriedLock: { lockReference: lock.claimed.lockReference, codes: lock.claimed.coupons.map((c) => c.code) } }
          : {},
    },
  );
  const claims = [redemption, lock, sale].filter((c): c is NonNullable<typeof c> => c !== undefined) as Claim<SaleAnswer | QueuedPayment>[];
  const request = () =>
    toUpstreamPayment(ctx, lock ? { ...body, couponsLockReference: lock.claimed.lockReference } : body, deps.clock(), redemption?.claimed.holdReference);
  const answer = await claimActSettle<SaleAnswer | QueuedPayment>({
    what: `Payment ${body.paymentId}`,
    claims,
    logger: deps.logger,
    send: () => {
      const req = request();
      // A retry of an earlier attempt goes out as that attempt did, whatever the account's way is now.
      const encoding = sale.earlier ? encodingOf(sale.earlier.recordedAs) : now;
      if (redemption || lock) return sendSale(deps.loyalty, encoding, req, { requestId: ctx.requestId, priority: 'secondLeg' });
      const work = { kind: 'payment' as const, request: req, ...encodingMark(encoding) };
      return sendOrQueue(deps, ctx, work, { paymentId: body.paymentId, customerId: body.customerId }, (call) => sendSale(deps.loyalty, encoding, req, call));
    },
    onRecord: (duplicate) => sale.onRecord(duplicate),
    explain: (refusal) => explainRefusal(refusal, body),
    audit: auditNote(deps, ctx, 'payment', () => saleSubject(body, redemption?.claimed)),
  });
  if (answer && 'queued' in answer) return { view: answer };
  return { view: paymentView(body, answer, redemption?.ended), lock: lock?.ended };
}

/** The till's words for a definite refusal of the payment upstream. */
function explainRefusal(refusal: AppError, body: PaymentBody): AppError {
  // The upstream has another sale under this id (its record is not this payment's).
  if (isProblem(refusal, 'duplicate_transaction')) {
    return problem(
      'payment_id_taken',
      `The loyalty service already has another sale under payment id ${body.paymentId}; nothing was recorded for this one: ring it up with a new payment id`,
      { loyaltyCode: refusal.loyaltyCode },
    );
  }
  // The lock is the one thing a payment names that the service answers 4004 for (a hold is 9006, a customer 7000).
  if (body.couponLockId && isProblem(refusal, 'upstream_not_found')) {
    return problem('coupon_lock_not_found', `The loyalty service does not know coupon lock ${body.couponLockId}; lock the coupons again`, {
      loyaltyCode: refusal.loyaltyCode,
    });
  }
  return refusal;
}

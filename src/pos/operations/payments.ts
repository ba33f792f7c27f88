import type { PaymentRequest } from '../../contract';
import type { PaymentAnswer } from '../../upstream';
import { AppError, ConflictError, NotFoundError } from '../../platform/errors';
import { certainlyNotDelivered } from '../../upstream';
import { claim, CLAIM_NOT_FOUND, outcomeOf } from '../redemptions/claim';
import { notRecorded } from './not-recorded';
import type { CallContext, PosDeps } from '../deps';
import { QueuedView, sendOrQueue } from '../outbox/forward';
import type { Redemption } from '../redemptions/types';
import type { PaymentBody, SaleLine } from '../schemas';
import { merchantOf } from './store-merchant';
import { applyTotals, checkSaleTotals } from './totals';

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
    extra: body.extra,
    paymentDetails: body.lines?.map((l) => ({
      serviceId: l.serviceId,
      serviceName: l.name,
      serviceProvider: l.provider,
      amount: l.amount,
      tax: positiveOrAbsent(l.tax),
      discount: positiveOrAbsent(l.discount),
      category: l.category,
      tags: l.tags,
      extra: lineExtra(l),
    })),
  };
}

export interface PaymentView {
  paymentId: string;
  customerId: string;
  /** `recorded` now, or `already_recorded` when a retry found it applied earlier. */
  status: 'recorded' | 'already_recorded';
  pointsEarned: number | null;
  pointsRedeemed: number | null;
  lines: { serviceId: string; points: number }[];
  redemption?: { id: string; state: Redemption['state'] };
}

export function paymentView(body: PaymentBody, outcome: { kind: 'applied'; body: PaymentAnswer } | { kind: 'already_applied' }, redemption?: Redemption): PaymentView {
  const applied = outcome.kind === 'applied' ? outcome.body : undefined;
  return {
    paymentId: body.paymentId,
    customerId: body.customerId,
    status: applied ? 'recorded' : 'already_recorded',
    pointsEarned: applied?.rewardedPoints ?? null,
    pointsRedeemed: applied?.redeemedPoints ?? null,
    lines: applied ? applied.paymentDetails.map((l) => ({ serviceId: l.serviceId, points: l.points })) : [],
    ...(redemption ? { redemption: { id: redemption.id, state: redemption.state } } : {}),
  };
}

/**
 * Claims a held redemption for this payment (see claim.ts for the rule it
 * shares with a void). The same payment id may claim again (a till's retry),
 * also once redeemed: the upstream's duplicate answer makes it `already_recorded`.
 */
async function claimRedemption(deps: PosDeps, ctx: CallContext, body: PaymentBody, id: string): Promise<{ claimed: Redemption; retry: boolean }> {
  const now = deps.clock();
  const who = { kind: 'payment', storeId: ctx.identity.store.id, customerId: body.customerId, paymentId: body.paymentId, now, marginMs: deps.settings.holdSafetyMarginSeconds * 1000 } as const;
  let retry = false;
  const result = await deps.redemptions.change(id, now, (cur) => {
    retry = cur.paymentId === body.paymentId;
    return claim(cur, who);
  });
  if (!result.ok && (result.reason === 'not_found' || result.detail === CLAIM_NOT_FOUND)) {
    throw new NotFoundError('redemption_not_found', `Redemption ${id} was not found`);
  }
  if (!result.ok) {
    const [code, detail] = result.detail.split(/:(.*)/s);
    const extra = code === 'redemption_customer_mismatch' ? undefined : outcomeOf(result.redemption);
    throw new ConflictError(code, detail, { extra });
  }
  return { claimed: result.redemption, retry };
}

/** A payment without a redemption, queued in the outbox (answered 202). */
export type QueuedPayment = QueuedView & { paymentId: string; customerId: string };

/**
 * What every sale passes before the upstream hears of it: totals that agree,
 * and its store kept, so its refunds, voids and read-back stay in that store.
 */
export async function acceptSale(deps: PosDeps, ctx: CallContext, body: PaymentBody): Promise<void> {
  await checkSaleTotals(deps, ctx, body);
  await rememberSale(deps, ctx, body);
}

function rememberSale(deps: PosDeps, ctx: CallContext, body: PaymentBody): Promise<void> {
  return deps.sales.remember({ kind: 'payment', id: body.paymentId, storeId: ctx.identity.store.id, customerId: body.customerId, paymentId: body.paymentId });
}

/**
 * Records a sale. Without a redemption it can wait: when the upstream is out
 * of reach it is queued and delivered later with its own paymentId. With a
 * redemption it cannot (the hold would expire meanwhile): it fails with the
 * upstream's 503 and the till tries again or takes another payment.
 */
export async function recordPayment(deps: PosDeps, ctx: CallContext, body: PaymentBody): Promise<PaymentView | QueuedPayment> {
  if (!body.redemptionId) {
    // Neither a redemption nor a coupon lock (completeSale sends a sale with a lock itself): nothing to read.
    applyTotals(body, {});
    const request = toUpstreamPayment(ctx, body, deps.clock());
    // Its store is kept (acceptSale's rule) in the Redis round trip of the call's own checks, not one before them.
    return sendOrQueue(
      deps, ctx, { kind: 'payment', request }, { paymentId: body.paymentId, customerId: body.customerId },
      async (call) => paymentView(body, await deps.loyalty.payment(request, call)),
      { first: () => rememberSale(deps, ctx, body) },
    );
  }
  await acceptSale(deps, ctx, body);
  const { claimed, retry } = await claimRedemption(deps, ctx, body, body.redemptionId);
  let outcome: Awaited<ReturnType<PosDeps['loyalty']['payment']>>;
  try {
    outcome = await deps.loyalty.payment(toUpstreamPayment(ctx, body, deps.clock(), claimed.holdReference), { requestId: ctx.requestId });
  } catch (err) {
    // A till retrying a payment whose first answer it never saw: the upstream already has it.
    if (retry && err instanceof AppError && err.code === 'duplicate_transaction') {
      outcome = { kind: 'already_applied' };
    } else {
      await settleFailedClaim(deps, claimed, err);
      throw err;
    }
  }
  // The upstream used the hold. From here on no answer may say nothing was done.
  let done: Awaited<ReturnType<PosDeps['redemptions']['change']>>;
  try {
    done = await deps.redemptions.change(claimed.id, deps.clock(), (cur) =>
      cur.paymentId === body.paymentId && (cur.state === 'held' || cur.state === 'redeemed') ? { ...cur, state: 'redeemed' } : `it is ${cur.state}`,
    );
  } catch (err) {
    deps.repairs?.add(claimed);
    throw notRecorded(`Payment ${body.paymentId}`, err);
  }
  return paymentView(body, outcome, done.ok ? done.redemption : { ...claimed, state: 'redeemed' });
}

/** The upstream certainly did not take the write: a refusal (4xx, not a duplicate) or a call that never left this BFF. */
export function definitelyRefused(err: AppError): boolean {
  return (err.status < 500 && err.code !== 'duplicate_transaction') || certainlyNotDelivered(err);
}

/**
 * After a failed payment: a definite refusal (or a call that certainly never
 * left) frees the claim so the till can retry; a dead hold ends the
 * redemption; an unknown outcome (5xx, timeout, anything unexpected) keeps the
 * claim, so only the same payment id can try again: the upstream may have
 * used the hold for this sale.
 */
async function settleFailedClaim(deps: PosDeps, claimed: Redemption, err: unknown) {
  if (!(err instanceof AppError)) return;
  const now = deps.clock();
  if (err.code === 'hold_not_active') {
    const ended = await deps.redemptions.change(claimed.id, now, (cur) => (cur.state === 'held' ? { ...cur, state: 'expired', paymentId: undefined } : 'not held'));
    // Logged like the sweeper's expiries, so every dead hold leaves a line (here the upstream knew first: clocks apart).
    if (ended.ok) deps.logger.info({ redemptionId: claimed.id, storeId: claimed.storeId, customerId: claimed.customerId, holdReference: claimed.holdReference, expiresAt: claimed.expiresAt, via: 'upstream' }, 'hold expired');
  } else if (definitelyRefused(err)) {
    await deps.redemptions.change(claimed.id, now, (cur) => (cur.paymentId === claimed.paymentId && cur.state === 'held' ? { ...cur, paymentId: undefined } : 'not ours'));
  }
}

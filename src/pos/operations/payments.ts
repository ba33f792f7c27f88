import type { PaymentRequest, PaymentResponse } from '../../contract';
import { AppError, ConflictError, NotFoundError } from '../../platform/errors';
import type { CallContext, PosDeps } from '../deps';
import { QueuedView, sendOrQueue } from '../outbox/forward';
import type { Redemption } from '../redemptions/types';
import type { PaymentBody } from '../schemas';
import { merchantOf } from './store-merchant';

/** Drops zero tax/discount: the v4.0 interface wants them positive or absent. */
const positiveOrAbsent = (n: number | undefined) => (n !== undefined && n > 0 ? n : undefined);

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
      extra: l.extra,
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

function paymentView(body: PaymentBody, outcome: { kind: 'applied'; body: PaymentResponse } | { kind: 'already_applied' }, redemption?: Redemption): PaymentView {
  const applied = outcome.kind === 'applied' ? outcome.body : undefined;
  return {
    paymentId: body.paymentId,
    customerId: body.customerId,
    status: applied ? 'recorded' : 'already_recorded',
    pointsEarned: applied ? applied.rewardedPoints : null,
    pointsRedeemed: applied ? applied.redeemedPoints : null,
    lines: applied ? applied.paymentDetails.map((l) => ({ serviceId: l.serviceId, points: l.points })) : [],
    ...(redemption ? { redemption: { id: redemption.id, state: redemption.state } } : {}),
  };
}

const NOT_FOUND = 'redemption_not_found';

/**
 * Claims a held redemption for this payment: it must be this store's, this
 * customer's, `held`, not claimed by another payment, and have at least the
 * safety margin left. The same payment id may claim again (a till's retry),
 * also once redeemed: the upstream's duplicate answer makes it `already_recorded`.
 */
async function claimRedemption(deps: PosDeps, ctx: CallContext, body: PaymentBody, id: string): Promise<{ claimed: Redemption; retry: boolean }> {
  const marginMs = deps.settings.holdSafetyMarginSeconds * 1000;
  let retry = false;
  // One atomic read-check-write: every rule is checked on the record the claim is written against.
  const result = await deps.redemptions.change(id, deps.clock(), (cur) => {
    // Another store's redemption reads exactly like a missing one, so ids cannot be probed.
    if (cur.storeId !== ctx.identity.store.id) return NOT_FOUND;
    if (cur.customerId !== body.customerId) return `redemption_customer_mismatch:Redemption ${id} belongs to another customer`;
    retry = cur.paymentId === body.paymentId;
    // The same sale sent again (its first answer lost): let the upstream say it already has it.
    if (retry && (cur.state === 'held' || cur.state === 'redeemed')) return cur;
    if (cur.state !== 'held') return `redemption_not_held:Redemption ${id} is ${cur.state}; start a new redemption`;
    if (cur.paymentId) return `redemption_in_use:Redemption ${id} is already used by payment ${cur.paymentId}`;
    if ((cur.expiresAt ?? 0) - deps.clock() < marginMs) return `redemption_expiring:Redemption ${id} has less than ${deps.settings.holdSafetyMarginSeconds} s left; void it and start again`;
    return { ...cur, paymentId: body.paymentId };
  });
  if (!result.ok && (result.reason === 'not_found' || result.detail === NOT_FOUND)) {
    throw new NotFoundError('redemption_not_found', `Redemption ${id} was not found`);
  }
  if (!result.ok) {
    const [code, detail] = result.detail.split(/:(.*)/s);
    const extra = code === 'redemption_customer_mismatch' ? undefined : { state: result.redemption.state };
    throw new ConflictError(code, detail, { extra });
  }
  return { claimed: result.redemption, retry };
}

/** A payment without a redemption, queued in the outbox (answered 202). */
export type QueuedPayment = QueuedView & { paymentId: string; customerId: string };

/**
 * Records a sale. Without a redemption it can wait: when the upstream is out
 * of reach it is queued and delivered later with its own paymentId. With a
 * redemption it cannot (the hold would expire meanwhile): it fails with the
 * upstream's 503 and the till tries again or takes another payment.
 */
export async function recordPayment(deps: PosDeps, ctx: CallContext, body: PaymentBody): Promise<PaymentView | QueuedPayment> {
  if (!body.redemptionId) {
    const request = toUpstreamPayment(ctx, body, deps.clock());
    return sendOrQueue(deps, ctx, { kind: 'payment', request }, { paymentId: body.paymentId, customerId: body.customerId }, async (call) =>
      paymentView(body, await deps.loyalty.payment(request, call)),
    );
  }
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
  // The upstream used the hold: it is redeemed, even if the sweeper got there first.
  const done = await deps.redemptions.change(claimed.id, deps.clock(), (cur) =>
    cur.paymentId === body.paymentId && (cur.state === 'held' || cur.state === 'expired' || cur.state === 'redeemed') ? { ...cur, state: 'redeemed' } : `it is ${cur.state}`,
  );
  return paymentView(body, outcome, done.ok ? done.redemption : { ...claimed, state: 'redeemed' });
}

/**
 * After a failed payment: a definite refusal frees the claim so the till can
 * retry; a dead hold ends the redemption; an unknown outcome (timeout, outage)
 * keeps the claim, so only the same payment id can try again.
 */
async function settleFailedClaim(deps: PosDeps, claimed: Redemption, err: unknown) {
  if (!(err instanceof AppError)) return;
  const now = deps.clock();
  if (err.code === 'hold_not_active') {
    const ended = await deps.redemptions.change(claimed.id, now, (cur) => (cur.state === 'held' ? { ...cur, state: 'expired', paymentId: undefined } : 'not held'));
    // Logged like the sweeper's expiries, so every dead hold leaves a line (here the upstream knew first: clocks apart).
    if (ended.ok) deps.logger.info({ redemptionId: claimed.id, storeId: claimed.storeId, customerId: claimed.customerId, holdReference: claimed.holdReference, expiresAt: claimed.expiresAt, via: 'upstream' }, 'hold expired');
  } else if (err.status < 500 && err.code !== 'duplicate_transaction') {
    await deps.redemptions.change(claimed.id, now, (cur) => (cur.paymentId === claimed.paymentId && cur.state === 'held' ? { ...cur, paymentId: undefined } : 'not ours'));
  }
}

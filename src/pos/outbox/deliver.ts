import { AppError } from '../../platform/errors';
import { isProblem, problem } from '../../platform/problem';
import { encodingOf, LoyaltyClient, redeemLinesOf, nothingSent, sendSale, transactionsOf, upstreamFailureKind, writeOutcome } from '../../upstream';
import { onRecordOf, refundLinesDigest, sameWrite, type Write, type WriteRecord } from '../money/ids/same-write';
import { mayResend } from './forward';
import type { DeliveryOutcome, OutboxEntry, OutboxFailure, StandInRedeem } from './types';

export interface RetryPolicy {
  /** Sends after which an entry that still fails goes to the dead letters. */
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/**
 * A duplicate answer to a delivery is checked against the upstream's record
 * of that id (same-write.ts): this very write (an earlier delivery landed, its
 * answer lost) is delivered; another write under the same id is a refusal (a
 * dead letter). A record that cannot be read, or a write it cannot show to be
 * this one, leaves the delivery to be tried again, never taken for delivered.
 */
async function orOnRecord<T>(send: () => Promise<T>, onRecord: () => Promise<boolean>, taken: () => AppError): Promise<T | { alreadyRecorded: true }> {
  const outcome = await writeOutcome(send, onRecord);
  if (outcome.kind === 'applied') return outcome.body ?? { alreadyRecorded: true };
  if (outcome.kind === 'refused') throw upstreamFailureKind(outcome.error) === 'duplicate' ? taken() : outcome.error;
  throw outcome.error;
}

/** A queued write's identity, from the request it holds (a queued sale names neither hold nor coupons). */
export function queuedWrite(work: Extract<OutboxEntry['work'], { kind: 'payment' | 'refund' }>): Write {
  if (work.kind === 'payment') {
    const p = work.request;
    const coupons = p.redemption?.couponsLockReference || p.redemption?.couponCodes?.length;
    return {
      kind: 'payment',
      paymentId: p.paymentId,
      customerId: p.customerId,
      totalPaid: p.totalPaid,
      hold: p.redemption?.pointsHoldReference ? { reference: p.redemption.pointsHoldReference } : null,
      coupons: coupons ? { lockReference: p.redemption?.couponsLockReference ?? null, codes: p.redemption?.couponCodes ?? [] } : null,
    };
  }
  const r = work.request;
  return {
    kind: 'refund',
    refundId: r.refundTransactionId,
    paymentId: r.reverseTransactionId,
    customerId: r.customerId,
    amount: r.refundAmount ?? null,
    lines: refundLinesDigest(r.lineItems),
  };
}

/** The BFF's record of an id's earlier write: its id entry (the claim the till's request or a dead letter's retry took). */
export type IdRecordOf = (kind: 'payment' | 'refund', id: string) => Promise<(WriteRecord & { storeId: string }) | null>;

/**
 * The duplicate is compared with the id's stored entry, not with the queued
 * write itself (which would match trivially): an entry another store holds,
 * or none at all (Redis lost it), shows nothing, so the delivery is never
 * taken for done from it.
 */
async function onRecord(loyalty: LoyaltyClient, w: Write, entry: OutboxEntry, recordOfId: IdRecordOf, ctx: { requestId: string; priority: 'background' }) {
  const stored = await recordOfId(w.kind, w.kind === 'payment' ? w.paymentId : w.refundId);
  return onRecordOf(sameWrite(loyalty, w, stored && stored.storeId === entry.storeId ? stored : null, ctx));
}

/**
 * Sends one entry upstream with its own ids (paymentId, refundTransactionId,
 * a batch's order ids), so a second delivery of the same entry is refused as
 * a duplicate instead of applied twice. Events carry only an `eventId` in
 * their metadata, which the upstream does not refuse a copy by: they are never
 * delivered again once a delivery may have landed (judgeFailure). Returns what
 * the till may want to know later (GET /pos/v1/outbox/:id). `recordOfId`:
 * the id entries a duplicate answer is compared with.
 */
export async function send(loyalty: LoyaltyClient, entry: OutboxEntry, recordOfId: IdRecordOf): Promise<Record<string, unknown>> {
  const ctx = { requestId: `${entry.id}.${entry.attempts + 1}`, priority: 'background' as const };
  const work = entry.work;
  switch (work.kind) {
    case 'payment': {
      const p = work.request;
      // A stand-in's points first, once (its transaction id is the redemption id); refused for the balance: short, the sale still goes.
      const standIn = work.standIn ? await redeemStandIn(loyalty, work.standIn, ctx) : undefined;
      const o = await orOnRecord(
        () => sendSale(loyalty, encodingOf(work.recordedAs), p, ctx),
        () => onRecord(loyalty, queuedWrite(work), entry, recordOfId, ctx),
        () => problem('payment_id_taken', `The loyalty service has another sale under payment id ${p.paymentId}`),
      );
      const sale = 'alreadyRecorded' in o ? o : { pointsEarned: o.rewardedPoints, pointsRedeemed: o.redeemedPoints };
      return standIn ? { ...sale, standIn } : sale;
    }
    case 'refund': {
      const r = work.request;
      const o = await orOnRecord(
        () => loyalty.refund(r, ctx),
        () => onRecord(loyalty, queuedWrite(work), entry, recordOfId, ctx),
        () => problem('refund_id_taken', `The loyalty service has another refund under id ${r.refundTransactionId}`),
      );
      return 'alreadyRecorded' in o
        ? o
        : { amountRefunded: o.refundAmount, pointsReversed: o.refundEquivalentPoints, loyaltyTransactionId: o.gameballTransactionId };
    }
    case 'events':
      await loyalty.events(work.request, ctx);
      return { events: Object.keys(work.request.events) };
    case 'batchOrders': {
      const { jobId } = await loyalty.batchOrders(work.request, ctx);
      return { jobId };
    }
  }
}

/**
 * Redeems a stand-in's points under its redemption id. A duplicate answer is
 * this very redeem when the upstream's record of that id (its transactions)
 * shows a redemption of those points (an earlier delivery landed, its answer
 * lost); any other refusal but the balance fails the delivery (tried again,
 * or a dead letter, as the sale would be).
 */
async function redeemStandIn(
  loyalty: LoyaltyClient,
  s: StandInRedeem,
  ctx: { requestId: string; priority: 'background' },
): Promise<{ redemptionId: string; outcome: 'redeemed' | 'short'; points: number; amount?: number }> {
  const points = s.redeem.points ?? 0;
  try {
    const o = await orOnRecord(
      () => loyalty.redeem(s.redeem, ctx),
      async () =>
        redeemLinesOf(await transactionsOf(loyalty, s.redeem.transactionId, ctx)).some(
          // A record that does not show the points (or is a sale's) cannot vouch for this redeem.
          (t) => t.equivalentPoints !== undefined && Math.abs(t.equivalentPoints) === points,
        ),
      () => problem('payment_id_taken', `The loyalty service has another transaction under stand-in redemption id ${s.redeem.transactionId}`),
    );
    return { redemptionId: s.redemptionId, outcome: 'redeemed', points, ...('alreadyRecorded' in o ? {} : { amount: o.redeemAmount }) };
  } catch (err) {
    if (isProblem(err, 'insufficient_points')) return { redemptionId: s.redemptionId, outcome: 'short', points };
    throw err;
  }
}

/**
 * What a failed delivery means (a duplicate answer was settled by send(): it
 * reaches here only when the upstream's record could not say, or for a write
 * with no record to ask, and is then a refusal):
 * - no answer, timeout, 5xx, 429, an open circuit, an unreadable answer, our
 *   keys refused (configuration, fixable): try again after a backoff; refusals
 *   by our own breaker or limiter, or a 429, do not count as attempts (nothing
 *   was sent), so a long outage does not use up an entry's attempts;
 * - any other refusal (4xx: unknown payment, invalid value...) or a local
 *   error: dead letter, a person has to look at it;
 * - events whose send may have landed (timeout, 5xx, an unreadable answer):
 *   a dead letter `event_maybe_recorded`, never sent again (they carry no id
 *   the upstream could refuse a copy by); the failure that certainly never
 *   left (an open circuit, a 429, a refused connection) is retried as above.
 */
export function judgeFailure(err: unknown, entry: OutboxEntry, policy: RetryPolicy, now: number, random: () => number = Math.random): DeliveryOutcome {
  const failure = describeFailure(err, now);
  const kind = upstreamFailureKind(err);
  const transient =
    kind === 'unavailable' ||
    kind === 'timeout' ||
    kind === 'rate_limited' ||
    kind === 'invalid_response' ||
    isProblem(err, 'upstream_auth_failed', 'upstream_call_aborted');
  if (!transient) return { kind: 'dead', error: failure };
  if (!mayResend(entry.work.kind, err)) {
    return { kind: 'dead', error: maybeRecordedError(failure.message, now) };
  }
  const counted = !nothingSent(err) && !isProblem(err, 'upstream_call_aborted');
  const attempts = entry.attempts + (counted ? 1 : 0);
  if (counted && attempts >= policy.maxAttempts) {
    return { kind: 'dead', error: { ...failure, message: `${failure.message} (gave up after ${attempts} attempts)` } };
  }
  const step = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
  const backoff = Math.round(step / 2 + random() * (step / 2));
  const retryAfterMs = err instanceof AppError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 0;
  return { kind: 'retry', error: failure, nextAttemptAt: now + Math.max(backoff, retryAfterMs), counted };
}

/** A failure as an outbox entry keeps it (no stack, no cause). */
export function describeFailure(err: unknown, at: number): OutboxFailure {
  if (err instanceof AppError) return { code: err.code, message: err.message, status: err.status, at };
  return { code: 'internal_error', message: 'The delivery failed unexpectedly', at };
}

/** The dead letter of an entry sent once whose send may have landed: never sent again, never "nothing was done". */
export function maybeRecordedError(why: string, now: number): OutboxFailure {
  return { code: 'event_maybe_recorded', status: 503, message: `${why}; may have been recorded, so not sent again`, at: now };
}

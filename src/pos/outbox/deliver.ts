import { AppError } from '../../platform/errors';
import { certainlyNotDelivered, LoyaltyClient, upstreamFailureKind } from '../../upstream';
import type { DeliveryOutcome, OutboxEntry, OutboxFailure } from './types';

export interface RetryPolicy {
  /** Sends after which an entry that still fails goes to the dead letters. */
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/**
 * Sends one entry upstream with its own ids (paymentId, refundTransactionId,
 * the events' eventId), so a second delivery of the same entry is refused as
 * a duplicate instead of applied twice. Returns what the till may want to
 * know later (GET /pos/v1/outbox/:id).
 */
export async function send(loyalty: LoyaltyClient, entry: OutboxEntry): Promise<Record<string, unknown>> {
  const ctx = { requestId: `${entry.id}.${entry.attempts + 1}` };
  const work = entry.work;
  switch (work.kind) {
    case 'payment': {
      const o = await loyalty.payment(work.request, ctx);
      return o.kind === 'applied' ? { pointsEarned: o.body.rewardedPoints, pointsRedeemed: o.body.redeemedPoints } : { alreadyRecorded: true };
    }
    case 'refund': {
      const o = await loyalty.refund(work.request, ctx);
      return o.kind === 'applied'
        ? { amountRefunded: o.body.refundAmount, pointsReversed: o.body.refundEquivalentPoints, loyaltyTransactionId: o.body.gameballTransactionId }
        : { alreadyRecorded: true };
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
 * What a failed delivery means:
 * - a duplicate answer: delivered before (an earlier attempt landed, its answer was lost);
 * - no answer, timeout, 5xx, 429, an open circuit, an unreadable answer, our
 *   keys refused (configuration, fixable): try again after a backoff; refusals
 *   by our own breaker or limiter, or a 429, do not count as attempts (nothing
 *   was sent), so a long outage does not use up an entry's attempts;
 * - any other refusal (4xx: unknown payment, invalid value...) or a local
 *   error: dead letter, a person has to look at it.
 */
export function judgeFailure(err: unknown, entry: OutboxEntry, policy: RetryPolicy, now: number, random: () => number = Math.random): DeliveryOutcome {
  const failure = describe(err, now);
  const kind = upstreamFailureKind(err);
  if (kind === 'duplicate') return { kind: 'delivered', result: { alreadyRecorded: true } };
  const transient =
    kind === 'unavailable' || kind === 'timeout' || kind === 'rate_limited' || kind === 'invalid_response' ||
    failure.code === 'upstream_auth_failed' || failure.code === 'upstream_call_aborted';
  if (!transient) return { kind: 'dead', error: failure };
  const counted = !certainlyNotDelivered(err) && failure.code !== 'upstream_call_aborted';
  const attempts = entry.attempts + (counted ? 1 : 0);
  if (counted && attempts >= policy.maxAttempts) {
    return { kind: 'dead', error: { ...failure, message: `${failure.message} (gave up after ${attempts} attempts)` } };
  }
  const step = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
  const backoff = Math.round(step / 2 + random() * (step / 2));
  const retryAfterMs = err instanceof AppError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 0;
  return { kind: 'retry', error: failure, nextAttemptAt: now + Math.max(backoff, retryAfterMs), counted };
}

function describe(err: unknown, at: number): OutboxFailure {
  if (err instanceof AppError) return { code: err.code, message: err.message, status: err.status, at };
  return { code: 'internal_error', message: 'The delivery failed unexpectedly', at };
}

/**
 * A payment naming a `stand_in` redemption: the redemption becomes
 * `stand_in_paid` and one outbox entry carries its redeem (transactionId = the
 * redemption id) and then the sale without a hold: answered 202. The worker
 * delivers both once each, in order (../outbox/deliver.ts); what the redeem
 * became is settled by settleStandIn.
 */
import type { Logger } from 'pino';
import { problem } from '../../platform/problem';
import { applyTransition, REDEMPTION_TRANSITIONS } from '../money/machines';
import { encodingMark, type SaleAnswer, type SaleEncoding } from '../../upstream';
import { claimActSettle, recordClaim, type Claim } from '../money/claim-step';
import type { CallContext } from '../context';
import { queueWork, type QueuedView } from '../outbox/forward';
import type { OutboxEntry } from '../outbox/types';
import type { Redemption, RedemptionStore } from '../redemptions/types';
import { outcomeOf, redemptionNotFound } from '../redemptions/claim';
import type { AuditTrail } from '../audit/trail';
import { saleIdClaim } from './claims';
import type { PaymentRequest } from '../../contract';
import type { SharedDeps } from '../context';
import type { OutboxDeps } from '../outbox/forward';
import type { AuditDeps } from '../audit/record';
import type { SaleClaimDeps } from './claims';

/** What a stand-in sale uses (a part of ./payments.ts PaymentDeps, named here so the two files do not import each other). */
export type StandInSaleDeps = SaleClaimDeps & OutboxDeps & AuditDeps & Pick<SharedDeps, 'settings'> & { redemptions: RedemptionStore };
/** Its answer: queued (202) with the redemption, now `stand_in_paid`. */
export type QueuedPayment = QueuedView & { paymentId: string; customerId: string; redemption?: { id: string; state: Redemption['state'] } };
import type { PaymentBody } from './schemas';
import { auditNote } from '../audit/record';
import { saleSubject } from '../audit/subjects';
import type { Metrics } from '../../platform/metrics';

/** `request`: the sale as its payment request, without a hold (built by the caller, ./payments.ts). */
export async function recordStandInSale(
  deps: StandInSaleDeps,
  ctx: CallContext,
  body: PaymentBody,
  r: Redemption,
  request: PaymentRequest,
): Promise<QueuedPayment> {
  if (body.couponLockId || body.couponCodes?.length || body.couponsLockReference)
    throw problem('validation_failed', 'A stand-in redemption is paid without coupons', { errors: [{ path: 'couponLockId', message: 'not with a stand-in' }] });
  const now: SaleEncoding = deps.settings.salesRecordedAs ?? 'payment';
  const id = r.id;
  const standIn = recordClaim<Redemption, SaleAnswer | QueuedPayment>(`redemption ${id}`, {
    async take() {
      let again = false;
      let refusal: Error | undefined;
      const result = await deps.redemptions.change(id, deps.clock(), (cur) => {
        refusal = undefined; // the store may call this again after a concurrent write: only the last call counts
        if (cur.customerId !== body.customerId) {
          refusal = problem('redemption_customer_mismatch', `Redemption ${id} belongs to another customer`);
          return 'another customer';
        }
        again = cur.state === 'stand_in_paid' && cur.paymentId === body.paymentId;
        if (again) return cur;
        if (cur.state === 'stand_in_paid') {
          refusal = problem('redemption_in_use', `Redemption ${id} is already used by payment ${cur.paymentId}`, { extra: outcomeOf(cur) });
          return 'paid by another payment';
        }
        return applyTransition(REDEMPTION_TRANSITIONS.standInPay, cur.state, { ...cur, updatedAt: deps.clock() }, { args: { paymentId: body.paymentId } });
      });
      // Each refusal is certain and lasting (told as the held path tells it): retrying the same request cannot help.
      if (refusal) throw refusal;
      if (!result.ok && result.reason === 'not_found') throw redemptionNotFound(id);
      if (!result.ok)
        throw problem('redemption_not_held', `Redemption ${id} is ${result.redemption.state}; start a new redemption`, { extra: outcomeOf(result.redemption) });
      return { record: result.redemption, again };
    },
    finish: async (claimed) => claimed,
    // Nothing was queued (the sale id refused): the stand-in may be paid by another payment.
    async free(_claimed, again) {
      if (again) return;
      await deps.redemptions.apply(id, deps.clock(), 'standInPayFreed', { when: (cur) => cur.paymentId === body.paymentId || 'not ours' });
    },
    settleLater: () => undefined,
  });
  const sale = saleIdClaim(
    deps,
    ctx,
    { kind: 'payment', id: body.paymentId, customerId: body.customerId, paymentId: body.paymentId, ...encodingMark(now) },
    { kind: 'payment', totalPaid: body.totalPaid, hold: null, coupons: null },
  );
  const work = {
    kind: 'payment' as const,
    request,
    ...encodingMark(now),
    standIn: {
      redemptionId: id,
      terminalId: r.terminalId,
      ...(r.standIn?.cashierId ? { cashierId: r.standIn.cashierId } : {}),
      ...(r.standIn?.shiftId ? { shiftId: r.standIn.shiftId } : {}),
      redeem: {
        customerId: r.customerId,
        transactionId: id,
        transactionTime: new Date(r.createdAt).toISOString(),
        points: r.standIn?.points ?? r.holdPoints ?? 0,
        ignoreOTP: true,
        reason: `stand-in ${id}`,
      },
    },
  };
  const answer = await claimActSettle<SaleAnswer | QueuedPayment>({
    what: `Payment ${body.paymentId}`,
    claims: [standIn, sale] as Claim<SaleAnswer | QueuedPayment>[],
    logger: deps.logger,
    // Always queued: the redeem must land before the sale, and the worker sends them in order, once each.
    send: async () => ({
      paymentId: body.paymentId,
      customerId: body.customerId,
      ...(await queueWork(deps, ctx, work, 'stand_in')),
    }),
    onRecord: (duplicate) => sale.onRecord(duplicate),
    audit: auditNote(deps, ctx, 'payment', () => saleSubject(body, r)),
  });
  return { ...(answer as QueuedPayment), redemption: { id, state: 'stand_in_paid' } } as QueuedPayment;
}

/**
 * The outbox worker's `recordAnswer` for a delivered stand-in: the redemption
 * `redeemed`, or `short` (the points refused for the balance; the sale went
 * without them): an audit entry `stand_in_short` with the points and money,
 * the terminal, cashier and shift, and a metric.
 */
export function settleStandIn(deps: { redemptions: RedemptionStore; audit?: AuditTrail; metrics: Pick<Metrics, 'standInShort'>; clock: () => number }) {
  return async (entry: OutboxEntry, result: Record<string, unknown>, log: Logger): Promise<void> => {
    const s = result.standIn as { redemptionId: string; outcome: 'redeemed' | 'short'; points: number } | undefined;
    if (entry.work.kind !== 'payment' || !s) return;
    const done = await deps.redemptions.apply(s.redemptionId, deps.clock(), s.outcome === 'short' ? 'standInShort' : 'standInRedeemed');
    // A record gone (kept a day after its last write; an outage or a dead letter can outlast that) is no reason to lose a shortfall.
    if (!done.ok) log.warn({ redemptionId: s.redemptionId, outcome: s.outcome, reason: done.reason }, 'stand-in: the redemption could not be settled');
    if (s.outcome !== 'short') return;
    deps.metrics.standInShort.inc();
    // The entry knows who rang it up and for whom, so the flag does not depend on the record.
    const work = entry.work;
    const money = work.request.totalDiscount ?? null;
    log.warn(
      { redemptionId: s.redemptionId, points: s.points, money, storeId: entry.storeId, terminalId: work.standIn?.terminalId ?? entry.terminalId },
      'stand-in short: points refused for the balance',
    );
    deps.audit?.record({
      at: deps.clock(),
      action: 'stand_in_short',
      outcome: 'applied',
      code: 'stand_in_short',
      storeId: entry.storeId,
      terminalId: work.standIn?.terminalId ?? entry.terminalId,
      cashierId: work.standIn?.cashierId,
      shiftId: work.standIn?.shiftId,
      customerId: work.standIn?.redeem.customerId ?? work.request.customerId,
      redemptionId: s.redemptionId,
      paymentId: work.request.paymentId,
      outboxId: entry.id,
      pointsHeld: s.points,
      ...(money !== null ? { amountPaid: money } : {}),
    });
  };
}

export type { QueuedView };

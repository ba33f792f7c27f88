import { applyTransition, REDEMPTION_TRANSITIONS } from '../money/machines';
import { renewLease } from '../money/lease';
import { AppError } from '../../platform/errors';
import { isProblem, problem } from '../../platform/problem';
import type { CallContext, SharedDeps } from '../context';
import type { OtpTicketStore } from '../otp';
import type { PosSettings } from '../settings';
import { settleFromUpstream } from './hold-outcome';
import { claim, Claimant, redemptionNotFound } from './claim';
import type { Redemption, RedemptionStore } from './types';
import { recordClaim, type RecordClaim } from '../money/claim-step';
import { storePolicy } from '../terminals/policy';

/** What every claim of a redemption uses. */
export type RedemptionClaimDeps = Pick<SharedDeps, 'loyalty' | 'repairs' | 'clock' | 'logger'> & { redemptions: RedemptionStore };
/** A payment's claim also keeps the safety margin before the hold ends. */
export type RedemptionPaymentClaimDeps = RedemptionClaimDeps & { settings: Pick<PosSettings, 'holdSafetyMarginSeconds'> };
/** The OTP step's claim also settles the customer's outstanding code. */
export type RedemptionOtpClaimDeps = RedemptionClaimDeps & { otpTickets: OtpTicketStore };

/** A redemption claimed by a payment, a void or an OTP step, with what the claim found. */
export type RedemptionClaim = RecordClaim<Redemption>;

/** Takes the redemption by the claim rule; a refusal is thrown as the till's error. */
async function take(deps: RedemptionClaimDeps, id: string, who: Claimant): Promise<{ record: Redemption; again: boolean }> {
  let refusal: AppError | undefined;
  let again = false;
  const result = await deps.redemptions.change(id, deps.clock(), (cur) => {
    // Only a claim still standing is a retry whose first attempt may have landed; `redeemed` was applied.
    again = cur.state === (who.kind === 'void' ? 'voiding' : 'paying');
    const next = claim(cur, who);
    if (next instanceof AppError) {
      refusal = next;
      return next.message;
    }
    return again ? renewLease(next) : next;
  });
  if (!result.ok && result.reason === 'not_found') throw redemptionNotFound(id);
  if (!result.ok) throw refusal ?? problem('redemption_busy', `Redemption ${id} could not be claimed: ${result.detail}`);
  return { record: result.redemption, again };
}

/**
 * Settles a claimed hold from the upstream's hold record, tried again while
 * the hold is still active: a payment may still be in flight upstream. Past
 * the hold's end the sweeper asks instead.
 */
function settleLater(deps: RedemptionClaimDeps, r: Redemption): void {
  deps.repairs?.add({
    key: `redemption:${r.id}`,
    settle: async () => {
      const recorded = await settleFromUpstream(deps, r);
      if (recorded === 'still_active' && deps.clock() < (r.expiresAt ?? 0)) throw new Error('the hold is still active upstream');
      return recorded;
    },
  });
}

/**
 * A held redemption claimed by a payment (`paying`). Applied: `redeemed`.
 * Refused: `held` again, unless the upstream says the hold is no longer active
 * (its hold record then says what it became). A claim that was already this
 * payment's (a till's retry after an unknown outcome) is never freed on a
 * refusal: the earlier attempt may have landed, so its record decides.
 */
export function redemptionForPayment(
  deps: RedemptionPaymentClaimDeps,
  ctx: CallContext,
  id: string,
  who: { customerId: string; paymentId: string },
): RedemptionClaim {
  return recordClaim(`redemption ${id}`, {
    take: () =>
      take(deps, id, {
        kind: 'payment',
        storeId: ctx.identity.store.id,
        ...who,
        now: deps.clock(),
        marginMs: storePolicy(ctx.identity.store, deps.settings).holdSafetyMarginSeconds * 1000,
      }),
    async finish() {
      const done = await deps.redemptions.apply(id, deps.clock(), 'payApplied', { when: (cur) => cur.paymentId === who.paymentId || `it is ${cur.state}` });
      if (!done.ok) throw new Error(`Redemption ${id} changed while its payment was applied`);
      return done.redemption;
    },
    async free(r, again, refusal) {
      // A retry refused: the first attempt may yet land (it may still be in flight upstream), so the hold's record decides, in time.
      if (again && !isProblem(refusal, 'hold_not_active')) return settleLater(deps, r);
      if (isProblem(refusal, 'hold_not_active')) {
        // The hold's own record says whether it was used, ended or is still active.
        const recorded = await settleFromUpstream(deps, r).catch(() => settleLater(deps, r));
        // Logged like the sweeper's expiries, so every dead hold leaves a line (here the upstream knew first: clocks apart).
        if (recorded === 'expired')
          deps.logger.info(
            { redemptionId: r.id, storeId: r.storeId, customerId: r.customerId, holdReference: r.holdReference, expiresAt: r.expiresAt, via: 'upstream' },
            'hold expired',
          );
        return;
      }
      await deps.redemptions.apply(id, deps.clock(), 'payRefused', { when: (cur) => cur.paymentId === who.paymentId || 'not ours' });
    },
    settleLater: (r) => settleLater(deps, r),
  });
}

/**
 * A held redemption claimed by a void (`voiding`). Applied: `voided`.
 * Refused: `held` again, unless this void was a retry, or the hold was used
 * (then the hold's record decides).
 */
export function redemptionForVoid(deps: RedemptionClaimDeps, ctx: CallContext, id: string): RedemptionClaim {
  return recordClaim(`redemption ${id}`, {
    take: () => take(deps, id, { kind: 'void', storeId: ctx.identity.store.id }),
    async finish() {
      const done = await deps.redemptions.apply(id, deps.clock(), 'voidApplied');
      if (!done.ok) throw new Error(`Redemption ${id} changed while its hold was released`);
      return done.redemption;
    },
    async free(r, again, refusal) {
      if (again || isProblem(refusal, 'redemption_used')) {
        await settleFromUpstream(deps, r).catch(() => settleLater(deps, r));
        return;
      }
      await deps.redemptions.apply(id, deps.clock(), 'voidRefused');
    },
    settleLater: (r) => settleLater(deps, r),
  });
}

/** A hold the OTP step placed: its reference, amounts and tracked end. */
export interface PlacedHold {
  hold: { holdReference: string; holdAmount?: number; holdEquivalentPoints?: number };
  expiresAt: number;
}

/**
 * A redemption waiting for its OTP, claimed while the code is checked by
 * placing the hold (`confirming`: one check at a time). Applied: `held` with
 * the hold. Refused (a wrong code): `otp_required` again. Unknown: a hold may
 * have been placed that no record names; it is given up (`expired`) and that
 * hold, if any, lapses by itself. A hold placed but not recorded is released.
 */
export function redemptionForOtp(deps: RedemptionOtpClaimDeps, ctx: CallContext, id: string): RecordClaim<Redemption, PlacedHold> {
  const giveUp = async (r: Redemption, hold?: PlacedHold) => {
    if (hold) {
      await deps.loyalty.holdCancel(hold.hold.holdReference, { requestId: ctx.requestId }).catch((err: unknown) => {
        // Released or ended already: the points are free either way.
        if (!(err instanceof AppError && (err.code === 'hold_already_cancelled' || err.code === 'hold_not_active'))) throw err;
      });
    }
    await deps.redemptions.apply(id, deps.clock(), 'confirmGivenUp');
    // The redemption is over: its code no longer stands in the way of a new start.
    await deps.otpTickets.settle(r.customerId, r.id);
    return hold ? 'released' : 'expired';
  };
  return recordClaim<Redemption, PlacedHold>(`redemption ${id}`, {
    async take() {
      let refusal: AppError | undefined;
      const result = await deps.redemptions.change(id, deps.clock(), (cur) => {
        if (cur.storeId !== ctx.identity.store.id) return (refusal = redemptionNotFound(id)).message;
        if (cur.state === 'confirming')
          return (refusal = problem('otp_in_progress', `A code for redemption ${id} is being checked; read the redemption for its outcome`)).message;
        if (cur.state !== 'otp_required')
          return (refusal = problem('redemption_not_awaiting_otp', `Redemption ${id} is ${cur.state}, not waiting for an OTP`, { extra: { state: cur.state } }))
            .message;
        return applyTransition(REDEMPTION_TRANSITIONS.confirm, cur.state, cur);
      });
      if (!result.ok && result.reason === 'not_found') throw redemptionNotFound(id);
      if (!result.ok) throw refusal ?? problem('redemption_busy', `Redemption ${id} could not be claimed`);
      return { record: result.redemption, again: false };
    },
    async finish(_r, answer) {
      const { hold, expiresAt } = answer as PlacedHold;
      const done = await deps.redemptions.apply(id, deps.clock(), 'confirmed', {
        args: { holdReference: hold.holdReference, holdAmount: hold.holdAmount, holdPoints: hold.holdEquivalentPoints, expiresAt },
      });
      if (!done.ok) throw new Error(`Redemption ${id} changed while its hold was placed`);
      return done.redemption;
    },
    async free() {
      await deps.redemptions.apply(id, deps.clock(), 'otpRefused');
    },
    settleLater: (r, answer) => deps.repairs?.add({ key: `redemption:${id}`, settle: () => giveUp(r, answer) }),
  });
}

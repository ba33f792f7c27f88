/** The OTP step: a code asked for one redemption (the customer's ticket), then the hold that code places. */
import { ConflictError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import { saleBucket } from '../../upstream';
import type { CallContext } from '../context';
import { claimActSettle, type Claim } from '../money/claim-step';
import { PlacedHold, redemptionForOtp } from './claims';
import type { OtpTicket } from '../otp';
import type { Redemption } from './types';
import { redemptionView, RedemptionView } from './view';
import { auditNote } from '../audit/record';
import { redemptionSubject } from '../audit/subjects';
import { type RedemptionDeps, askKey, findRedemption } from './redemption-deps';
import { otpIsProof, refuseUnchecked } from './proof';
import { placeHold } from './hold';
import { capCheck } from './cap';
import { pointsToCount } from './points-of-ask';

/** Another redemption's code is still out: only its own store's till is told which redemption. */
function codeOutstanding(standing: OtpTicket, storeId: string, now: number): ConflictError {
  const until = new Date(standing.lapsesAt).toISOString();
  const ours = standing.storeId === storeId;
  const detail = ours
    ? `A code sent to this customer for redemption ${standing.redemptionId} is still out: confirm that redemption with it (POST /redemptions/{id}/otp), or start again after ${until}`
    : `A code sent to this customer for a redemption at another store is still out; start again after ${until}`;
  return problem('otp_pending_for_another_redemption', detail, {
    retryAfterSeconds: Math.max(1, Math.ceil((standing.lapsesAt - now) / 1000)),
    extra: { ...(ours ? { redemptionId: standing.redemptionId } : {}), pendingUntil: until },
  });
}

/**
 * Has the customer sent a code for this redemption and records it as waiting;
 * the hash is kept for the hold. The customer's ticket is claimed before the
 * code is asked for and refused while another redemption's code is out, so
 * the upstream's live code is always the one the ticket names. The request
 * goes through the one claim -> act -> settle step: refused, the ticket is
 * given up; unknown, it is kept until it lapses (its code may yet be the live one).
 */
export async function askForOtp(deps: RedemptionDeps, ctx: CallContext, base: Redemption, hash: string | undefined): Promise<RedemptionView> {
  const now = deps.clock();
  // The ticket lapses with the code (OTP_CODE_MINUTES), so an unused code blocks the customer no longer than it lives.
  const lapsesAt = now + deps.settings.otpCodeMinutes * 60_000;
  const ticket: Claim = {
    name: `OTP ticket of ${base.customerId}`,
    take: async () => {
      const standing = await deps.otpTickets.claim(base.customerId, { redemptionId: base.id, storeId: base.storeId, ask: askKey(base.ask), lapsesAt }, now);
      if (standing) throw codeOutstanding(standing, base.storeId, now);
    },
    // The ticket stands while the code lives (the OTP step settles it); the redemption waits for the code.
    finish: () => deps.redemptions.create(record),
    free: () => deps.otpTickets.settle(base.customerId, base.id),
    // A code that may have been sent, or one no record names: the ticket is given up once Redis answers, or lapses with the code.
    settleLater: () =>
      deps.repairs?.add({ key: `otp-ticket:${base.id}`, settle: () => deps.otpTickets.settle(base.customerId, base.id).then(() => 'given up') }),
  };
  const record: Redemption = { ...base, hash };
  const ask = base.ask;
  await claimActSettle({
    what: `The code request of redemption ${base.id}`,
    claims: [ticket],
    logger: deps.logger,
    send: () =>
      deps.loyalty.otp(
        {
          customerId: base.customerId,
          email: base.email,
          mobile: base.mobile,
          amount: ask.kind === 'amount' ? ask.amount : undefined,
          points: ask.kind === 'points' ? ask.points : undefined,
          ruleId: ask.kind === 'rule' ? ask.ruleId : undefined,
        },
        // The checkout it starts ends in a sale: not begun when the sale's bucket has no room for a till's call.
        { requestId: ctx.requestId, thenNeeds: saleBucket(deps.settings.salesRecordedAs ?? 'payment') },
      ),
    onRecord: async () => false,
  });
  return redemptionView(record, base.createdAt);
}

/**
 * Before a code places a redemption's hold: the customer's ticket must still
 * name this redemption and its ask (so the live code is the one asked for it),
 * and where the code is the only proof, no answer since may have shown that
 * the account stopped checking codes.
 */
async function checkOtpTicket(deps: RedemptionDeps, r: Redemption): Promise<void> {
  const ticket = await deps.otpTickets.current(r.customerId, deps.clock());
  if (!ticket || ticket.redemptionId !== r.id || ticket.ask !== askKey(r.ask)) {
    throw problem(
      'otp_not_for_this_redemption',
      `The code out for this customer was not asked for redemption ${r.id} (its code lapsed, and another redemption may have had one sent since); start a new redemption to send a new code`,
    );
  }
  const policy = deps.settings.redemptionProof;
  if (otpIsProof(policy, r.hash) && (await deps.upstreamOtp.required()) === false) {
    await deps.otpTickets.settle(r.customerId, r.id);
    refuseUnchecked(policy);
  }
}

export async function submitOtp(deps: RedemptionDeps, ctx: CallContext, id: string, otp: string): Promise<RedemptionView> {
  const r = await findRedemption(deps, ctx, id);
  // Another code is placing the hold: the same answer its claim gives when the two race closer.
  if (r.state === 'confirming') throw problem('otp_in_progress', `A code for redemption ${id} is being checked; read the redemption for its outcome`);
  if (r.state !== 'otp_required')
    throw problem('redemption_not_awaiting_otp', `Redemption ${id} is ${r.state}, not waiting for an OTP`, { extra: { state: r.state } });
  // Only the code asked for this very redemption (same customer, same points or amount) may place its hold.
  const ticket: Claim = {
    name: `OTP ticket of ${r.customerId}`,
    take: () => checkOtpTicket(deps, r),
    // The code is used up by the hold it placed.
    finish: () => deps.otpTickets.settle(r.customerId, r.id).catch(() => undefined),
    // A wrong code: the same code request stands for the right one.
    free: async () => undefined,
    settleLater: () => undefined,
  };
  // The day's cap: the points are counted before the code places the hold, corrected to what it took, given back if it is refused.
  const cap: Claim<PlacedHold> = {
    name: `redemption cap of ${r.customerId}`,
    take: async () => capCheck(deps, ctx.identity.store, r, await pointsToCount(deps, ctx.identity.store, r.ask, ctx.requestId)),
    finish: async (answer) => {
      if (answer?.hold.holdEquivalentPoints !== undefined) await deps.redemptionCap?.correct(r, answer.hold.holdEquivalentPoints).catch(() => undefined);
    },
    free: async () => deps.redemptionCap?.giveBack(r).catch(() => undefined),
    // Maybe held: kept counted (the sweep gives it back if the hold ends unused).
    settleLater: () => undefined,
  };
  const confirming = redemptionForOtp(deps, ctx, id);
  await claimActSettle<PlacedHold>({
    what: `The hold of redemption ${id}`,
    claims: [ticket, cap, confirming],
    logger: deps.logger,
    send: () => placeHold(deps, ctx, r, { otp, hash: r.hash }),
    onRecord: async () => false,
    audit: auditNote(deps, ctx, 'otp_step', redemptionSubject(id, r)),
  });
  return redemptionView(confirming.ended as Redemption, deps.clock());
}

/** Starting a redemption: its proof checked, then its hold placed now or a code asked for first. */
import { isProblem } from '../../platform/problem';
import type { HoldAnswer } from '../../upstream';
import type { CallContext } from '../context';
import type { Redemption, RedemptionAsk } from './types';
import type { StartRedemptionBody } from './schemas';
import { redemptionView, RedemptionView } from './view';
import { audited, noteForAudit } from '../audit/record';
import { startSubject } from './start-subject';
import { newRedemptionId } from './redemption-deps';
import { parseQr, refuseUnchecked, routeFor, requireCustomer, refuseForeignCode } from './proof';
import { sendHold, expiryOf, releaseOrphan } from './hold';
import { askForOtp } from './otp-step';
import { capCheck } from './cap';
import { pointsToCount } from './points-of-ask';
import type { AuditSubject } from '../audit/types';
import { holdPlaced, otpAccountOrThrow, qrOrThrow, standInApproved, standInOrThrow, type StandInDeps } from './stand-in';

function askOf(body: StartRedemptionBody): RedemptionAsk {
  if (body.amount !== undefined) return { kind: 'amount', amount: body.amount };
  if (body.points !== undefined) return { kind: 'points', points: body.points };
  return { kind: 'rule', ruleId: body.ruleId as string };
}

/** The upstream refused a hold that carried no code for want of one: its account checks OTPs. */
const otpWanted = (err: unknown, otp: string | undefined) => otp === undefined && isProblem(err, 'otp_invalid');

async function holdNow(
  deps: StandInDeps,
  ctx: CallContext,
  base: Redemption,
  proof: { hash?: string; otp?: string; otpIsProof: boolean },
): Promise<RedemptionView> {
  const { hash, otp } = proof;
  const startedAt = deps.clock();
  let hold: HoldAnswer;
  try {
    hold = await sendHold(deps, ctx, base, { hash, otp }, startedAt);
  } catch (err) {
    if (!otpWanted(err, otp)) return standInOrThrow(deps, ctx, base, err, hash);
    // This very hold was refused for want of a code, so the account checks codes: have one sent for this redemption.
    return askForOtp(deps, ctx, base, hash);
  }
  holdPlaced(deps);
  if (otp === undefined && proof.otpIsProof) {
    // Placed without a code: the account does not check OTPs, and nothing else here shows the customer is present.
    await releaseOrphan(deps, ctx, hold.holdReference);
    refuseUnchecked(deps.settings.redemptionProof);
  }
  noteForAudit({ holdReference: hold.holdReference });
  const expiresAt = await expiryOf(deps, ctx, base.id, hold, startedAt);
  const record: Redemption = {
    ...base,
    state: 'held',
    holdReference: hold.holdReference,
    holdAmount: hold.holdAmount,
    holdPoints: hold.holdEquivalentPoints,
    expiresAt,
    updatedAt: deps.clock(),
  };
  try {
    await deps.redemptions.create(record);
  } catch (err) {
    await releaseOrphan(deps, ctx, hold.holdReference);
    throw err;
  }
  return redemptionView(record, deps.clock());
}

/** How the customer was shown to be present at the start, as its audit entry records it (the typed_customer_id signal reads it). */
function proofOf(body: StartRedemptionBody, path: 'hold' | 'send_otp'): NonNullable<AuditSubject['proof']> {
  if (body.qr !== undefined) return 'qr';
  if (body.hash !== undefined) return 'hash';
  return path === 'send_otp' || body.otp !== undefined ? 'otp' : 'none';
}

/** Starts a redemption; audited as `redemption_start`. */
export function startRedemption(deps: StandInDeps, ctx: CallContext, body: StartRedemptionBody): Promise<RedemptionView> {
  return audited(deps, ctx, 'redemption_start', startSubject(body), (c) => start(deps, c, body));
}

async function start(deps: StandInDeps, ctx: CallContext, body: StartRedemptionBody): Promise<RedemptionView> {
  const who = body.qr ? parseQr(body.qr) : { customerId: body.customerId as string, hash: body.hash };
  const route = await routeFor(deps, who.hash, body.otp);
  noteForAudit({ proof: proofOf(body, route.path) });
  const now = deps.clock();
  const base: Redemption = {
    id: newRedemptionId(),
    storeId: ctx.identity.store.id,
    terminalId: ctx.identity.terminal.id,
    customerId: who.customerId,
    email: body.email,
    mobile: body.mobile,
    ask: askOf(body),
    state: 'otp_required',
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  const approved = route.path === 'hold' ? await standInApproved(deps, ctx, base, who.hash) : undefined;
  if (approved) return approved;
  // The day's cap, before anything is sent upstream: counted now when the hold is placed now; a start that has a
  // code sent is only checked (the OTP step counts the points when the code places the hold).
  const points = await pointsToCount(deps, ctx.identity.store, base.ask, ctx.requestId);
  await capCheck(deps, ctx.identity.store, base, points, { reserve: route.path === 'hold' });
  const counted = route.path === 'hold' && deps.redemptionCap !== undefined;
  try {
    // Only a start without a hash reads the customer (requireCustomer): its failure may be the outage stand-in names.
    await requireCustomer(deps, ctx, who.customerId, { hash: who.hash, route }).catch((err: unknown) => qrOrThrow(deps, ctx, err));
    if (body.otp !== undefined) await refuseForeignCode(deps, who.customerId);
  } catch (err) {
    if (counted) await deps.redemptionCap?.giveBack(base).catch(() => undefined);
    throw err;
  }
  // A terminal may only have so many redemptions open (MAX_OPEN_REDEMPTIONS_PER_TERMINAL).
  const release = await deps.openRedemptions?.admit(ctx.identity.terminal.id, base.id, now).catch(async (err: unknown) => {
    if (counted) await deps.redemptionCap?.giveBack(base).catch(() => undefined);
    throw err;
  });
  let view: RedemptionView;
  try {
    view =
      route.path === 'send_otp'
        ? await askForOtp(deps, ctx, base, who.hash).catch((err: unknown) => otpAccountOrThrow(deps, ctx, err))
        : await holdNow(deps, ctx, base, { hash: who.hash, otp: body.otp, otpIsProof: route.otpIsProof });
  } catch (err) {
    await release?.().catch(() => undefined);
    // Not held (refused, or unknown: then no record names the hold, and it lapses upstream by itself).
    if (counted) await deps.redemptionCap?.giveBack(base).catch(() => undefined);
    throw err;
  }
  if (counted) {
    // Held: counted for what the hold took. Sent to the OTP step instead: counted there, when its code places the hold.
    // A stand-in counts as a hold does: the cap holds online and in stand-in.
    if (view.state === 'held' || view.state === 'stand_in') await deps.redemptionCap?.correct(base, view.points ?? points).catch(() => undefined);
    else await deps.redemptionCap?.giveBack(base).catch(() => undefined);
  }
  if (view.state === 'otp_required') noteForAudit({ proof: proofOf(body, 'send_otp') });
  return view;
}

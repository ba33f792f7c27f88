import { randomBytes } from 'node:crypto';
import type { HoldRequest } from '../../contract';
import { ConflictError, UnprocessableError } from '../../platform/errors';
import { isProblem, problem } from '../../platform/problem';
import type { HoldAnswer } from '../../upstream';
import type { CallContext } from '../context';
import type { PosSettings, RedemptionProof } from '../settings';
import { claimActSettle, type Claim } from '../money/claim-step';
import { PlacedHold, redemptionForOtp, redemptionForVoid, type RedemptionOtpClaimDeps } from './claims';
import type { OtpTicket, UpstreamOtp } from '../otp';
import { confirmExpiry, estimatedExpiry, lookUpExpiry, type HoldPeriodDeps } from './hold-period';
import type { Redemption, RedemptionAsk } from './types';
import { CustomerId } from '../fields';
import { Hash, type StartRedemptionBody } from './schemas';
import { redemptionView, RedemptionView } from './view';
import { auditNote, noteForAudit, type AuditDeps } from '../audit/record';
import type { OpenRedemptionCap } from './open-redemptions';
import { redemptionSubject } from '../audit/subjects';

/** What the redemption use cases are given. */
export type RedemptionDeps = RedemptionOtpClaimDeps &
  HoldPeriodDeps &
  AuditDeps & {
    settings: Pick<PosSettings, 'redemptionProof' | 'otpCodeMinutes' | 'holdExpiryLookup'>;
    /** Whether the loyalty account checks OTPs (OTP_MODE, or followed from answers for a while). */
    upstreamOtp: UpstreamOtp;
    /** MAX_OPEN_REDEMPTIONS_PER_TERMINAL; absent = no cap. */
    openRedemptions?: OpenRedemptionCap;
  };

export function newRedemptionId(): string {
  return `rdm_${randomBytes(12).toString('base64url')}`;
}

/**
 * Splits a QR payload into the customer id and the customer's hash. A
 * separator (`:` or `|`) decides when there is one: the last one splits, so a
 * customer id may hold separators and digits, and the hash is all that follows
 * (the published reference types it only as a string). With no separator the
 * payload is the published form, the id directly followed by a six-digit hash:
 * the last six characters, which must be digits.
 */
export function parseQr(qr: string): { customerId: string; hash: string } {
  const at = Math.max(qr.lastIndexOf(':'), qr.lastIndexOf('|'));
  const [id, hash] = at >= 0 ? [qr.slice(0, at), qr.slice(at + 1)] : (/^(.*)(\d{6})$/.exec(qr)?.slice(1) ?? ['', '']);
  const customerId = CustomerId.safeParse(id);
  if (!customerId.success || !Hash.safeParse(hash).success) {
    throw problem('qr_invalid', "The QR code does not hold a customer id followed by the customer's hash");
  }
  return { customerId: customerId.data, hash };
}

function askOf(body: StartRedemptionBody): RedemptionAsk {
  if (body.amount !== undefined) return { kind: 'amount', amount: body.amount };
  if (body.points !== undefined) return { kind: 'points', points: body.points };
  return { kind: 'rule', ruleId: body.ruleId as string };
}

function holdFields(ask: RedemptionAsk): Pick<HoldRequest, 'amountToHold' | 'pointsToHold' | 'ruleId'> {
  if (ask.kind === 'amount') return { amountToHold: ask.amount };
  if (ask.kind === 'points') return { pointsToHold: ask.points };
  return { ruleId: ask.ruleId };
}

/** Reads a redemption of the caller's store; another store's is "not found" so ids cannot be probed. */
export async function findRedemption(deps: Pick<RedemptionDeps, 'redemptions' | 'clock'>, ctx: CallContext, id: string): Promise<Redemption> {
  const r = await deps.redemptions.get(id, deps.clock());
  if (!r || r.storeId !== ctx.identity.store.id) throw problem('redemption_not_found', `Redemption ${id} was not found`);
  return r;
}

/**
 * Sends the hold. Every answer shows whether the account checks OTPs: a
 * refusal for a missing or wrong code says it does, a hold placed without a
 * code says it does not; a hold placed with a code says nothing (an account
 * that does not check codes ignores it).
 */
async function sendHold(
  deps: RedemptionDeps,
  ctx: CallContext,
  r: Pick<Redemption, 'customerId' | 'email' | 'mobile' | 'ask'>,
  extra: { hash?: string; otp?: string },
  startedAt: number,
  priority: 'secondLeg' | 'cashier' = 'cashier',
): Promise<HoldAnswer> {
  let hold: HoldAnswer;
  try {
    hold = await deps.loyalty.hold(
      {
        customerId: r.customerId,
        transactionTime: new Date(startedAt).toISOString(),
        email: r.email,
        mobile: r.mobile,
        hash: extra.hash,
        otp: extra.otp,
        ...holdFields(r.ask),
      },
      { requestId: ctx.requestId, priority },
    );
  } catch (err) {
    if (isProblem(err, 'otp_invalid')) await deps.upstreamOtp.learn(true);
    throw err;
  }
  if (extra.otp === undefined) await deps.upstreamOtp.learn(false);
  return hold;
}

/**
 * A placed hold's end, estimated from the account's hold period and corrected
 * by a hold lookup sent after the answer (see ../redemptions/hold-period.ts and
 * HOLD_EXPIRY_LOOKUP), or before it.
 */
async function expiryOf(deps: RedemptionDeps, ctx: CallContext, id: string, hold: HoldAnswer, startedAt: number): Promise<number> {
  const answeredAt = deps.clock();
  const estimate = estimatedExpiry(deps, startedAt);
  const lookup = deps.settings.holdExpiryLookup ?? 'after_answer';
  const exact = lookup === 'before_answer' ? await lookUpExpiry(deps, ctx, hold, answeredAt) : undefined;
  if (lookup === 'after_answer') void confirmExpiry(deps, ctx, id, hold, { answeredAt, estimate });
  return exact ?? estimate;
}

/** Places the upstream hold; the answer waits for it alone. */
async function placeHold(
  deps: RedemptionDeps,
  ctx: CallContext,
  r: Pick<Redemption, 'id' | 'customerId' | 'email' | 'mobile' | 'ask'>,
  extra: { hash?: string; otp?: string },
) {
  const startedAt = deps.clock();
  const hold = await sendHold(deps, ctx, r, extra, startedAt, 'secondLeg');
  return { hold, expiresAt: await expiryOf(deps, ctx, r.id, hold, startedAt) };
}

/** Best effort: a hold we could not record must not keep the customer's points locked. */
async function releaseOrphan(deps: RedemptionDeps, ctx: CallContext, holdReference: string) {
  await deps.loyalty.holdCancel(holdReference, { requestId: ctx.requestId }).catch((err) => {
    deps.logger.error({ requestId: ctx.requestId, err: (err as Error).message }, 'could not release an unrecorded hold; it will lapse at its expiry');
  });
}

/** An ask as one comparable string, for binding an OTP to what it was sent for. */
export function askKey(ask: RedemptionAsk): string {
  if (ask.kind === 'amount') return `amount:${ask.amount}`;
  if (ask.kind === 'points') return `points:${ask.points}`;
  return `rule:${ask.ruleId}`;
}

/**
 * How a start goes: the hold now, or a code first. `otpIsProof`: an OTP the
 * account checks is this start's only proof of presence, so a hold placed
 * without one proves nothing.
 */
interface Route {
  path: 'hold' | 'send_otp';
  otpIsProof: boolean;
}

/** Nothing but an OTP shows this customer is present: REDEMPTION_PROOF=otp, or hash_or_otp without the QR code's hash. */
const otpIsProof = (policy: RedemptionProof, hash: string | undefined) => policy === 'otp' || (policy === 'hash_or_otp' && hash === undefined);

function proofRequired(
  detail = "This store needs the customer present: scan the QR code from the customer's app (qr, or customerId with hash)",
): UnprocessableError {
  return problem('proof_required', detail);
}

/** The refusal when the OTP was to be the proof and the account does not check OTPs. */
function refuseUnchecked(policy: RedemptionProof): never {
  if (policy === 'otp') {
    throw problem(
      'otp_not_checked',
      'The store requires an OTP for every redemption (REDEMPTION_PROOF=otp), but the loyalty account does not check OTPs; ask a manager',
    );
  }
  throw proofRequired(
    "The loyalty account does not check OTPs, so a code proves nothing: scan the QR code from the customer's app (qr, or customerId with hash)",
  );
}

/**
 * The store's proof-of-presence policy (REDEMPTION_PROOF): which way this
 * start goes, or a refusal before anything is asked of the upstream.
 *
 * An OTP proves presence only if the upstream checked it, and a hold placed
 * with a code never shows that (an account that does not check OTPs ignores
 * the code); only a refusal for want of a code does. So unless the answer is
 * given (OTP_MODE=on/off, or the sandbox's account read live), a code that is
 * the only proof is asked for only after
 * this very redemption's hold, sent without one, was refused for want of one,
 * and a code given with the start itself is no proof. What the fleet learnt
 * last (until it expires, ../otp/upstream-otp.ts) decides the rest: "not
 * checked" refuses at once, "checked" with a hash asks for the code straight away.
 */
async function routeFor(deps: RedemptionDeps, hash: string | undefined, otp: string | undefined): Promise<Route> {
  const policy = deps.settings.redemptionProof;
  if (policy === 'hash' && hash === undefined) throw proofRequired();
  const onlyOtp = otpIsProof(policy, hash);
  const checked = await deps.upstreamOtp.required();
  if (onlyOtp && checked === false) refuseUnchecked(policy);
  const checkedNow = deps.upstreamOtp.live && checked === true;
  if (otp !== undefined) {
    if (onlyOtp && !checkedNow) {
      throw proofRequired(
        'A code given with the start cannot be shown to be checked by the loyalty service: start without one, and the BFF has a code sent for this redemption (then POST /redemptions/{id}/otp)',
      );
    }
    return { path: 'hold', otpIsProof: onlyOtp };
  }
  if (checked === true && (checkedNow || !onlyOtp)) return { path: 'send_otp', otpIsProof: onlyOtp };
  return { path: 'hold', otpIsProof: onlyOtp };
}

/**
 * An unknown customer is refused before anything is placed, so no profile is
 * created upstream by a typo. Only needed when nothing else in the start
 * proves the customer exists: a hash is issued only for an existing customer
 * (the hold checks it), and the OTP request refuses an unknown customer
 * itself (7000, answered as 404 customer_not_found). Skipping the read then
 * saves the start a whole upstream round trip.
 */
async function requireCustomer(deps: RedemptionDeps, ctx: CallContext, customerId: string, proof: { hash?: string; route: Route }): Promise<void> {
  if (proof.hash !== undefined || proof.route.path === 'send_otp') return;
  await deps.loyalty.balance(customerId, { requestId: ctx.requestId });
}

/** A code given with the start itself must not be one the BFF asked for another redemption. */
async function refuseForeignCode(deps: RedemptionDeps, customerId: string): Promise<void> {
  if (await deps.otpTickets.current(customerId, deps.clock())) {
    throw problem(
      'otp_for_another_redemption',
      'The code sent to this customer was asked for another redemption; confirm that redemption with it (POST /redemptions/{id}/otp), or start again without a code',
    );
  }
}

export async function startRedemption(deps: RedemptionDeps, ctx: CallContext, body: StartRedemptionBody): Promise<RedemptionView> {
  const who = body.qr ? parseQr(body.qr) : { customerId: body.customerId as string, hash: body.hash };
  const route = await routeFor(deps, who.hash, body.otp);
  await requireCustomer(deps, ctx, who.customerId, { hash: who.hash, route });
  if (body.otp !== undefined) await refuseForeignCode(deps, who.customerId);
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
  // A terminal may only have so many redemptions open (MAX_OPEN_REDEMPTIONS_PER_TERMINAL).
  const release = await deps.openRedemptions?.admit(ctx.identity.terminal.id, base.id, now);
  try {
    return route.path === 'send_otp'
      ? await askForOtp(deps, ctx, base, who.hash)
      : await holdNow(deps, ctx, base, { hash: who.hash, otp: body.otp, otpIsProof: route.otpIsProof });
  } catch (err) {
    await release?.().catch(() => undefined);
    throw err;
  }
}

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
async function askForOtp(deps: RedemptionDeps, ctx: CallContext, base: Redemption, hash: string | undefined): Promise<RedemptionView> {
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
        { requestId: ctx.requestId },
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

/** The upstream refused a hold that carried no code for want of one: its account checks OTPs. */
const otpWanted = (err: unknown, otp: string | undefined) => otp === undefined && isProblem(err, 'otp_invalid');

async function holdNow(
  deps: RedemptionDeps,
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
    if (!otpWanted(err, otp)) throw err;
    // This very hold was refused for want of a code, so the account checks codes: have one sent for this redemption.
    return askForOtp(deps, ctx, base, hash);
  }
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

export async function submitOtp(deps: RedemptionDeps, ctx: CallContext, id: string, otp: string): Promise<RedemptionView> {
  const r = await findRedemption(deps, ctx, id);
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
  const confirming = redemptionForOtp(deps, ctx, id);
  await claimActSettle<PlacedHold>({
    what: `The hold of redemption ${id}`,
    claims: [ticket, confirming],
    logger: deps.logger,
    send: () => placeHold(deps, ctx, r, { otp, hash: r.hash }),
    onRecord: async () => false,
    audit: auditNote(deps, ctx, 'otp_step', redemptionSubject(id, r)),
  });
  return redemptionView(confirming.ended as Redemption, deps.clock());
}

export async function getRedemption(deps: Pick<RedemptionDeps, 'redemptions' | 'clock'>, ctx: CallContext, id: string): Promise<RedemptionView> {
  return redemptionView(await findRedemption(deps, ctx, id), deps.clock());
}

/**
 * Voids a held redemption through the one claim -> act -> settle step: claimed
 * for the void (`voiding`: the rule a payment claims by, so of a void and a
 * payment racing exactly one wins), the hold released upstream, then `voided`.
 * A release the upstream refuses as already done is checked against the hold's
 * own record: ended means voided; used means a payment took it, and that is
 * what the redemption becomes, never `voided`.
 */
export async function voidRedemption(deps: RedemptionDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
  const voiding = redemptionForVoid(deps, ctx, id);
  await claimActSettle({
    what: `The void of redemption ${id}`,
    claims: [voiding],
    logger: deps.logger,
    send: async () => {
      const r = voiding.claimed;
      try {
        await deps.loyalty.holdCancel(r.holdReference as string, { requestId: ctx.requestId });
      } catch (err) {
        if (!isProblem(err, 'hold_already_cancelled', 'hold_not_active')) throw err;
        const hold = await deps.loyalty.holdLookup(r.holdReference as string, { requestId: ctx.requestId });
        if (hold.state === 'used') throw problem('redemption_used', `The hold of redemption ${id} was used by a payment; it cannot be voided`);
        if (hold.state !== 'expired' && hold.state !== 'released')
          throw problem('hold_state_unclear', `The loyalty service refused the release of redemption ${id}'s hold but calls it ${hold.state ?? 'nothing'}`);
      }
    },
    onRecord: async () => false,
    audit: auditNote(deps, ctx, 'redemption_void', () => redemptionSubject(id, voiding.claimed)),
  });
  return redemptionView(voiding.ended as Redemption, deps.clock());
}

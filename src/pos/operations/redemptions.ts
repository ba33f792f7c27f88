import { randomBytes } from 'node:crypto';
import type { HoldRequest } from '../../contract';
import { AppError, ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError, UpstreamError } from '../../platform/errors';
import type { CallContext, PosDeps } from '../deps';
import { claimActSettle } from '../money/claim-step';
import { PlacedHold, redemptionForOtp, redemptionForVoid } from '../money/redemption-claims';
import { confirmExpiry, estimatedExpiry, lookUpExpiry } from '../redemptions/hold-period';
import type { Redemption, RedemptionAsk } from '../redemptions/types';
import type { StartRedemptionBody } from '../schemas';
import { redemptionView, RedemptionView } from './redemption-view';

export function newRedemptionId(): string {
  return `rdm_${randomBytes(12).toString('base64url')}`;
}

/**
 * Splits a QR payload: the customer id, then the six-digit hash (an optional
 * `:` or `|` between), or any other hash after the last `:` or `|` (the
 * published reference does not promise six digits).
 */
export function parseQr(qr: string): { customerId: string; hash: string } {
  const m = /^(.+?)[:|]?(\d{6})$/.exec(qr) ?? /^(.+)[:|]([^:|]{1,64})$/.exec(qr);
  // A customer id made only of separators (":123456"), or longer than any customer id, is none.
  if (!m || !m[1].replace(/[:|]/g, '').trim() || m[1].length > 200) throw new UnprocessableError('qr_invalid', 'The QR code does not hold a customer id followed by the customer\'s hash');
  return { customerId: m[1], hash: m[2] };
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
export async function findRedemption(deps: PosDeps, ctx: CallContext, id: string): Promise<Redemption> {
  const r = await deps.redemptions.get(id, deps.clock());
  if (!r || r.storeId !== ctx.identity.store.id) throw new NotFoundError('redemption_not_found', `Redemption ${id} was not found`);
  return r;
}

/**
 * Places the upstream hold; the answer waits for it alone. Its end is
 * estimated from the account's hold period and corrected by a hold lookup
 * sent after the answer (see ../redemptions/hold-period.ts and HOLD_EXPIRY_LOOKUP).
 */
async function placeHold(deps: PosDeps, ctx: CallContext, r: Pick<Redemption, 'id' | 'customerId' | 'email' | 'mobile' | 'ask'>, extra: { hash?: string; otp?: string }) {
  const startedAt = deps.clock();
  const hold = await deps.loyalty.hold(
    {
      customerId: r.customerId,
      transactionTime: new Date(startedAt).toISOString(),
      email: r.email,
      mobile: r.mobile,
      hash: extra.hash,
      otp: extra.otp,
      ...holdFields(r.ask),
    },
    { requestId: ctx.requestId },
  );
  const answeredAt = deps.clock();
  const estimate = estimatedExpiry(deps, startedAt);
  const lookup = deps.settings.holdExpiryLookup ?? 'after_answer';
  const exact = lookup === 'before_answer' ? await lookUpExpiry(deps, ctx, hold, answeredAt) : undefined;
  if (lookup === 'after_answer') void confirmExpiry(deps, ctx, r.id, hold, { answeredAt, estimate });
  return { hold, expiresAt: exact ?? estimate };
}

/** Best effort: a hold we could not record must not keep the customer's points locked. */
async function releaseOrphan(deps: PosDeps, ctx: CallContext, holdReference: string) {
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

/** How long the BFF remembers which redemption a customer's newest code is for (longer than any code lives). */
const OTP_TICKET_TTL_MS = 60 * 60_000;

type Route = 'hold' | 'send_otp';

/**
 * The store's proof-of-presence policy (REDEMPTION_PROOF): which way this
 * start goes, or a refusal before anything is asked of the upstream. An OTP
 * counts as proof only when the account checks OTPs; otherwise the upstream
 * would ignore it and any six digits would do.
 */
function routeFor(deps: PosDeps, hash: string | undefined, otp: string | undefined): Route {
  const policy = deps.settings.redemptionProof;
  const otpChecked = deps.upstreamOtp.required();
  if (policy === 'otp' && otpChecked === false) {
    throw new UpstreamError('otp_not_checked', 'The store requires an OTP for every redemption (REDEMPTION_PROOF=otp), but the loyalty account does not check OTPs; ask a manager');
  }
  const proved = hash !== undefined || (otp !== undefined && otpChecked === true);
  if (policy === 'hash' && hash === undefined) {
    throw new UnprocessableError('proof_required', 'This store needs the customer present: scan the QR code from the customer\'s app (qr, or customerId with hash)');
  }
  if (policy === 'hash_or_otp' && !proved && otpChecked !== true) {
    throw new UnprocessableError('proof_required', 'This store needs the customer present: scan the QR code from the customer\'s app (qr, or customerId with hash)');
  }
  if (otp !== undefined) return 'hold';
  if (policy === 'otp' || otpChecked === true) return 'send_otp';
  return 'hold';
}

/**
 * An unknown customer is refused before anything is placed, so no profile is
 * created upstream by a typo. Only needed when nothing else in the start
 * proves the customer exists: a hash is issued only for an existing customer
 * (the hold checks it), and the OTP request refuses an unknown customer
 * itself (7000, answered as 404 customer_not_found). Skipping the read then
 * saves the start a whole upstream round trip.
 */
async function requireCustomer(deps: PosDeps, ctx: CallContext, customerId: string, proof: { hash?: string; route: Route }): Promise<void> {
  if (proof.hash !== undefined || proof.route === 'send_otp') return;
  await deps.loyalty.balance(customerId, { requestId: ctx.requestId });
}

/** A code given with the start itself must not be one the BFF asked for another redemption. */
async function refuseForeignCode(deps: PosDeps, customerId: string): Promise<void> {
  if (await deps.otpTickets.current(customerId)) {
    throw new ConflictError('otp_for_another_redemption', 'The newest code sent to this customer was asked for another redemption; confirm that redemption with it (POST /redemptions/{id}/otp), or start again without a code');
  }
}

export async function startRedemption(deps: PosDeps, ctx: CallContext, body: StartRedemptionBody): Promise<RedemptionView> {
  const who = body.qr ? parseQr(body.qr) : { customerId: body.customerId as string, hash: body.hash };
  const route = routeFor(deps, who.hash, body.otp);
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
    return route === 'send_otp' ? await askForOtp(deps, ctx, base, who.hash) : await holdNow(deps, ctx, base, who.hash, body.otp);
  } catch (err) {
    await release?.().catch(() => undefined);
    throw err;
  }
}

/** Sends the customer a code for this redemption and records it as waiting; the hash is kept for the hold. */
async function askForOtp(deps: PosDeps, ctx: CallContext, base: Redemption, hash: string | undefined): Promise<RedemptionView> {
  // The ticket is written before the code exists, so no code can be read out while an older ticket still stands.
  await deps.otpTickets.issue(base.customerId, { redemptionId: base.id, ask: askKey(base.ask) }, OTP_TICKET_TTL_MS);
  try {
    const ask = base.ask;
    await deps.loyalty.otp(
      {
        customerId: base.customerId,
        email: base.email,
        mobile: base.mobile,
        amount: ask.kind === 'amount' ? ask.amount : undefined,
        points: ask.kind === 'points' ? ask.points : undefined,
        ruleId: ask.kind === 'rule' ? ask.ruleId : undefined,
      },
      { requestId: ctx.requestId },
    );
    const record: Redemption = { ...base, hash };
    await deps.redemptions.create(record);
    return redemptionView(record, base.createdAt);
  } catch (err) {
    await deps.otpTickets.settle(base.customerId, base.id).catch(() => undefined);
    throw err;
  }
}

/** The upstream refused a hold that carried no code for want of one: its account checks OTPs. */
const otpWanted = (err: unknown, otp: string | undefined) => otp === undefined && err instanceof AppError && err.code === 'otp_invalid';

async function holdNow(deps: PosDeps, ctx: CallContext, base: Redemption, hash: string | undefined, otp: string | undefined): Promise<RedemptionView> {
  let placed;
  try {
    placed = await placeHold(deps, ctx, base, { hash, otp });
  } catch (err) {
    if (!otpWanted(err, otp)) throw err;
    // The account wants an OTP after all (a real service we had not heard from yet): ask for one.
    deps.upstreamOtp.learn(true);
    return askForOtp(deps, ctx, base, hash);
  }
  if (otp === undefined) deps.upstreamOtp.learn(false);
  const { hold, expiresAt } = placed;
  const record: Redemption = { ...base, state: 'held', holdReference: hold.holdReference, holdAmount: hold.holdAmount, holdPoints: hold.holdEquivalentPoints, expiresAt, updatedAt: deps.clock() };
  try {
    await deps.redemptions.create(record);
  } catch (err) {
    await releaseOrphan(deps, ctx, hold.holdReference);
    throw err;
  }
  return redemptionView(record, deps.clock());
}

export async function submitOtp(deps: PosDeps, ctx: CallContext, id: string, otp: string): Promise<RedemptionView> {
  const r = await findRedemption(deps, ctx, id);
  if (r.state !== 'otp_required') throw new ConflictError('redemption_not_awaiting_otp', `Redemption ${id} is ${r.state}, not waiting for an OTP`, { extra: { state: r.state } });
  // Only the newest code asked for this very redemption (same customer, same points or amount) may place its hold.
  const ticket = await deps.otpTickets.current(r.customerId);
  if (!ticket || ticket.redemptionId !== r.id || ticket.ask !== askKey(r.ask)) {
    throw new ConflictError('otp_not_for_this_redemption', `The newest code sent to this customer was not asked for redemption ${id} (another redemption asked since, or it lapsed); start a new redemption to send a new code`);
  }
  const confirming = redemptionForOtp(deps, ctx, id);
  await claimActSettle<PlacedHold>({
    what: `The hold of redemption ${id}`,
    claims: [confirming],
    logger: deps.logger,
    send: () => placeHold(deps, ctx, r, { otp, hash: r.hash }),
    onRecord: async () => false,
  });
  await deps.otpTickets.settle(r.customerId, r.id).catch(() => undefined);
  return redemptionView(confirming.ended as Redemption, deps.clock());
}

export async function getRedemption(deps: PosDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
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
export async function voidRedemption(deps: PosDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
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
        if (!(err instanceof AppError && (err.code === 'hold_already_cancelled' || err.code === 'hold_not_active'))) throw err;
        const hold = await deps.loyalty.holdLookup(r.holdReference as string, { requestId: ctx.requestId });
        if (hold.state === 'used') throw new ConflictError('redemption_used', `The hold of redemption ${id} was used by a payment; it cannot be voided`);
        if (hold.state !== 'expired' && hold.state !== 'released') throw new ServiceUnavailableError('hold_state_unclear', `The loyalty service refused the release of redemption ${id}'s hold but calls it ${hold.state ?? 'nothing'}`);
      }
    },
    onRecord: async () => false,
  });
  return redemptionView(voiding.ended as Redemption, deps.clock());
}

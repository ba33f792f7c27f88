import { randomBytes } from 'node:crypto';
import type { HoldRequest } from '../../contract';
import { AppError, ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../platform/errors';
import type { CallContext, PosDeps } from '../deps';
import type { Redemption, RedemptionAsk } from '../redemptions/types';
import type { StartRedemptionBody } from '../schemas';
import { redemptionView, RedemptionView } from './redemption-view';

export function newRedemptionId(): string {
  return `rdm_${randomBytes(12).toString('base64url')}`;
}

/** Splits a QR payload: the customer id, then the six-digit hash (an optional `:` or `|` between). */
export function parseQr(qr: string): { customerId: string; hash: string } {
  const m = /^(.+?)[:|]?(\d{6})$/.exec(qr);
  // A customer id made only of separators (":123456"), or longer than any customer id, is none.
  if (!m || !m[1].replace(/[:|]/g, '').trim() || m[1].length > 200) throw new UnprocessableError('qr_invalid', 'The QR code does not hold a customer id followed by a six-digit hash');
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
 * Places the upstream hold and learns when it ends: from the hold lookup's
 * `dateToExpire`, or the configured hold period if the lookup fails.
 */
async function placeHold(deps: PosDeps, ctx: CallContext, r: Pick<Redemption, 'customerId' | 'email' | 'mobile' | 'ask'>, extra: { hash?: string; otp?: string }) {
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
  let expiresAt = startedAt + deps.settings.holdPeriodMinutes * 60_000;
  try {
    const lookup = await deps.loyalty.holdLookup(hold.holdReference, { requestId: ctx.requestId });
    expiresAt = Date.parse(lookup.dateToExpire);
  } catch (err) {
    deps.logger.warn({ requestId: ctx.requestId, err: (err as Error).message }, 'hold lookup failed; using the configured hold period');
  }
  return { hold, expiresAt };
}

/** Best effort: a hold we could not record must not keep the customer's points locked. */
async function releaseOrphan(deps: PosDeps, ctx: CallContext, holdReference: string) {
  await deps.loyalty.holdCancel(holdReference, { requestId: ctx.requestId }).catch((err) => {
    deps.logger.error({ requestId: ctx.requestId, err: (err as Error).message }, 'could not release an unrecorded hold; it will lapse at its expiry');
  });
}

export async function startRedemption(deps: PosDeps, ctx: CallContext, body: StartRedemptionBody): Promise<RedemptionView> {
  const who = body.qr ? parseQr(body.qr) : { customerId: body.customerId as string, hash: body.hash };
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
    return await openRedemption(deps, ctx, body, who.hash, base);
  } catch (err) {
    await release?.().catch(() => undefined);
    throw err;
  }
}

async function openRedemption(deps: PosDeps, ctx: CallContext, body: StartRedemptionBody, hash: string | undefined, base: Redemption): Promise<RedemptionView> {
  const now = base.createdAt;
  const who = { hash };
  if (deps.settings.otpEnabled && body.otp === undefined) {
    await deps.loyalty.otp({ customerId: base.customerId, email: base.email, mobile: base.mobile, amount: body.amount, points: body.points, ruleId: body.ruleId }, { requestId: ctx.requestId });
    // The hash is checked when the hold is placed; keep it for then.
    const record: Redemption = { ...base, hash: who.hash };
    await deps.redemptions.create(record);
    return redemptionView(record, now);
  }

  const { hold, expiresAt } = await placeHold(deps, ctx, base, { hash: who.hash, otp: body.otp });
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
  const { hold, expiresAt } = await placeHold(deps, ctx, r, { otp, hash: r.hash });
  const result = await deps.redemptions.change(id, deps.clock(), (cur) => {
    if (cur.state !== 'otp_required') return `it is ${cur.state}`;
    const { hash: _hash, ...rest } = cur;
    return { ...rest, state: 'held', holdReference: hold.holdReference, holdAmount: hold.holdAmount, holdPoints: hold.holdEquivalentPoints, expiresAt };
  });
  if (!result.ok) {
    // Another request placed the hold first: ours is surplus.
    await releaseOrphan(deps, ctx, hold.holdReference);
    throw new ConflictError('redemption_not_awaiting_otp', `Redemption ${id} is no longer waiting for an OTP`);
  }
  return redemptionView(result.redemption, deps.clock());
}

export async function getRedemption(deps: PosDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
  return redemptionView(await findRedemption(deps, ctx, id), deps.clock());
}

export async function voidRedemption(deps: PosDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
  const r = await findRedemption(deps, ctx, id);
  if (r.state !== 'held') throw new ConflictError('redemption_not_held', `Redemption ${id} is ${r.state}; only a held redemption can be voided`, { extra: { state: r.state } });
  if (r.paymentId) throw new ConflictError('payment_in_progress', `Redemption ${id} is being used by payment ${r.paymentId}`);
  try {
    await deps.loyalty.holdCancel(r.holdReference as string, { requestId: ctx.requestId });
  } catch (err) {
    // Already released or gone upstream: the points are free either way.
    if (!(err instanceof AppError && (err.code === 'hold_already_cancelled' || err.code === 'hold_not_active'))) throw err;
  }
  const result = await deps.redemptions.change(id, deps.clock(), (cur) => (cur.state === 'held' && !cur.paymentId ? { ...cur, state: 'voided' } : `it is ${cur.state}`));
  if (!result.ok) {
    if (result.reason === 'not_found') throw new ServiceUnavailableError('redemption_lost', 'The redemption record disappeared while voiding');
    throw new ConflictError('redemption_not_held', `Redemption ${id} changed while voiding: ${result.detail}`);
  }
  return redemptionView(result.redemption, deps.clock());
}

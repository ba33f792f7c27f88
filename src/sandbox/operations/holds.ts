import type { Acknowledgement, HoldLookupResponse, HoldRequest, HoldResponse } from '../../contract';
import type { AccountSettings } from '../accounts';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import { ceilPoints, money } from '../domain/money';
import { loyaltyErrors } from '../errors';
import { newReference } from '../state/codes';
import type { CustomerRecord, HoldRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { requireCustomer } from './customers';
import { verifyOtp } from './otp';
import { ruleNumber, ruleValue } from './redemption-config';

/** How many points a request asks for, and their money value, by amount, points or rule. */
export function pointsAsked(
  settings: AccountSettings,
  ask: { amount?: number; points?: number; ruleId?: string },
): { points: number; amount: number; ruleId?: string } {
  const factor = settings.redemptionFactor;
  if (ask.ruleId !== undefined) {
    // By its id, or by the number GET /configurations/redemption lists it under.
    const rule = settings.redemptionRules.find((r) => r.id === ask.ruleId || String(ruleNumber(r)) === ask.ruleId);
    if (!rule) throw loyaltyErrors.invalidValue(`ruleId "${ask.ruleId}" is not a redemption rule of this account`, 'RuleNotFound');
    return { points: rule.pointsCost, amount: ruleValue(rule, factor), ruleId: rule.id };
  }
  if (ask.amount !== undefined) {
    // Enough points to cover the amount asked for.
    return { points: ceilPoints(ask.amount / factor), amount: money(ask.amount) };
  }
  const points = ask.points!;
  return { points, amount: money(points * factor) };
}

/** A wrong hash refuses the hold or redemption (an absent one is allowed: it is an extra check). */
export function checkHash(c: CustomerRecord, hash: string | undefined): void {
  if (hash !== undefined && hash !== c.hash) {
    throw loyaltyErrors.invalidValue(`hash does not match customer "${c.id}"'s current hash (it changes with every hold, payment and refund)`, 'HashInvalid');
  }
}

/** `POST /transactions/hold`: reserve points until a payment uses them or the hold period ends. */
export function placeHold(ctx: SandboxContext, account: AccountEntry, req: HoldRequest): HoldResponse {
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  requireChannelField(settings, req);
  const ask = pointsAsked(settings, { amount: req.amountToHold, points: req.pointsToHold, ruleId: req.ruleId });
  // Only an existing customer can hold points: an unknown id is 7000 and creates no profile (a typo must leave nothing behind).
  // A new channel id of a merged customer is known by its email or mobile, and joins that profile here.
  requireCustomer(account, req.customerId, req);
  const c = ledger.ensureCustomer(req.customerId, now, req, settings.channelMerging);
  checkHash(c, req.hash);
  const otpCheck = settings.otpEnabled && req.ignoreOTP !== true ? verifyOtp(c, req.otp, now) : undefined;

  const { available } = ledger.balance(c, now);
  if (ask.points > available) {
    throw loyaltyErrors.insufficientPoints(`Customer "${c.id}" has ${available} available points; the hold needs ${ask.points}`);
  }

  const hold: HoldRecord = {
    reference: newReference('hold'),
    customerId: c.id,
    points: ask.points,
    amount: ask.amount,
    ruleId: ask.ruleId,
    state: 'active',
    createdAt: now,
    expiresAt: now + settings.holdPeriodMinutes * 60_000,
    transactionTime: req.transactionTime,
  };
  ledger.addHold(c, hold);
  otpCheck?.consume();
  ledger.rotateHash(c);
  ledger.recordActivity(c, { type: 'Points Held', at: now, properties: { holdReference: hold.reference, points: hold.points, amount: hold.amount } });
  return { customerId: req.customerId, holdAmount: hold.amount, holdEquivalentPoints: hold.points, holdReference: hold.reference };
}

function requireHold(ctx: SandboxContext, account: AccountEntry, reference: string): HoldRecord {
  const hold = account.ledger.hold(reference, ctx.clock.now());
  if (!hold) throw loyaltyErrors.holdNotFound(`Hold reference "${reference}" was not found`);
  return hold;
}

/** `GET /transactions/hold/:ref`: a released hold reads `expired` (published states are active, used, expired). */
export function lookupHold(ctx: SandboxContext, account: AccountEntry, reference: string): HoldLookupResponse {
  const hold = requireHold(ctx, account, reference);
  return {
    customerId: hold.customerId,
    holdAmount: hold.amount,
    holdEquivalentPoints: hold.points,
    state: hold.state === 'released' ? 'expired' : hold.state,
    dateToExpire: ctx.clock.iso(hold.expiresAt),
  };
}

/** `DELETE /transactions/hold/:ref`: releases an active hold; any other state is 9001. */
export function cancelHold(ctx: SandboxContext, account: AccountEntry, reference: string): Acknowledgement {
  const hold = requireHold(ctx, account, reference);
  if (hold.state !== 'active') {
    const why = hold.state === 'used' ? 'was already used by a payment' : hold.state === 'expired' ? 'already expired' : 'was already released';
    throw loyaltyErrors.alreadyCancelled(`Hold "${reference}" ${why}`);
  }
  account.ledger.endHold(hold, 'released', ctx.clock.now());
  return { success: true, message: `Hold "${reference}" released; ${hold.points} points are available again` };
}

/**
 * `held -> redeemed`: the hold is used by the sale or redemption `by`, and its
 * points leave the customer's balance. The one place a hold is redeemed.
 */
export function useHold(account: AccountEntry, c: CustomerRecord, hold: HoldRecord, now: number, by: string): void {
  account.ledger.endHold(hold, 'used', now, by);
  c.settled -= hold.points;
}

/** The active hold a payment, order or redemption names, or 9006. */
export function activeHoldFor(ctx: SandboxContext, account: AccountEntry, reference: string, customerId: string): HoldRecord {
  const hold = account.ledger.hold(reference, ctx.clock.now());
  if (!hold) throw loyaltyErrors.holdNotFound(`pointsHoldReference "${reference}" was not found`);
  if (hold.customerId !== customerId) throw loyaltyErrors.holdNotFound(`pointsHoldReference "${reference}" does not belong to customer "${customerId}"`);
  if (hold.state !== 'active') throw loyaltyErrors.holdNotFound(`pointsHoldReference "${reference}" is no longer active (it is ${hold.state})`);
  return hold;
}

import type { RedeemRequest, RedeemResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import { loyaltyErrors } from '../errors';
import type { TransactionRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { requireCustomer } from './customers';
import { activeHoldFor, checkHash, pointsAsked, useHold } from './holds';
import { numericId } from './orders';
import { verifyOtp } from './otp';

/** A request as text with its keys sorted, so two sendings of one request compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/**
 * The published answer has no duplicate-replay form, only 9004 "Transaction ID
 * Already Exists": a repeat is refused either way, and the message says whether
 * it is the very request already done (read it back with GET
 * /orders/{transactionId}/transactions) or another one under a taken id.
 */
function refuseRepeat(earlier: TransactionRecord, req: RedeemRequest, request: string): never {
  if (earlier.kind === 'redeem' && earlier.request === request) {
    throw loyaltyErrors.duplicateTransaction(
      `transactionId "${req.transactionId}" was already redeemed by this same request (${earlier.redeemedPoints} points); nothing was redeemed again`,
    );
  }
  const what = earlier.kind === 'redeem' ? 'a redemption with a different request' : `a ${earlier.kind}`;
  throw loyaltyErrors.duplicateTransaction(`transactionId "${req.transactionId}" is already the id of ${what}; nothing was redeemed`, 'TransactionIdTaken');
}

/**
 * `POST /transactions/redeem`: spends points now, under the caller's
 * `transactionId`. By `holdReference`, the hold is redeemed (`held ->
 * redeemed`, as a payment using it; its OTP was checked when it was placed);
 * by `amount` or `points`, the points must be available (else 9008) and an
 * OTP account checks the OTP as a hold does. A refund naming the
 * `transactionId` gives the points back.
 */
export function redeemPoints(ctx: SandboxContext, account: AccountEntry, req: RedeemRequest): RedeemResponse {
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  requireChannelField(settings, req);
  const request = canonical(req);
  const earlier = ledger.transactions.get(req.transactionId);
  if (earlier) refuseRepeat(earlier, req, request);
  // Only an existing customer has points to redeem; a new channel id of a merged customer joins its profile, as for a hold.
  requireCustomer(account, req.customerId, req);
  const c = ledger.ensureCustomer(req.customerId, now, req, settings.channelMerging);
  checkHash(c, req.hash);

  let points: number;
  let amount: number;
  const hold = req.holdReference !== undefined ? activeHoldFor(ctx, account, req.holdReference, c.id) : undefined;
  const otpCheck = !hold && settings.otpEnabled && req.ignoreOTP !== true ? verifyOtp(c, req.otp, now) : undefined;
  if (hold) {
    ({ points, amount } = hold);
  } else {
    // A 0 is the published example's way of leaving one out (see RedeemRequest).
    ({ points, amount } = pointsAsked(settings, { amount: req.amount || undefined, points: req.points || undefined }));
    const { available } = ledger.balance(c, now);
    if (points > available) throw loyaltyErrors.insufficientPoints(`Customer "${c.id}" has ${available} available points; the redemption needs ${points}`);
  }

  const tx: TransactionRecord = {
    id: req.transactionId,
    kind: 'redeem',
    customerId: c.id,
    at: now,
    totalPaid: amount,
    earnedPoints: 0,
    redeemedPoints: points,
    holdReference: hold?.reference,
    lines: [],
    itemised: false,
    refundedAmount: 0,
    refundedEarnedPoints: 0,
    returnedRedeemedPoints: 0,
    refundCount: 0,
    merchantName: req.merchant?.name,
    branchName: req.merchant?.branch?.name,
    request,
    reason: req.reason,
  };
  if (hold) useHold(account, c, hold, now, tx.id);
  else c.settled -= points;
  otpCheck?.consume();
  ledger.addTransaction(c, tx);
  ledger.rotateHash(c);
  ledger.recordActivity(c, { type: 'Points Redeemed', at: now, properties: { ...req, redeemedPoints: points, redeemAmount: amount } });
  return {
    customerId: req.customerId,
    gameballTransactionId: String(numericId(`rdm:${tx.id}`)),
    transactionId: tx.id,
    redeemAmount: amount,
    redeemEquivalentPoints: points,
    ...(req.reason !== undefined ? { reason: req.reason } : {}),
  };
}

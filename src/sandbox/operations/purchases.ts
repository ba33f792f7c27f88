import type { Merchant, PaymentDetail, PaymentRedemption } from '../../contract';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import { computeEarning, requireCountableEarning } from '../domain/earn';
import { currentTierOf } from '../domain/tiers';
import { loyaltyErrors } from '../errors';
import type { TransactionRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { lockToBurn } from './coupon-locks';
import { ensureProfile } from './customers';
import { besideLock, checkCoupons } from './coupons';
import { activeHoldFor, useHold } from './holds';

const DAY_MS = 24 * 3600 * 1000;

/** What a payment and an order (tracked or batch) have in common: a sale the ledger rewards. */
export interface Purchase {
  id: string;
  kind: 'payment' | 'order';
  customerId: string;
  email?: string;
  mobile?: string;
  totalPaid: number;
  details?: PaymentDetail[];
  guest?: boolean;
  redemption?: PaymentRedemption;
  returnWindowDays?: number;
  merchant?: Merchant;
  /** The activity event name and the properties it records (the whole request). */
  activity: { type: string; properties: Record<string, unknown> };
}

/**
 * Records a sale: redeems the hold and coupons it names, awards points by the
 * earn rules (pending for the return window), rotates the hash and records the
 * activity. A sale id already recorded (as a payment or an order) is 9004.
 * Every check runs before anything changes.
 */
export function recordPurchase(ctx: SandboxContext, account: AccountEntry, p: Purchase): TransactionRecord {
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  requireChannelField(settings, p);
  requireCountableEarning(settings, p.totalPaid, p.details);
  const earlier = ledger.transactions.get(p.id);
  if (earlier) {
    const field = p.kind === 'payment' ? 'paymentId' : 'orderId';
    throw loyaltyErrors.duplicateTransaction(
      earlier.kind === 'redeem'
        ? `${field} "${p.id}" is already the transactionId of a redemption; a transaction id names one transaction`
        : `${field} "${p.id}" was already processed; no second reward is given`,
    );
  }
  // The profile the sale belongs to: with channel merging, another channel's id may name an existing one.
  const profileId = ledger.profileFor(p.customerId, p, settings.channelMerging)?.id ?? p.customerId;
  const holdRef = p.redemption?.pointsHoldReference;
  const hold = holdRef !== undefined ? activeHoldFor(ctx, account, holdRef, profileId) : undefined;
  const lockRef = p.redemption?.couponsLockReference;
  const locked = lockRef !== undefined ? lockToBurn(ctx, account, lockRef, profileId) : undefined;
  const coupons = checkCoupons(ctx, account, profileId, besideLock(p.redemption?.couponCodes, locked?.codes));

  const { c } = ensureProfile(ctx, account, p.customerId, p);
  const earning = computeEarning(settings, currentTierOf(settings, c), p.totalPaid, p.details, p.guest === true);
  const returnWindow = p.returnWindowDays ?? 0;
  const tx: TransactionRecord = {
    id: p.id,
    kind: p.kind,
    customerId: c.id,
    at: now,
    totalPaid: p.totalPaid,
    earnedPoints: earning.points,
    redeemedPoints: hold?.points ?? 0,
    holdReference: hold?.reference,
    pendingUntil: returnWindow > 0 ? now + returnWindow * DAY_MS : undefined,
    lines: earning.lines,
    itemised: earning.itemised,
    refundedAmount: 0,
    refundedEarnedPoints: 0,
    returnedRedeemedPoints: 0,
    refundCount: 0,
    merchantName: p.merchant?.name,
    branchName: p.merchant?.branch?.name,
  };
  if (hold) useHold(account, c, hold, now, tx.id);
  coupons.apply(c);
  locked?.apply(c, tx.id);
  ledger.creditEarned(c, earning.points, now, tx.id, tx.pendingUntil);
  ledger.addTransaction(c, tx);
  c.amountSpent = (c.amountSpent ?? 0) + p.totalPaid;
  c.orders = (c.orders ?? 0) + 1;
  ledger.rotateHash(c);
  ledger.recordActivity(c, {
    type: p.activity.type,
    at: now,
    properties: { ...p.activity.properties, rewardedPoints: tx.earnedPoints, redeemedPoints: tx.redeemedPoints },
  });
  return tx;
}

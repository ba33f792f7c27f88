import type { RefundRequest, RefundResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import { floorPoints, money } from '../domain/money';
import { loyaltyErrors } from '../errors';
import { newReference } from '../state/codes';
import type { EarnLine, TransactionRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { requireCustomer } from './customers';

/** Cents of tolerance when comparing money. */
const CENT = 0.005;

interface RefundPlan {
  amount: number;
  takeBack: number;
  giveBack: number;
  lineChanges: { line: EarnLine; net: number; points: number }[];
}

/** A share of `total` for `fraction`, or everything left when the refund completes it. */
function share(total: number, left: number, fraction: number, completes: boolean): number {
  return completes ? left : Math.min(left, floorPoints(total * fraction));
}

/** Whole remainder: no amount, or an amount equal to the total paid. */
function planFull(tx: TransactionRecord): RefundPlan {
  return {
    amount: money(tx.totalPaid - tx.refundedAmount),
    takeBack: tx.earnedPoints - tx.refundedEarnedPoints,
    giveBack: tx.redeemedPoints - tx.returnedRedeemedPoints,
    lineChanges: tx.lines.map((line) => ({ line, net: line.netAmount - line.refundedNet, points: line.points - line.refundedPoints })),
  };
}

function planAmount(tx: TransactionRecord, amount: number, remaining: number): RefundPlan {
  const completes = amount >= remaining - CENT;
  const fraction = tx.totalPaid > 0 ? amount / tx.totalPaid : 1;
  return {
    amount: money(amount),
    takeBack: share(tx.earnedPoints, tx.earnedPoints - tx.refundedEarnedPoints, fraction, completes),
    giveBack: share(tx.redeemedPoints, tx.redeemedPoints - tx.returnedRedeemedPoints, fraction, completes),
    lineChanges: [],
  };
}

/** Line items: each `productId` names a payment line (`serviceId`); amount = price * quantity. */
function planLines(tx: TransactionRecord, items: NonNullable<RefundRequest['lineItems']>, refundAmount: number | undefined, remaining: number): RefundPlan {
  if (!tx.itemised)
    throw loyaltyErrors.invalidValue(`Transaction "${tx.id}" has no paymentDetails lines, so it cannot be refunded by lineItems`, 'InvalidValue');
  const asked = new Map<EarnLine, number>();
  items.forEach((item, i) => {
    const line = tx.lines.find((l) => l.serviceId === item.productId);
    if (!line) throw loyaltyErrors.invalidValue(`lineItems.${i}.productId "${item.productId}" matches no serviceId of transaction "${tx.id}"`, 'InvalidValue');
    asked.set(line, (asked.get(line) ?? 0) + item.price * (item.quantity ?? 1));
  });
  const lineChanges: RefundPlan['lineChanges'] = [];
  let paid = 0;
  let net = 0;
  for (const [line, want] of asked) {
    const left = line.netAmount - line.refundedNet;
    if (want > left + CENT) {
      throw loyaltyErrors.invalidValue(
        `Line "${line.serviceId}" has ${money(left)} left to refund; the lineItems ask for ${money(want)}`,
        'RefundExceedsRemaining',
      );
    }
    const fraction = line.netAmount > 0 ? want / line.netAmount : 1;
    lineChanges.push({ line, net: want, points: share(line.points, line.points - line.refundedPoints, fraction, want >= left - CENT) });
    paid += line.paidAmount * fraction;
    net += want;
  }
  const amount = refundAmount ?? Math.min(money(paid), remaining);
  if (amount > remaining + CENT)
    throw loyaltyErrors.invalidValue(`refundAmount ${amount} is more than the ${money(remaining)} left to refund on "${tx.id}"`, 'RefundExceedsRemaining');
  const allNet = tx.lines.reduce((s, l) => s + l.netAmount, 0);
  const everyLineDone = tx.lines.every((l) => l.netAmount - l.refundedNet - (asked.get(l) ?? 0) <= CENT);
  return {
    amount: money(amount),
    // Capped: an earlier refund by amount may already have taken back part of these lines' points.
    takeBack: Math.min(
      lineChanges.reduce((s, c) => s + c.points, 0),
      tx.earnedPoints - tx.refundedEarnedPoints,
    ),
    giveBack: share(tx.redeemedPoints, tx.redeemedPoints - tx.returnedRedeemedPoints, allNet > 0 ? net / allNet : 1, everyLineDone),
    lineChanges,
  };
}

function fullyRefunded(tx: TransactionRecord, remaining: number): boolean {
  return tx.refundCount > 0 && remaining <= CENT && tx.refundedEarnedPoints >= tx.earnedPoints && tx.returnedRedeemedPoints >= tx.redeemedPoints;
}

/**
 * `POST /transactions/refund`: refunds a payment, an order (tracked or batch)
 * or a redemption by its id (`reverseTransactionId`): takes back earned points
 * at the rate they were earned and gives back redeemed points in proportion,
 * never more than the transaction still holds.
 */
export function processRefund(ctx: SandboxContext, account: AccountEntry, req: RefundRequest): RefundResponse {
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  requireChannelField(settings, req);
  if (ledger.refunds.has(req.refundTransactionId)) {
    throw loyaltyErrors.duplicateTransaction(`refundTransactionId "${req.refundTransactionId}" was already processed`);
  }
  const c = requireCustomer(account, req.customerId, req);
  const tx = ledger.transactions.get(req.reverseTransactionId);
  if (!tx || tx.customerId !== c.id) {
    throw loyaltyErrors.reversedTransactionNotFound(`reverseTransactionId "${req.reverseTransactionId}" is not a transaction of customer "${c.id}"`);
  }

  const remaining = money(tx.totalPaid - tx.refundedAmount);
  const amount = req.refundAmount ?? undefined;
  if (fullyRefunded(tx, remaining)) throw loyaltyErrors.invalidValue(`Transaction "${tx.id}" is already fully refunded`, 'RefundExceedsRemaining');
  if (amount !== undefined && amount > remaining + CENT) {
    throw loyaltyErrors.invalidValue(`refundAmount ${amount} is more than the ${remaining} left to refund on "${tx.id}"`, 'RefundExceedsRemaining');
  }
  const plan = req.lineItems
    ? planLines(tx, req.lineItems, amount, remaining)
    : amount === undefined || Math.abs(amount - remaining) <= CENT
      ? planFull(tx)
      : planAmount(tx, amount, remaining);

  ledger.takeBackEarned(c, plan.takeBack, now, tx.id);
  c.settled += plan.giveBack;
  tx.refundedAmount = money(tx.refundedAmount + plan.amount);
  tx.refundedEarnedPoints += plan.takeBack;
  tx.returnedRedeemedPoints += plan.giveBack;
  for (const change of plan.lineChanges) {
    change.line.refundedNet += change.net;
    change.line.refundedPoints += change.points;
  }
  tx.refundCount += 1;
  // A redemption was no spend, so its refund takes none back.
  if (tx.kind !== 'redeem') c.amountSpent = (c.amountSpent ?? 0) - plan.amount;
  ledger.rotateHash(c);

  const gameballTransactionId = newReference('rfd');
  ledger.addRefund(c, {
    refundTransactionId: req.refundTransactionId,
    gameballTransactionId,
    customerId: c.id,
    reverseTransactionId: tx.id,
    at: now,
    amount: plan.amount,
    takenBackPoints: plan.takeBack,
    returnedPoints: plan.giveBack,
    merchantName: req.merchant?.name,
    branchName: req.merchant?.branch?.name,
  });
  ledger.recordActivity(c, {
    type: 'Refund Processed',
    at: now,
    properties: { ...req, refundAmount: plan.amount, takenBackPoints: plan.takeBack, returnedPoints: plan.giveBack },
  });
  // The points the refunded money stands for: those a sale earned on it, or those a redemption spent on it.
  const refundEquivalentPoints = tx.kind === 'redeem' ? plan.giveBack : plan.takeBack;
  return { gameballTransactionId, refundTransactionId: req.refundTransactionId, refundAmount: plan.amount, refundEquivalentPoints };
}

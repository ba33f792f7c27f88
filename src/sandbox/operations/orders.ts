import type { OrderTransaction, OrderTransactionsResponse, RewardPreviewRequest, RewardPreviewResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { computeEarning, orderLinesAsDetails, requireCountableEarning } from '../domain/earn';
import { money } from '../domain/money';
import { currentTierOf, tierOf } from '../domain/tiers';
import { loyaltyErrors } from '../errors';
import type { AccountEntry } from '../state/store';

/** A stable positive integer for a text id (the v4.0 `gameballTransactionId` is a number). */
export function numericId(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 1 || 1;
}

/**
 * `POST /orders/reward-preview`: what the order would earn, by the very rules
 * (and rounding) the tracked order, or a payment of the same lines and total,
 * earns by, changing nothing. A customer without a profile previews at the entry tier.
 */
export function previewRewards(_ctx: SandboxContext, account: AccountEntry, req: RewardPreviewRequest): RewardPreviewResponse {
  const { settings, ledger } = account;
  // As a payment finds its customer: with channel merging, a new channel id carrying a known email or mobile is that profile.
  const c = req.customerId !== undefined ? ledger.profileFor(req.customerId, req, settings.channelMerging) : undefined;
  const tier = c ? currentTierOf(settings, c) : tierOf(settings, 0);
  const details = orderLinesAsDetails(req.lineItems);
  requireCountableEarning(settings, req.totalPaid, details);
  const earning = computeEarning(settings, tier, req.totalPaid, details, false);
  const lineItems = earning.lines.map((l, i) => ({
    productId: l.serviceId,
    quantity: req.lineItems?.[i]?.quantity ?? 1,
    totalPoints: l.points,
    totalScore: l.points,
    totalDecimalPoints: l.decimalPoints,
    rewardWalletFactor: l.rate,
    campaignId: null,
    campaignName: null,
    campaignEndDate: null,
    campaignImpactPoints: 0,
    campaignImpactWalletFactor: 0,
  }));
  return {
    customerId: req.customerId ?? '',
    customerFound: c !== undefined,
    totalPoints: earning.points,
    totalCoupons: 0,
    cashback: { totalPoints: earning.points, totalScore: earning.points, lineItems },
    eventRewards: null,
  };
}

/**
 * `GET /orders/{orderId}/transactions`: the reward and redemption of the
 * payment or order (tracked or batch) of that id, or the redemption of a
 * `POST /transactions/redeem` under it, then each refund's points taken back (`Refund`, or `PartialRefund` while
 * something is left) and redeemed points given back (`Cancel`), oldest first.
 */
export function orderTransactions(ctx: SandboxContext, account: AccountEntry, orderId: string): OrderTransactionsResponse {
  const { ledger, settings } = account;
  const tx = ledger.transactions.get(orderId);
  if (!tx) throw loyaltyErrors.transactionNotFound(`Order "${orderId}" has no loyalty transactions`);
  const at = ctx.clock.iso(tx.at);
  const out: OrderTransaction[] = [];
  // A redemption (POST /transactions/redeem) rewarded nothing: its only row is the redemption.
  if (tx.kind !== 'redeem') {
    out.push({
      transactionDate: at,
      gameballTransactionId: numericId(`pay:${tx.id}`),
      transactionType: 'PaymentReward',
      amount: tx.totalPaid,
      transactionId: tx.id,
      equivalentPoints: tx.earnedPoints,
    });
  }
  if (tx.redeemedPoints > 0) {
    out.push({
      transactionDate: at,
      gameballTransactionId: numericId(`rdm:${tx.id}`),
      transactionType: 'Redemption',
      // A redemption shows the amount its answer gave (`redeemAmount`); a sale, its points' value.
      amount: tx.kind === 'redeem' ? tx.totalPaid : money(tx.redeemedPoints * settings.redemptionFactor),
      transactionId: tx.id,
      equivalentPoints: tx.redeemedPoints,
    });
  }
  const refunds = (ledger.customer(tx.customerId)?.refunds ?? []).map((id) => ledger.refunds.get(id)).filter((r) => r?.reverseTransactionId === tx.id);
  let refunded = 0;
  for (const r of refunds) {
    if (!r) continue;
    refunded = money(refunded + r.amount);
    const date = ctx.clock.iso(r.at);
    const type = refunded >= tx.totalPaid - 0.005 ? 'Refund' : 'PartialRefund';
    out.push({
      transactionDate: date,
      gameballTransactionId: numericId(`rfd:${r.refundTransactionId}`),
      transactionType: type,
      amount: r.amount,
      transactionId: r.refundTransactionId,
      equivalentPoints: r.takenBackPoints,
    });
    if (r.returnedPoints > 0) {
      out.push({
        transactionDate: date,
        gameballTransactionId: numericId(`cnl:${r.refundTransactionId}`),
        transactionType: 'Cancel',
        amount: money(r.returnedPoints * settings.redemptionFactor),
        transactionId: r.refundTransactionId,
        equivalentPoints: r.returnedPoints,
      });
    }
  }
  return { transactions: out, count: out.length };
}

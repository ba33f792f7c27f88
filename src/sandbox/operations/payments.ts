import type { PaymentRequest, PaymentResponse } from '../../contract';
import type { SandboxContext } from '../context';
import type { AccountEntry } from '../state/store';
import { recordPurchase } from './purchases';

/**
 * `POST /payments`: records the payment, redeems the hold it names, awards
 * points (pending for the return window), rotates the hash and emits the
 * "Payment Processed" event with every property of the payment.
 */
export function processPayment(ctx: SandboxContext, account: AccountEntry, req: PaymentRequest): PaymentResponse {
  const tx = recordPurchase(ctx, account, {
    id: req.paymentId,
    kind: 'payment',
    customerId: req.customerId,
    email: req.email,
    mobile: req.mobile,
    totalPaid: req.totalPaid,
    details: req.paymentDetails,
    guest: req.guest,
    redemption: req.redemption,
    returnWindowDays: req.cashbackConfigurations?.returnWindow,
    merchant: req.merchant,
    activity: { type: 'Payment Processed', properties: { ...req } },
  });
  return {
    customerId: tx.customerId,
    redeemedPoints: tx.redeemedPoints,
    rewardedPoints: tx.earnedPoints,
    paymentDetails: tx.itemised ? tx.lines.map((l) => ({ serviceId: l.serviceId, decimalPoints: l.decimalPoints, points: l.points, score: 0 })) : [],
  };
}

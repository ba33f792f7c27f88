import { isProblem } from '../platform/problem';
import type { LoyaltyCallContext } from './call';
import type { LoyaltyClient } from './client';

/**
 * The upstream's own record of a write, read after it answered "duplicate":
 * that answer says only that the id is taken, not by what. These checks say
 * whether it is taken by the very write this BFF sent (then it was applied,
 * perhaps by an attempt whose answer was lost) or by something else (then this
 * write was refused). They throw when the record cannot be read: unknown.
 */

type Reader = Pick<LoyaltyClient, 'orderTransactions' | 'holdLookup'>;

/** What a payment this BFF sent looks like on the upstream's record. */
export interface PaymentOnRecord {
  paymentId: string;
  customerId: string;
  totalPaid: number;
  /** The hold the payment used, and the points it held. */
  hold?: { reference: string; points?: number };
}

export interface RefundOnRecord {
  paymentId: string;
  refundId: string;
  /** The amount asked for; absent for a whole refund. */
  amount?: number;
}

/** Two amounts within this are the same figure (money to the cent). */
export const CENT = 0.005;

async function transactionsOf(loyalty: Reader, orderId: string, ctx: LoyaltyCallContext) {
  try {
    return (await loyalty.orderTransactions(orderId, ctx)).transactions;
  } catch (err) {
    if (isProblem(err, 'transaction_not_found', 'original_transaction_not_found', 'upstream_not_found')) return [];
    throw err;
  }
}

const PAYMENT_TYPES = new Set(['PaymentReward', 'Payment']);
const REFUND_TYPES = new Set(['Refund', 'PartialRefund']);
type Line = { transactionType: string; transactionId?: string };

/** A payment line of an order's record. */
export const isPaymentLine = (t: Line): boolean => PAYMENT_TYPES.has(t.transactionType);
/** A refund line (whole or partial) of an order's record. */
export const isRefundLine = (t: Line): boolean => REFUND_TYPES.has(t.transactionType);
/** The payment line of `paymentId` on its order's record (a line naming no id is the order's own). */
export const paymentLine = <T extends Line>(transactions: T[], paymentId: string): T | undefined =>
  transactions.find((t) => isPaymentLine(t) && (t.transactionId === undefined || t.transactionId === paymentId));
/** The refund lines of `refundId` on its sale's record. */
export const refundLines = <T extends Line>(transactions: T[], refundId: string): T[] =>
  transactions.filter((t) => isRefundLine(t) && t.transactionId === refundId);

/**
 * The payment id is this payment: paid the same total, and, when it used a
 * hold, redeemed under this id while the hold reads used by this customer.
 */
export async function paymentOnRecord(loyalty: Reader, p: PaymentOnRecord, ctx: LoyaltyCallContext = {}): Promise<boolean> {
  const transactions = await transactionsOf(loyalty, p.paymentId, ctx);
  const paid = paymentLine(transactions, p.paymentId);
  // Written so that a total that is not a number matches nothing.
  if (!paid || paid.amount === undefined || !(Math.abs(paid.amount - p.totalPaid) <= CENT)) return false;
  if (!p.hold) return true;
  const redeemed = transactions.find((t) => t.transactionType === 'Redemption');
  if (!redeemed || (p.hold.points !== undefined && redeemed.equivalentPoints !== undefined && redeemed.equivalentPoints !== p.hold.points)) return false;
  const hold = await loyalty.holdLookup(p.hold.reference, ctx);
  // Used is enough: only this payment's claim ever named the hold. Its customer is not compared: an
  // account that merges a customer's channels answers the merged profile's id, not the till's.
  return hold.state === 'used';
}

/** The refund id is a refund of this very payment (and of this amount, when one was asked). */
export async function refundOnRecord(loyalty: Reader, r: RefundOnRecord, ctx: LoyaltyCallContext = {}): Promise<boolean> {
  const transactions = await transactionsOf(loyalty, r.paymentId, ctx);
  const [refunded] = refundLines(transactions, r.refundId);
  if (!refunded) return false;
  return r.amount === undefined || (refunded.amount !== undefined && Math.abs(refunded.amount - r.amount) <= CENT);
}

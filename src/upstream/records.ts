import { isProblem } from '../platform/problem';
import type { LoyaltyCallContext } from './call';
import type { LoyaltyClient } from './client';

/**
 * Reading the upstream's own record of a write: an order's transactions and
 * their lines. Whether a write on it is this BFF's very write is decided in
 * one place, src/pos/money/ids/same-write.ts.
 */

type Reader = Pick<LoyaltyClient, 'orderTransactions'>;

/** Two amounts within this are the same figure (money to the cent). */
export const CENT = 0.005;

/** An order's transactions; none when the upstream has no record of it. */
export async function transactionsOf(loyalty: Reader, orderId: string, ctx: LoyaltyCallContext) {
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
/** A redemption line (a redeem's own, or a hold a sale used); the type's spelling varies between services, a reversal of one is not one. */
export const isRedeemLine = (t: Line): boolean => /redeem|redemption/i.test(t.transactionType) && !/revers|cancel|refund|void/i.test(t.transactionType);
/**
 * The lines of a redeem's own record (POST /transactions/redeem, keyed by the caller's transaction id): its
 * redemption lines; none when the record is a sale's (a payment line: a till's sale id that happens to be the
 * same string), whose redemption is its hold's, not this redeem.
 */
export const redeemLinesOf = <T extends Line>(transactions: T[]): T[] => (transactions.some(isPaymentLine) ? [] : transactions.filter(isRedeemLine));
/** The refund lines of `refundId` on its sale's record. */
export const refundLines = <T extends Line>(transactions: T[], refundId: string): T[] =>
  transactions.filter((t) => isRefundLine(t) && t.transactionId === refundId);

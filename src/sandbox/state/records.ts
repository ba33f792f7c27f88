/**
 * The records the sandbox keeps per account. Fields that most customers never
 * use are optional and created on first use, so a million customers stay cheap.
 */

/** Points earned with a return window: the customer's, not yet spendable. */
export interface PendingLot {
  points: number;
  availableAt: number;
  /** The payment/order that earned them, so a refund takes back these first. */
  transactionId: string;
}

/** One line of a customer's activity (e.g. "Payment Processed", or an event name). */
export interface ActivityEntry {
  type: string;
  at: number;
  properties: Record<string, unknown>;
}

export interface IssuedOtp {
  code: string;
  issuedAt: number;
  expiresAt: number;
  /** Wrong guesses so far; the code is burnt after a few. */
  failedAttempts: number;
  /** Set once the code can no longer be used (kept so the admin API still shows the last code sent). */
  spent?: 'used' | 'burnt';
}

export interface CustomerRecord {
  id: string;
  /** The service's own numeric id of the profile (`gameballId` of `POST /customers`). */
  gameballId: number;
  email?: string;
  mobile?: string;
  createdAt: number;
  /** Profile fields last sent by `POST /customers` (`customerAttributes`), merged call over call. */
  attributes?: Record<string, unknown>;
  guest?: boolean;
  /** Six digits; rotated by every hold, payment and refund. */
  hash: string;
  /** Spendable-or-held points (pending points excluded). May go below 0 after a refund of spent points. */
  settled: number;
  /** Net points earned (earn minus points taken back by refunds). */
  totalEarned: number;
  pending?: PendingLot[];
  /** References of holds that were active when last looked at. */
  activeHolds?: Set<string>;
  /** Every hold reference of this customer (for deletion). */
  holds?: string[];
  /** Payment/order ids of this customer (for deletion). */
  transactions?: string[];
  /** refundTransactionIds of this customer (for deletion). */
  refunds?: string[];
  activity?: ActivityEntry[];
  otp?: IssuedOtp;
  /** Tier progress counters other than points (which are `totalEarned`). */
  amountSpent?: number;
  orders?: number;
  referrals?: number;
  score?: number;
  /** Coupon code -> times this customer used it. */
  couponUsage?: Map<string, number>;
}

/**
 * A hold's stored state; `active` turns `expired` when read after `expiresAt`.
 * `released` (cancelled) is kept apart so a second cancel can say so; a
 * lookup shows it as the published `expired`.
 */
export type HoldRecordState = 'active' | 'used' | 'expired' | 'released';

export interface HoldRecord {
  reference: string;
  customerId: string;
  points: number;
  amount: number;
  ruleId?: string;
  state: HoldRecordState;
  createdAt: number;
  expiresAt: number;
  transactionTime: string;
  /** The payment/order that used it. */
  usedBy?: string;
  endedAt?: number;
}

/** One reward line of a payment, kept so refunds take points back at the earned rate. */
export interface EarnLine {
  serviceId: string;
  /** amount - discount as sent (line items are refunded against this). */
  netAmount: number;
  /** This line's share of totalPaid (what the customer actually paid for it). */
  paidAmount: number;
  rate: number;
  decimalPoints: number;
  points: number;
  refundedNet: number;
  refundedPoints: number;
}

/**
 * A payment, an order (tracked or batch) or a redemption (`POST
 * /transactions/redeem`): what was earned and redeemed, and what refunds took
 * back. The three share one id space, as the published 9004 "Transaction ID
 * Already Exists" has it.
 */
export interface TransactionRecord {
  id: string;
  kind: 'payment' | 'order' | 'redeem';
  customerId: string;
  at: number;
  /** What the customer paid; for a redemption, the money value of its points (what a refund of it is measured against). */
  totalPaid: number;
  earnedPoints: number;
  redeemedPoints: number;
  holdReference?: string;
  /** When earned points stay pending (return window); undefined = available at once. */
  pendingUntil?: number;
  lines: EarnLine[];
  /** True when the lines came from `paymentDetails` (line-item refunds need them). */
  itemised: boolean;
  refundedAmount: number;
  refundedEarnedPoints: number;
  returnedRedeemedPoints: number;
  refundCount: number;
  /** The merchant and branch names the payment carried (shown by the transactions list). */
  merchantName?: string;
  branchName?: string;
  /** A redemption's request as received (keys sorted), so a repeat of it is told from another request under its id. */
  request?: string;
  /** A redemption's `reason`, echoed by its answer. */
  reason?: string;
}

export interface RefundRecord {
  refundTransactionId: string;
  gameballTransactionId: string;
  customerId: string;
  reverseTransactionId: string;
  at: number;
  amount: number;
  takenBackPoints: number;
  returnedPoints: number;
  merchantName?: string;
  branchName?: string;
}

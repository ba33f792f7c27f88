import type { BatchJobStore } from './orders/batch-jobs';
import type { CouponLockStore } from './coupons/locks/types';
import type { RedemptionOptionsCache } from './redemptions/options';
import type { OtpTicketStore, UpstreamOtp } from './otp';
import type { OutboxStore } from './outbox/types';
import type { AuditTrail } from './audit/trail';
import type { RedemptionStore } from './redemptions/types';
import type { SaleRecords } from './sales/records';
import type { OpenRedemptionCap } from './redemptions/open-redemptions';
import type { RedemptionCap } from './redemptions/cap';
import type { SharedDeps } from './context';
import type { Store } from './terminals/types';
import type { RedisLosses } from './reconciliation/engine';
import type { TillAnswerStore } from './till-answers/types';
import type { IdempotencyStore } from './idempotency/types';
import type { ErasureFollowUp } from './privacy/follow-up';
import type { StandInLedger } from './stand-in/ledger';

/**
 * Everything the cashier operations are given, built once when the BFF is
 * assembled (server.ts). Only the assembly reads this whole: each use case
 * declares the parts it uses, and this must satisfy every one of them.
 */
export interface PosDeps extends SharedDeps {
  redemptions: RedemptionStore;
  /** Which store made each sale and refund (refunds, voids and read-back are store-scoped). */
  sales: SaleRecords;
  /** The stores of the terminals file: a sale this BFF has no record of is matched to its store by the branch it carried. */
  stores: () => readonly Store[];
  /** Coupons locked for a sale at the till (src/pos/coupons/locks). */
  couponLocks: CouponLockStore;
  /** The account's redemption rules, cached (REDEMPTION_OPTIONS_TTL_SECONDS). */
  redemptionOptions: RedemptionOptionsCache;
  /** Whether the loyalty account checks OTPs (followed, never configured). */
  upstreamOtp: UpstreamOtp;
  /** Which redemption each customer's one outstanding code was asked for. */
  otpTickets: OtpTicketStore;
  /** Writes queued while the upstream is out of reach (store-and-forward). */
  outbox: OutboxStore;
  /** Which store uploaded each batch job. */
  batchJobs: BatchJobStore;
  /** MAX_OPEN_REDEMPTIONS_PER_TERMINAL; absent = no cap. */
  openRedemptions?: OpenRedemptionCap;
  /** Points per customer and store day (REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY, src/pos/redemptions/cap.ts). */
  redemptionCap?: RedemptionCap;
  /** Every cashier action that changes money or points, per store (src/pos/audit); absent: not kept. */
  audit?: AuditTrail;
  /** Answers a till stopped waiting for (answered 202 at its deadline), for their read-back. */
  tillAnswers: TillAnswerStore;
  /** Idempotency records (the middleware's store), for a customer's erasure. */
  idempotency: IdempotencyStore;
  /** An erased customer's stable pseudonym (src/pos/privacy/pseudonym.ts); the key stays inside. */
  customerPseudonym(customerId: string): string;
  /** The second erasure pass after each deletion (src/pos/privacy); absent: none. */
  erasureFollowUp?: ErasureFollowUp;
  /** The Redis data set losses recorded in a span (epoch ms); absent without Redis. */
  redisLosses?: RedisLosses;
  /** Stand-in redemption's last known balances and floor-limit counters (src/pos/stand-in). */
  standInLedger: StandInLedger;
}

import type { Logger } from 'pino';
import type { Metrics } from '../platform/metrics';
import type { CashierApiSettings, HoldExpirySettings, MoneySettings } from '../platform/settings';
import type { BatchJobStore } from './orders/batch-jobs';
import type { LoyaltyClient } from '../upstream';
import type { CouponLockStore } from './coupons/locks/types';
import type { RedemptionOptionsCache } from './redemptions/options';
import type { OtpTicketStore, UpstreamOtp } from './otp';
import type { OutboxStore } from './outbox/types';
import type { Repair } from './money/repairs';
import type { RedemptionStore } from './redemptions/types';
import type { SaleRecords } from './sales/records';
import type { OpenRedemptionCap } from './redemptions/open-redemptions';
import type { TerminalIdentity } from './terminals/types';

/** REDEMPTION_PROOF: what shows the customer is at the till before their points are held. */
export type RedemptionProof = CashierApiSettings['redemptionProof'];

const FROM_CASHIER_API = [
  'redemptionProof',
  'holdPeriodMinutes',
  'holdSafetyMarginSeconds',
  'refundRequiresManager',
  'couponLockMinutes',
  'otpCodeMinutes',
] as const;
const FROM_MONEY = ['returnsAtAnyBranch', 'kioskEvents', 'kioskQr'] as const;

/** Settings the cashier operations read: their part of three features' slices (src/platform/settings). */
export type PosSettings = Pick<CashierApiSettings, (typeof FROM_CASHIER_API)[number]> &
  Pick<MoneySettings, (typeof FROM_MONEY)[number]> & {
    /** HOLD_EXPIRY_LOOKUP; default after_answer (src/pos/redemptions/hold-period.ts). */
    holdExpiryLookup?: HoldExpirySettings['lookup'];
  };

function pick<T, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;
}

/** The operations' settings, taken from the configuration's slices once, when the BFF is assembled. */
export function posSettings(config: { pos: CashierApiSettings; money: MoneySettings; holdExpiry: HoldExpirySettings }): PosSettings {
  return { ...pick(config.pos, FROM_CASHIER_API), ...pick(config.money, FROM_MONEY), holdExpiryLookup: config.holdExpiry.lookup };
}

/** What every cashier operation may use; built once in the app factory. */
export interface PosDeps {
  settings: PosSettings;
  loyalty: LoyaltyClient;
  redemptions: RedemptionStore;
  /** Which store made each sale and refund (refunds, voids and read-back are store-scoped). */
  sales: SaleRecords;
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
  /** Claims whose upstream outcome is unknown or could not be recorded: settled from the upstream later. */
  repairs?: { add(repair: Repair): void };
  /** Which store uploaded each batch job. */
  batchJobs: BatchJobStore;
  /** MAX_OPEN_REDEMPTIONS_PER_TERMINAL; absent = no cap. */
  openRedemptions?: OpenRedemptionCap;
  clock: () => number;
  logger: Logger;
  /** Prometheus metrics of this instance (src/platform/metrics.ts). */
  metrics: Metrics;
}

/** Per-request context an operation needs: who calls and the request id to pass upstream. */
export interface CallContext {
  identity: TerminalIdentity;
  requestId: string;
}

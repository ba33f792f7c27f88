import type {
  AbuseSettings,
  AuditSettings,
  CashierApiSettings,
  HoldExpirySettings,
  LoyaltySettings,
  MoneySettings,
  ReconciliationSettings,
  StandInSettings,
} from '../platform/settings';

/** REDEMPTION_PROOF: what shows the customer is at the till before their points are held. */
export type RedemptionProof = CashierApiSettings['redemptionProof'];

const FROM_CASHIER_API = [
  'redemptionProof',
  'holdPeriodMinutes',
  'holdSafetyMarginSeconds',
  'refundRequiresManager',
  'couponLockMinutes',
  'otpCodeMinutes',
  'tillWaitSeconds',
] as const;
const FROM_MONEY = ['returnsAtAnyBranch', 'kioskEvents', 'kioskQr'] as const;

/** Settings the cashier operations read: their part of several features' slices (src/platform/settings). Each use case picks the ones it reads. */
export type PosSettings = Pick<CashierApiSettings, (typeof FROM_CASHIER_API)[number]> &
  Pick<MoneySettings, (typeof FROM_MONEY)[number]> & {
    /** HOLD_EXPIRY_LOOKUP; default after_answer (src/pos/redemptions/hold-period.ts). */
    holdExpiryLookup?: HoldExpirySettings['lookup'];
    /** CASHIER_ID_REQUIRED: a store's default for needing X-Cashier-Id and X-Shift-Id; absent: false. */
    cashierRequired?: boolean;
    /** STORE_TIME_ZONE and RECONCILIATION_CONCURRENCY (src/pos/reconciliation); absent: UTC, 2. */
    storeTimeZone?: string;
    reconciliationConcurrency?: number;
    /** SALES_RECORDED_AS: how a new sale is sent upstream; absent: as a payment. */
    salesRecordedAs?: LoyaltySettings['salesRecordedAs'];
    /** REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY (a store's own through storePolicy); absent or 0: no cap. */
    redemptionCapPointsPerCustomerDay?: number;
    /** The SIGNAL_* thresholds of the abuse signals (src/pos/audit/signals.ts); absent: their defaults. */
    signals?: AbuseSettings['signals'];
    /** STAND_IN and its limits (src/pos/redemptions/stand-in); a store may override them (storePolicy). Absent: off. */
    standIn?: StandInSettings;
  };

function pick<T, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;
}

/** The operations' settings, taken from the configuration's slices once, when the BFF is assembled. */
export function posSettings(config: {
  pos: CashierApiSettings;
  money: MoneySettings;
  holdExpiry: HoldExpirySettings;
  audit: AuditSettings;
  reconciliation: ReconciliationSettings;
  loyalty: Pick<LoyaltySettings, 'salesRecordedAs'>;
  abuse?: AbuseSettings;
  standIn?: StandInSettings;
}): PosSettings {
  return {
    ...pick(config.pos, FROM_CASHIER_API),
    ...pick(config.money, FROM_MONEY),
    holdExpiryLookup: config.holdExpiry.lookup,
    cashierRequired: config.audit.cashierRequired,
    storeTimeZone: config.reconciliation.timeZone,
    reconciliationConcurrency: config.reconciliation.concurrency,
    salesRecordedAs: config.loyalty.salesRecordedAs,
    ...(config.abuse ? { redemptionCapPointsPerCustomerDay: config.abuse.redemptionCapPointsPerCustomerDay, signals: config.abuse.signals } : {}),
    standIn: config.standIn,
  };
}

export type TerminalRole = 'cashier' | 'manager' | 'kiosk';
export const TERMINAL_ROLES: readonly TerminalRole[] = ['cashier', 'manager', 'kiosk'];

/** A store: what the loyalty service knows as merchant and branch. */
export interface Store {
  id: string;
  merchant: { uniqueId: string; name: string };
  branch: { uniqueId: string; name: string };
  /** Event names this store's kiosks may send; absent: the KIOSK_EVENTS setting. */
  kioskEvents?: string[];
  /** Tills must name the cashier and shift on every write; absent: the CASHIER_ID_REQUIRED setting. */
  requireCashier?: boolean;
  /** Seconds its tills wait for an answer without `Prefer: wait`; absent: the TILL_WAIT_SECONDS setting. */
  tillWaitSeconds?: number;
  /** Most points one customer may redeem a day when starting here (0: none); absent: the REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY setting. */
  redemptionCapPointsPerCustomerDay?: number;
  /** Its own stand-in values (STAND_IN and its limits); each absent: the setting. */
  standIn?: StoreStandIn;
}

/** A store's stand-in overrides, in the units of the STAND_IN_* settings. */
export interface StoreStandIn {
  mode?: 'off' | 'on';
  afterSeconds?: number;
  seenMinutes?: number;
  maxPointsPerCustomer?: number;
  maxPointsPerStore?: number;
  approvalMinutes?: number;
}

export interface Terminal {
  id: string;
  storeId: string;
  role: TerminalRole;
  /** Hex SHA-256 of the token; the token itself is never stored. */
  tokenSha256: string;
  label?: string;
  createdAt: string;
  revokedAt?: string;
  /** Hex SHA-256 of the token this one replaced (terminal rotate): accepted until previousValidUntil, then refused. */
  previousTokenSha256?: string;
  previousValidUntil?: string;
}

/** Who is calling: set on every authenticated `/pos/v1` request. */
export interface TerminalIdentity {
  terminal: Terminal;
  store: Store;
}

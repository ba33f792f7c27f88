/**
 * The audit trail: one entry per cashier action that changes money or points,
 * appended once its outcome is known, per store. Entries are built from named
 * fields only (never from a request body), so no secret, token, hash, OTP or
 * customer contact detail can reach one.
 */
export const AUDIT_ACTIONS = [
  'redemption_start',
  'otp_step',
  'redemption_void',
  'payment',
  'refund',
  'sale_void',
  'coupon_lock',
  'coupon_release',
  'customer_registration',
  'customer_deletion',
  'events',
  'batch_upload',
  'stand_in_short',
  'stand_in_approve',
  'stand_in_lapsed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * - `applied`: the loyalty service took it (or its record showed it had);
 * - `refused`: certainly not applied, with our code;
 * - `unknown`: it may have been applied (the till was told to send it again);
 * - `queued`: waiting in the outbox (its entry says what became of it);
 * - `settled`: an earlier unknown outcome, settled from the upstream's record.
 */
export const AUDIT_OUTCOMES = ['applied', 'refused', 'unknown', 'queued', 'settled'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Who did it and where: the terminal's store and the cashier and shift the till named. */
export interface AuditActor {
  storeId: string;
  terminalId: string;
  cashierId?: string;
  shiftId?: string;
  requestId?: string;
}

/** What the action was about: ids, points and money. */
export interface AuditSubject {
  customerId?: string;
  paymentId?: string;
  refundId?: string;
  redemptionId?: string;
  couponLockId?: string;
  outboxId?: string;
  /** The loyalty service's id of the hold: kept for reconciliation (its hold lookup), not shown to tills. */
  holdReference?: string;
  /** Event names, coupon codes, or a batch's order ids (at most 50). */
  names?: string[];
  pointsEarned?: number;
  pointsRedeemed?: number;
  pointsHeld?: number;
  pointsTakenBack?: number;
  amountPaid?: number;
  amountRefunded?: number;
  amountHeld?: number;
  /** What a coupon lock takes off its basket. */
  couponWorth?: number;
  /**
   * A redemption start: how the customer was shown to be present. `qr`: a QR code scanned; `hash`: a typed id with the hash
   * from the customer's app; `otp`: a code sent to the customer; `none`: a typed customer id alone (REDEMPTION_PROOF=none).
   */
  proof?: RedemptionStartProof;
}

export const START_PROOFS = ['qr', 'hash', 'otp', 'none'] as const;
export type RedemptionStartProof = (typeof START_PROOFS)[number];

export interface NewAuditEntry extends AuditActor, AuditSubject {
  /** Epoch ms the outcome was known. */
  at: number;
  action: AuditAction;
  outcome: AuditOutcome;
  /** A refusal's or an unknown outcome's code; for `settled`, what the upstream's record settled it as. */
  code?: string;
  /** `settled`: which claim the repair settled (`sale:payment:P1`, `redemption:rdm_x`). */
  repair?: string;
  /** `settled` by the lease sweeps: nobody settled the claim within its lease (its taker crashed); who took it is the claim's. */
  afterCrash?: boolean;
}

export interface AuditEntry extends NewAuditEntry {
  /** Orders the store's entries: a Redis Stream id, or a sequence number in memory. */
  id: string;
}

/** A page of one store's entries in append order, whose ids come after `afterId`. */
export interface AuditScan {
  /** Epoch ms by the store's own clock (Redis's, in a stream id): entries appended before it are not read. */
  fromMs: number;
  /** Likewise: entries appended after it are not read. */
  untilMs: number;
  afterId?: string;
  count: number;
}

/** What one scan read: its entries, the id to carry on after, and whether the range was read to its end (fewer than asked for). */
export interface AuditScanned {
  entries: AuditEntry[];
  lastId?: string;
  done: boolean;
}

/**
 * Where entries live: a Redis Stream per store (trimmed to the retention), or
 * process memory. An entry appended late (kept in memory while Redis was away)
 * is ordered by when it was appended; its `at` says when it happened.
 */
export interface AuditStore {
  readonly kind: 'redis' | 'memory';
  append(entry: NewAuditEntry, now: number): Promise<void>;
  /** Up to `count` entries in append order. */
  scan(storeId: string, range: AuditScan): Promise<AuditScanned>;
  /**
   * Replaces the customer id in every entry of every store with its
   * pseudonym, each entry keeping its id and place in the trail (a customer's
   * erasure); how many entries changed.
   */
  pseudonymise(customerId: string, pseudonym: string): Promise<number>;
  close(): Promise<void>;
}

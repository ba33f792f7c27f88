import type { AuditAction } from '../audit/types';
import type { AbuseSignalView } from '../audit/signals';

/** Points and money of one row or of a whole day, on one side. `null`: that side cannot say (an answer lost, a figure the interface does not give). */
export interface Figures {
  paid?: number | null;
  refunded?: number | null;
  earned?: number | null;
  redeemed?: number | null;
  givenBack?: number | null;
  takenBack?: number | null;
}
export const FIGURES = ['paid', 'refunded', 'earned', 'redeemed', 'givenBack', 'takenBack'] as const;
export type Figure = (typeof FIGURES)[number];

/**
 * What the report flags, each a thing a manager looks into:
 * - `missing_upstream`: applied here, not on the loyalty service's record;
 * - `mismatch`: on both, with different figures (or a hold used by no sale here);
 * - `upstream_only`: on the loyalty service's record of this store's sale, but not done by this store (another branch, or outside this BFF);
 * - `unknown_then_settled` / `unknown_open`: the till was told the outcome was unknown; settled since from the upstream's record, or not yet;
 * - `hold_unanswered`: a hold was sent and no answer came: it may stand, and holds carry no id, so no record can show it (it lapses by itself);
 * - `queued` / `dead_letter`: a write still waiting in the outbox, or given up there;
 * - `stand_in_short`: a stand-in redemption whose points the loyalty service refused for the balance when it was settled (the sale went without them);
 * - `stand_in_redeem_mismatch`: a settled stand-in whose redeem the loyalty service's record does not show as this BFF settled it
 *   (redeemed here: not exactly one redeem of its points under its id; short, or given up: a redeem there all the same);
 * - `hold_open` / `hold_lapsed`: a redemption neither paid nor voided whose hold is still active, or ran out;
 * - `lock_open` / `lock_lapsed`: the same for a coupon lock;
 * - `other_store_sale`: a refund or void of a sale another store rang up (RETURNS_AT_ANY_BRANCH);
 * - `not_checked`: the loyalty service's record could not be read for it.
 */
export const ANOMALIES = [
  'missing_upstream',
  'mismatch',
  'upstream_only',
  'unknown_then_settled',
  'unknown_open',
  'hold_unanswered',
  'queued',
  'dead_letter',
  'hold_open',
  'hold_lapsed',
  'stand_in_short',
  'stand_in_redeem_mismatch',
  'lock_open',
  'lock_lapsed',
  'other_store_sale',
  'not_checked',
] as const;
export type Anomaly = (typeof ANOMALIES)[number];

export const ROW_KINDS = ['sale', 'refund', 'sale_void', 'redemption', 'coupon_lock', 'customer', 'events', 'batch_upload'] as const;
export type RowKind = (typeof ROW_KINDS)[number];

/**
 * - `matched`: both sides agree; `refused`: refused here (nothing to compare);
 * - `not_applied`: not on either side (an unknown outcome that did not land, a dead letter);
 * - `used`, `voided`, `released`: how a redemption or lock ended, as expected;
 * - `open`: a hold or lock still standing; `lapsed`: one that ran out unused;
 * - `no_hold`: a redemption whose code was sent but never confirmed;
 * - `pending`: a paid stand-in whose redeem still waits in the outbox with its sale (the sale's row flags it `queued`);
 * - `recorded_here`: an action the interface keeps no readable record of (events, sign-ups, deletions, batch uploads);
 * - and the anomalies that are a row's whole story (`missing_upstream`, `upstream_only`, `queued`, `dead_letter`, `not_checked`, `mismatch`).
 */
export const ROW_STATUSES = [
  'matched',
  'refused',
  'not_applied',
  'used',
  'voided',
  'released',
  'open',
  'lapsed',
  'no_hold',
  'pending',
  'recorded_here',
  'missing_upstream',
  'upstream_only',
  'queued',
  'dead_letter',
  'not_checked',
  'mismatch',
] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

export interface ReconciliationRow {
  kind: RowKind;
  /** The sale's payment id, the refund id, the redemption or lock id; the audit entry's id for the rest. */
  id: string;
  customerId?: string;
  /** A refund's sale. */
  paymentId?: string;
  terminalIds: string[];
  cashierIds: string[];
  status: RowStatus;
  flags: Anomaly[];
  /** In words, for the printout and the CSV. */
  note: string;
  bff: Figures;
  upstream: Figures;
  /** The audit entries of this row (every entry of the day is in exactly one row). */
  entries: string[];
  /** When it happened (the first entry), epoch ms. */
  at: number;
}

export interface ReconciliationReport {
  storeId: string;
  window: { from: string; to: string; date?: string; timeZone: string };
  generatedAt: string;
  /** The day's actions (audit entries), by action. */
  actions: Partial<Record<AuditAction, number>>;
  /** Entries that settled an earlier unknown outcome (a repair). */
  settledLater: number;
  rows: ReconciliationRow[];
  anomalies: { kind: Anomaly; row: RowKind; id: string; note: string }[];
  totals: { bff: Figures; upstream: Figures; /** Rows whose BFF-side figure is not known, per figure. */ notKnownHere: Partial<Record<Figure, number>> };
  /** Reads of the loyalty service's records this report made. */
  reads: { orderTransactions: number; holdLookup: number };
  /**
   * Spans overlapping the window in which the Redis data set was lost (from the last time it was seen
   * whole to the time it was found lost): what the BFF recorded before then (the audit trail, queued
   * writes, sale owners) may be gone, so rows may be missing and figures short here.
   */
  redisLosses: { from: string; to: string }[];
  /** The abuse signals of the window this store has a part in, with only its own part (src/pos/audit/signals.ts); none on a clean day. */
  signals: AbuseSignalView[];
}

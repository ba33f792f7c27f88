import type { Applied, RedemptionTransition } from '../money/machines';
import { isFinal, REDEMPTION_MACHINE, type RedemptionState } from '../money/machines';
import type { ClaimLease } from '../money/lease';

/**
 * A redemption: the BFF's record of one OTP -> hold -> payment flow. Its
 * states and their transitions are REDEMPTION_MACHINE (../money/machines.ts);
 * `paying` and `voiding` are the claims a payment or a void holds while its
 * upstream call is in flight or its outcome unknown.
 */
export type { RedemptionState };
export const ENDING_STATES: readonly RedemptionState[] = (Object.keys(REDEMPTION_MACHINE) as RedemptionState[]).filter((s) => isFinal(REDEMPTION_MACHINE, s));
/** States with a live upstream hold. */
export const OPEN_STATES: readonly RedemptionState[] = ['held', 'paying', 'voiding'];
/**
 * States that lapse at `expiresAt`: the live holds, and a stand-in not yet paid
 * or still waiting for a manager's approval (a promise made offline is as short
 * as a hold). The expiry index holds these.
 */
export const LAPSING_STATES: readonly RedemptionState[] = [...OPEN_STATES, 'stand_in', 'stand_in_approval'];

export type RedemptionAsk = { kind: 'amount'; amount: number } | { kind: 'points'; points: number } | { kind: 'rule'; ruleId: string };

export interface Redemption {
  /** `rdm_` + random; what the till names in later calls. */
  id: string;
  storeId: string;
  terminalId: string;
  customerId: string;
  email?: string;
  mobile?: string;
  ask: RedemptionAsk;
  /** The customer's rotating hash, kept only until the hold is placed (OTP flow). */
  hash?: string;
  state: RedemptionState;
  holdReference?: string;
  holdAmount?: number;
  holdPoints?: number;
  /** Epoch ms when the upstream hold ends (set once held), or when a stand-in not yet paid, or its wait for approval, lapses. */
  expiresAt?: number;
  /** The payment that claimed it (`paying`) and used it (`redeemed`). */
  paymentId?: string;
  createdAt: number;
  updatedAt: number;
  /** Monotonic version, bumped by every write (compare-and-set). */
  version: number;
  /**
   * A stand-in (no hold: the loyalty service was out): the last known balance it was checked against, the
   * floor-limit counters it took (given back by a void), a manager's approval, and who rang it up.
   */
  standIn?: StandInTerms;
  /** While `paying` or `voiding`: who claimed it, and until when (../money/lease.ts). */
  lease?: ClaimLease;
}

export interface StandInTerms {
  points: number;
  lastKnownBalance: number;
  /** The counters' keys it took its points from (src/pos/stand-in/ledger.ts); absent when a manager approved it over them. */
  counted?: { customerKey: string; storeKey: string };
  /** Over the limits (`stand_in_approval`): a manager may approve it until then (epoch ms). */
  approvalUntil?: number;
  /** The manager terminal that approved it. */
  approvedBy?: string;
  cashierId?: string;
  shiftId?: string;
}

/** Outcome of an atomic change: the new record, or why it could not be made. */
export type ChangeResult =
  { ok: true; redemption: Redemption } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'rejected'; redemption: Redemption; detail: string };

/**
 * Where redemptions live: Redis in production, memory otherwise. Both
 * implementations pass the same test suite.
 */
export interface RedemptionStore {
  readonly kind: 'redis' | 'memory';
  /** Stores a new record (version 1). Held records join the expiry index. */
  create(redemption: Redemption): Promise<void>;
  /**
   * Reads one record. A `held` record whose `expiresAt` <= now is expired on
   * read (atomically, counted once), so a late sweeper never lets it be used.
   */
  get(id: string, now: number): Promise<Redemption | null>;
  /**
   * Atomic read-modify-write: `change` sees the current record and returns the
   * next one, or a string explaining why the change is refused. Retries on a
   * concurrent write. Keeps the expiry index in step (it holds the LAPSING_STATES).
   */
  change(id: string, now: number, change: (current: Redemption) => Redemption | string): Promise<ChangeResult>;
  /** Applies a named transition of REDEMPTION_TRANSITIONS inside the same compare-and-set. */
  apply(id: string, now: number, name: RedemptionTransition, opts?: Applied<Redemption>): Promise<ChangeResult>;
  /**
   * Claims up to `limit` due holds (expiresAt <= now), each for one caller only.
   * An unclaimed one is marked expired. A claimed one (a payment or a void was
   * under way: its outcome is unknown here) is returned still `held`, and kept
   * in the index `recheckMs` later, so the sweeper can ask the upstream what
   * became of it and a crash meanwhile loses nothing.
   */
  sweepDue(now: number, limit: number): Promise<Redemption[]>;
  /** Number of records in the expiry index (open holds and stand-ins not yet paid). */
  countOpen(): Promise<number>;
  /** Every record kept, in batches (a customer's erasure looks for theirs); a whole-store pass. */
  list(each: (redemptions: Redemption[]) => Promise<void>): Promise<void>;
  /** Claims a release before leases wrote: given a lease from their last write (see ../money/records). Returns how many. */
  adoptLeaselessClaims(now: number, stopped?: () => boolean): Promise<number>;
  close(): Promise<void>;
  /**
   * Optional: hears each hold this store instance expires on read (`get` or
   * `change`), so it can be logged and counted once, like the sweeper's own
   * claims (which `sweepDue` returns). Returns the unsubscribe function.
   */
  onReadExpiry?(listener: (redemption: Redemption) => void): () => void;
}

import type { ProblemCode } from '../../../platform/problem-catalogue';
import { claimLeaseMs, leaseEnd, withLease, type ClaimLease } from '../lease';

/** What the shared store needs of a record: an id, a state of its machine, a version and when it was last written. */
export interface VersionedRecord {
  id: string;
  state: string;
  /** Monotonic, bumped by every write (compare-and-set). */
  version: number;
  updatedAt: number;
  /** Held while in a claim state (the rules' isClaimed): see ../lease.ts. */
  lease?: ClaimLease;
}

/**
 * What one feature's records are, for the shared store (Redis and memory
 * alike): how a record is first stored and changed, which ones the due index
 * holds and from when, what a due one nobody claimed becomes, how long each is
 * kept. Everything else (the change loop, the claim of due records, the index,
 * retention) is the store's, the same for every feature.
 */
export interface RecordRules<R extends VersionedRecord> {
  /** How the till's problems name one: 'Redemption', 'Coupon lock'. */
  noun: string;
  /** A create whose id is taken; a change that lost every compare-and-set round. */
  problems: { exists: ProblemCode; busy: ProblemCode };
  /** The record as first stored (version 1); may throw on a record that cannot be kept. */
  firstVersion(record: R): R;
  /** The record a change proposes, as it will be written (next version, updatedAt = now), or why the feature's machine refuses it. */
  nextVersion(current: R, proposed: R, now: number): R | string;
  /** When an open record falls due (its score in the index); undefined for one the index does not hold. */
  dueAt(record: R): number | undefined;
  /** An open record a payment, a void or a release holds: when due it is handed over as it is, its outcome being known only upstream. */
  isClaimed(record: R): boolean;
  /** An open record nobody claimed that the sweep hands over too, for its caller to ask upstream before ending it (a read still ends it). Default: none. */
  handsOver?(record: R): boolean;
  /** What a due open record nobody claimed becomes (expired, abandoned): the next version, at `now`. */
  ended(record: R, now: number): R;
  /** Milliseconds from `now` the record is kept (a Redis TTL). */
  retentionMs(record: R, now: number): number;
  /** A due record nobody claimed is ended on read too (by `get` and `change`), not only by the sweep. */
  endsOnRead: boolean;
  /** A second record some writes make beside this one, in the same atomic write, kept `keepMs` (a coupon lock's used codes, by payment). */
  side?: { of(record: R): { id: string; value: string } | undefined; keepMs: number };
}

/** Outcome of an atomic change: the new record, or why it could not be made. */
export type RecordChange<R> = { ok: true; record: R } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'rejected'; record: R; detail: string };

/** The shared store, in Redis (./redis-store.ts) or in memory (./memory-store.ts). */
export interface RecordStore<R extends VersionedRecord> {
  /** Stores a new record (version 1); the `exists` problem when the id is taken. */
  create(record: R): Promise<void>;
  /** Reads one record. Given `now`, a due one is ended first when the rules say `endsOnRead` (and memory forgets one past its retention, as a Redis TTL would). */
  get(id: string, now?: number): Promise<R | null>;
  /**
   * Atomic read-modify-write: `change` sees (a copy of) the current record and
   * returns the next one, or a string saying why not; the rules' `nextVersion`
   * may refuse it too. Retries on a concurrent write, then gives up with the
   * `busy` problem. Keeps the due index in step.
   */
  change(id: string, now: number, change: (current: R) => R | string): Promise<RecordChange<R>>;
  /**
   * Claims up to `limit` due records, each for one caller only. One nobody
   * claimed is ended (and returned so); a claimed one is returned as it is and
   * kept in the index `recheckMs` later, so a crash meanwhile loses nothing.
   */
  sweepDue(now: number, limit: number): Promise<R[]>;
  /** Records in the due index. */
  countOpen(): Promise<number>;
  /** The value of a side record (see RecordRules.side), or null. */
  sideRecord(id: string): Promise<string | null>;
  /**
   * Claims written by a release before leases: each is given the lease it
   * would have had, from its last write (its claim), so it falls due at that
   * lease's end rather than at the end of what it claims. Returns how many;
   * `stopped` (the process closing) ends the scan early.
   */
  adoptLeaselessClaims(now: number, stopped?: () => boolean): Promise<number>;
  /**
   * Every record kept, in batches, in no particular order (a customer's
   * erasure looks for theirs): a whole-store pass, never for a request's path.
   */
  list(each: (records: R[]) => Promise<void>): Promise<void>;
  /** Hears each record this instance ends on read. Returns the unsubscribe function. */
  onEndOnRead(listener: (record: R) => void): () => void;
  close(): Promise<void>;
}

/** The next version `change` proposes, checked by the rules, or why not; entering a claim state stamps its lease. */
export function proposeChange<R extends VersionedRecord>(rules: RecordRules<R>, current: R, now: number, change: (current: R) => R | string): R | string {
  const proposed = change(structuredClone(current));
  if (typeof proposed === 'string') return proposed;
  const next = rules.nextVersion(current, proposed, now);
  return typeof next === 'string' ? next : withLease(current, next, rules.isClaimed, now);
}

/**
 * A record's place in the due index: the rules' due time, brought forward to
 * its lease's end while claimed, so a claim nobody settles (its taker crashed)
 * is swept and settled then, not at the end of the thing it claims. Freed, it
 * goes back to the rules' time. A claim written before leases counts from its last write.
 */
export function dueOf<R extends VersionedRecord>(rules: RecordRules<R>, r: R): number | undefined {
  const due = rules.dueAt(r);
  if (due === undefined || !rules.isClaimed(r)) return due;
  return Math.min(due, leaseEnd(r, r.updatedAt, r.updatedAt));
}

/** Tells each listener, a listener's fault never failing the read that triggered it. */
export function tell<R>(listeners: Iterable<(record: R) => void>, record: R): void {
  for (const listener of listeners) {
    try {
      listener(structuredClone(record));
    } catch {
      // A listener's fault must not fail the read that triggered it.
    }
  }
}

/** The change adoptLeaselessClaims makes: a claim without a lease gets one from its last write. */
export function leaselessAdopted<R extends VersionedRecord>(rules: RecordRules<R>): (cur: R) => R | string {
  return (cur) =>
    rules.isClaimed(cur) && !cur.lease
      ? { ...cur, lease: { at: cur.updatedAt, until: cur.updatedAt + claimLeaseMs(), adopted: true } }
      : 'not a claim without a lease';
}

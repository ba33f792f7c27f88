import { REDEMPTION_MACHINE, transitionRefusal } from '../money/machines';
import type { RecordRules } from '../money/records/types';
import { ENDING_STATES, LAPSING_STATES, OPEN_STATES, Redemption } from './types';

/** How long each kind of record is kept; both stores apply the same policy. */
export interface RetentionPolicy {
  /** Ending records (redeemed, voided, expired), and lapsing ones past their expiry. Default 24 h. */
  ttlAfterEndMs: number;
  /** A record still waiting for the customer's OTP is forgotten after this. Default 15 min. */
  otpTtlMs: number;
}

/** A due hold with a payment or void under way is looked at again this long after a sweep returned it (unless settled meanwhile). */
export const DEFAULT_RECHECK_MS = 30_000;

export const DEFAULT_RETENTION: RetentionPolicy = { ttlAfterEndMs: 24 * 3600_000, otpTtlMs: 15 * 60_000 };

/** Milliseconds from `now` the record is kept: a lapsing record lives until its expiry plus the after-end time. */
export function retentionMs(r: Redemption, now: number, policy: RetentionPolicy): number {
  if (lapses(r)) return Math.max(0, (r.expiresAt ?? now) - now) + policy.ttlAfterEndMs;
  if (r.state === 'otp_required' || r.state === 'confirming') return policy.otpTtlMs;
  return policy.ttlAfterEndMs;
}

/** A redemption with a payment or a void under way (or done upstream and not yet recorded here). */
export function isClaimed(r: Redemption): boolean {
  return r.state === 'paying' || r.state === 'voiding';
}

/** A live upstream hold: held or claimed. */
export function isOpen(r: Redemption): boolean {
  return OPEN_STATES.includes(r.state);
}

/**
 * In the expiry index: a live hold, or a stand-in not yet paid (or waiting for
 * approval) with its time set. One made before stand-ins lapsed has none: it is
 * kept to its retention, as then.
 */
export function lapses(r: Redemption): boolean {
  return LAPSING_STATES.includes(r.state) && (isOpen(r) || r.expiresAt !== undefined);
}

/** The state an expired record lapsed from: a stand-in waiting for approval (never approved), a stand-in, or a hold. */
export function lapsedFrom(r: Redemption): Redemption['state'] {
  if (!r.standIn) return 'held';
  return r.standIn.approvalUntil !== undefined && !r.standIn.approvedBy ? 'stand_in_approval' : 'stand_in';
}

export function isEnding(r: Redemption): boolean {
  return ENDING_STATES.includes(r.state);
}

/** Programmer errors (not request errors): a record the store cannot index or keep. */
function assertStorable(r: Redemption): void {
  if (typeof r.id !== 'string' || r.id.length === 0) throw new TypeError('redemption id must be a non-empty string');
  for (const [name, value] of [
    ['createdAt', r.createdAt],
    ['updatedAt', r.updatedAt],
    ['expiresAt', r.expiresAt],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) throw new TypeError(`redemption ${name} must be epoch milliseconds`);
  }
  if (isOpen(r) && r.expiresAt === undefined) throw new TypeError(`a ${r.state} redemption needs expiresAt`);
  if (r.state === 'paying' && !r.paymentId) throw new TypeError('a paying redemption needs its paymentId');
}

/** The record as first stored: version 1. */
export function firstVersion(r: Redemption): Redemption {
  const stored = { ...structuredClone(r), version: 1 };
  assertStorable(stored);
  return stored;
}

/**
 * The record a change proposes, as it will be written: same id, next version,
 * `updatedAt` = now. A string explains a refusal: only the transitions of
 * REDEMPTION_MACHINE are allowed (both stores call this inside their compare-and-set).
 */
export function nextVersion(current: Redemption, proposed: Redemption, now: number): Redemption | string {
  const refusal = transitionRefusal(REDEMPTION_MACHINE, `redemption ${current.id}`, current.state, proposed.state);
  if (refusal) return refusal;
  const next = { ...proposed, id: current.id, version: current.version + 1, updatedAt: now };
  assertStorable(next);
  return next;
}

/** The record as expired by the store (sweep or read), at `now`. */
export function expiredVersion(r: Redemption, now: number): Redemption {
  return { ...r, state: 'expired', version: r.version + 1, updatedAt: now };
}

/**
 * Redemptions as the shared record store keeps them: open holds and unpaid
 * stand-ins are due at their expiry, and a due one nobody claimed expires, on
 * read too (and in the sweep; with `askBeforeEnding` the sweep hands a held one
 * over instead). A stand-in's floor limits and cap are given back by whoever
 * hears of the expiry (the sweeper's onExpired).
 */
export function redemptionRules(policy: RetentionPolicy, opts: { askBeforeEnding?: boolean } = {}): RecordRules<Redemption> {
  return {
    // The sweeper asks the hold's record (and releases a hold still active upstream) before it ends one.
    handsOver: opts.askBeforeEnding ? (r) => r.state === 'held' : undefined,
    noun: 'Redemption',
    problems: { exists: 'redemption_exists', busy: 'redemption_busy' },
    firstVersion,
    nextVersion,
    dueAt: (r) => (lapses(r) ? r.expiresAt : undefined),
    isClaimed,
    ended: expiredVersion,
    retentionMs: (r, now) => retentionMs(r, now, policy),
    endsOnRead: true,
  };
}

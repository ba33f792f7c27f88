import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Every claim carries a lease: when it was taken, until when its taker may
 * still settle it, and who took it. Past its end, nobody is settling it (the
 * process that took it crashed, or gave up): the lease sweeps settle it from
 * the upstream's record, and the record alone says whose action it was.
 */
export interface ClaimLease {
  /** Epoch ms the claim was taken. */
  at: number;
  /** Epoch ms after which the claim's taker is no longer settling it. */
  until: number;
  terminalId?: string;
  cashierId?: string;
  shiftId?: string;
  requestId?: string;
  /** Given to a claim written without one (by the release before leases): `at` is when it was given, not when the claim was taken. */
  adopted?: true;
}

/** Who takes the claims of the action running now (the call's context). */
export type ClaimTaker = Pick<ClaimLease, 'terminalId' | 'cashierId' | 'shiftId' | 'requestId'>;

/**
 * Longer than several upstream calls with their retries (LOYALTY_TIMEOUT_MS
 * times LOYALTY_RETRIES + 1; start-up checks it, settings/money.ts
 * claimLeaseProblem): a claim whose lease has ended has no write of its taker
 * still in flight. CLAIM_LEASE_SECONDS sets it (server.ts).
 */
export const DEFAULT_CLAIM_LEASE_MS = 120_000;

let leaseMs = DEFAULT_CLAIM_LEASE_MS;

/** Set once at start-up from CLAIM_LEASE_SECONDS. */
export function setClaimLeaseMs(ms: number): void {
  if (!(Number.isSafeInteger(ms) && ms > 0)) throw new RangeError('a claim lease must be a positive number of milliseconds');
  leaseMs = ms;
}

export function claimLeaseMs(): number {
  return leaseMs;
}

const takers = new AsyncLocalStorage<ClaimTaker>();

/** Runs an action whose claims are taken by `taker` (the audit hook enters it with the call's context). */
export function asTaker<T>(taker: ClaimTaker, run: () => Promise<T>): Promise<T> {
  return takers.run(taker, run);
}

/** A new lease from `now`, naming the action running now (if any). */
export function newLease(now: number): ClaimLease {
  const taker = takers.getStore() ?? {};
  const lease: ClaimLease = { at: now, until: now + leaseMs };
  for (const k of ['terminalId', 'cashierId', 'shiftId', 'requestId'] as const) if (taker[k] !== undefined) lease[k] = taker[k];
  return lease;
}

/**
 * When a claim's lease ends. A record written by a release before leases
 * has none: its lease is taken as ended at its claim time (`claimedAt`, the
 * record's last write where it keeps one) plus the lease, else at `now` plus the lease.
 */
export function leaseEnd(record: { lease?: ClaimLease }, claimedAt: number | undefined, now: number): number {
  return record.lease?.until ?? (claimedAt ?? now) + leaseMs;
}

/**
 * A claim taken again by the action that holds it (a till's retry after an
 * unknown outcome): its lease starts again, naming the retry, since its taker
 * is settling it once more. The store stamps the new lease (withLease).
 */
export function renewLease<R extends { lease?: ClaimLease }>(record: R): R {
  const { lease: _over, ...rest } = record;
  return rest as R;
}

/**
 * The record as a change writes it: entering a claim state stamps a new
 * lease, leaving one drops it, staying keeps it (a field changing inside a
 * claim). A claim without one (written by the release before leases, perhaps
 * by an instance of it still running in a rolling upgrade) gets one at its
 * first change here, so the sweeps see it.
 */
export function withLease<R extends { lease?: ClaimLease }>(was: R, next: R, claimed: (r: R) => boolean, now: number): R {
  const before = claimed(was);
  const after = claimed(next);
  if (after && (!before || next.lease === undefined)) {
    // A claim that stood without a lease is adopted: its lease's `at` is not when it was claimed.
    const adopted = before && was.lease === undefined;
    return { ...next, lease: adopted ? { ...newLease(now), adopted: true } : newLease(now) };
  }
  if (!after && next.lease !== undefined) {
    const { lease: _dropped, ...rest } = next;
    return rest as R;
  }
  return next;
}

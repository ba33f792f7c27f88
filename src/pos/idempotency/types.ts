/**
 * Idempotency records: one per (terminal, Idempotency-Key). A record is either
 * `running` (a request holds it under a lease) or `done` (the first response,
 * kept for the TTL and replayed to every retry with the same fingerprint).
 */

import type { StoredResponse } from '../stored-response';

export type { StoredResponse } from '../stored-response';

/** Where a record lives: keys are scoped to the terminal that sent them. */
export interface IdempotencySlot {
  terminalId: string;
  key: string;
}

export interface Claim {
  /** SHA-256 of method, path, canonical body and query (see fingerprint.ts). */
  fingerprint: string;
  /** Random per request: only the claimer may renew, complete or release. */
  owner: string;
  now: number;
  leaseMs: number;
}

export type BeginResult =
  { kind: 'claimed' } | { kind: 'running'; fingerprint: string; expiresAt: number } | { kind: 'done'; fingerprint: string; response: StoredResponse };

export interface IdempotencyStore {
  readonly kind: 'memory' | 'redis';
  /**
   * Atomically claims the slot for a new run, or reports what holds it. A
   * running record whose lease has lapsed (its request crashed) counts as absent.
   */
  begin(slot: IdempotencySlot, claim: Claim): Promise<BeginResult>;
  /** Extends the lease of a running record this owner holds; false when it holds none. */
  renew(slot: IdempotencySlot, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Turns this owner's running record into the done record; false when it holds none (lease lost). */
  complete(slot: IdempotencySlot, owner: string, fingerprint: string, response: StoredResponse, now: number, ttlMs: number): Promise<boolean>;
  /** Drops this owner's running record so the key can be used again; false when it holds none. */
  release(slot: IdempotencySlot, owner: string): Promise<boolean>;
  /**
   * Drops every done record whose kept answer `names` picks (a customer's
   * erasure); how many. A whole-store pass, never for a request's path: a
   * retry with a dropped key then runs again as a new request.
   */
  forgetAnswers(names: (answer: StoredResponse) => boolean): Promise<number>;
  close(): Promise<void>;
}

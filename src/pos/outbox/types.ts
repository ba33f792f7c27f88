import type { BatchOrdersRequest, EventRequest, PaymentRequest, RedeemRequest, RefundRequest } from '../../contract';

/**
 * The outbox: writes the till made while the loyalty service could not take
 * them, kept until they are delivered. States:
 *   queued -> delivering -> delivered
 *   delivering -> queued (failed for now; tried again after a backoff)
 *   delivering -> dead (refused, or failed too often) -> queued (retried by a manager) | discarded
 */
export type OutboxState = 'queued' | 'delivering' | 'delivered' | 'dead' | 'discarded';

/** What is sent upstream: the v4.0 request, built (ids, merchant, times) when the till asked. */
export type OutboxWork =
  /** A sale, kept as its payment request; `recordedAs: 'order'` is sent as a tracked order (absent: a payment). */
  | { kind: 'payment'; request: PaymentRequest; recordedAs?: 'order'; standIn?: StandInRedeem }
  | { kind: 'refund'; request: RefundRequest }
  | { kind: 'events'; request: EventRequest }
  | { kind: 'batchOrders'; request: BatchOrdersRequest };
export type OutboxKind = OutboxWork['kind'];

/**
 * A stand-in redemption's points, redeemed before its sale in the same entry
 * (in order, once each): `redeem.transactionId` is the redemption id, which the
 * loyalty service deduplicates by. Refused for the balance: the sale still goes.
 */
export interface StandInRedeem {
  redemptionId: string;
  redeem: RedeemRequest;
  /** Who rang it up (the till that started it): a shortfall is flagged with them even when the redemption's record is gone by then. */
  terminalId?: string;
  cashierId?: string;
  shiftId?: string;
}

/** Why an attempt failed, as our error code; never the upstream's text. */
export interface OutboxFailure {
  code: string;
  message: string;
  status?: number;
  at: number;
}

export interface NewOutboxEntry {
  /** `obx_` + random; what the till looks up. */
  id: string;
  work: OutboxWork;
  /** Entries with the same key are delivered in the order they were queued (the customer; a store's batches). */
  orderKey: string;
  storeId: string;
  terminalId: string;
  /** The request that queued it, for the logs. */
  requestId: string;
  /** Our code of the failure that made it queue (or `behind_queued`). */
  reason: string;
}

export interface OutboxEntry extends NewOutboxEntry {
  state: OutboxState;
  /** Sends tried (refusals by our own breaker or limiter are not counted: nothing was sent). */
  attempts: number;
  /** Epoch ms; not tried again before. */
  nextAttemptAt: number;
  createdAt: number;
  updatedAt: number;
  deliveredAt?: number;
  deadAt?: number;
  lastError?: OutboxFailure;
  /** What the upstream answered when it was delivered (points, job id...). */
  result?: Record<string, unknown>;
}

/** How one delivery ended. `counted: false` = nothing was sent (breaker open, over the rate limit). */
export type DeliveryOutcome =
  | { kind: 'delivered'; result: Record<string, unknown> }
  | { kind: 'retry'; error: OutboxFailure; nextAttemptAt: number; counted: boolean }
  | { kind: 'dead'; error: OutboxFailure };

export interface OutboxCounts {
  /** Entries not yet delivered (queued or being delivered). */
  pending: number;
  dead: number;
}

/**
 * Where the outbox lives: a Redis Stream with a consumer group shared by every
 * BFF instance, or process memory. Both pass one test suite.
 *
 * Delivery goes through `take` and `finish`: `take` hands a consumer (one
 * worker) entries that are due, are the oldest undelivered entry of their
 * order key, and whose key no consumer holds right now; it leases the key for
 * `leaseMs`. A dead consumer's lease runs out and its entries are taken over.
 */
export interface OutboxStore {
  readonly kind: 'redis' | 'memory';
  enqueue(entry: NewOutboxEntry, now: number): Promise<OutboxEntry>;
  get(id: string, now: number): Promise<OutboxEntry | null>;
  /** True while `orderKey` has entries not yet delivered (a new write for it must queue behind them). */
  hasPending(orderKey: string): Promise<boolean>;
  take(consumer: string, now: number, limit: number): Promise<OutboxEntry[]>;
  /** Extends the lease while a delivery is in flight; false if it was lost. */
  renew(entry: OutboxEntry, consumer: string): Promise<boolean>;
  finish(entry: OutboxEntry, consumer: string, outcome: DeliveryOutcome, now: number): Promise<void>;
  /** Dead letters of one store, newest first. */
  listDead(storeId: string, limit: number, now: number): Promise<OutboxEntry[]>;
  /** Puts a dead letter of this store back in the queue (at the end of its key's order). Null if there is none. */
  retryDead(id: string, storeId: string, now: number): Promise<OutboxEntry | null>;
  discardDead(id: string, storeId: string, now: number): Promise<OutboxEntry | null>;
  /**
   * Marks a send of this entry as started, before it is sent: false when an
   * earlier one started and nobody recorded that it certainly never left (a
   * worker killed mid-send, a lease lost, an outcome that could not be
   * recorded). For writes the upstream cannot refuse a copy of (events).
   */
  startSend(id: string): Promise<boolean>;
  /** The send started for this entry certainly never left (an open circuit, a 429, a refused connection). */
  sendNotStarted(id: string): Promise<void>;
  /** A consumer stopping cleanly: its undelivered entries become available to others at once. */
  release(consumer: string): Promise<void>;
  counts(): Promise<OutboxCounts>;
  /** Every entry kept (any state), in batches: a customer's erasure looks for theirs. A whole-store pass. */
  list(each: (entries: OutboxEntry[]) => Promise<void>): Promise<void>;
  /**
   * Rewrites a delivered or discarded entry as `scrub` makes it (its work,
   * order key, result and last error; a customer's erasure): false when the
   * entry is gone, in another state, or changed since `entry` was read.
   */
  rewriteFinished(entry: OutboxEntry, scrub: (entry: OutboxEntry) => OutboxEntry): Promise<boolean>;
  close(): Promise<void>;
}

/** States whose entry is settled for good: nothing will deliver it again. */
export const FINISHED_STATES: readonly OutboxState[] = ['delivered', 'discarded'];

export interface OutboxStoreOptions {
  /** How long a consumer holds a key (renewed while delivering); also the idle time after which another consumer claims its entries. */
  leaseMs: number;
  /** How long records of delivered or discarded entries are kept for lookup, in seconds. */
  statusTtlSeconds: number;
}

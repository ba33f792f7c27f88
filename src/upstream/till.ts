import { AsyncLocalStorage } from 'node:async_hooks';
import type { OperationId } from '../contract';
import { OPERATIONS } from '../contract';
import type { ServiceUnavailableError } from '../platform/errors';
import { problem } from '../platform/problem';
import { markNotDelivered } from './errors';

/**
 * Where a request stands against its till's deadline (`Prefer: wait`):
 * - `waiting`: the till waits; reads get only the time left;
 * - `answered`: the till has its final answer in time; nothing bounds the rest;
 * - `pending`: the deadline came with a write sent (or maybe sent): the till
 *   got 202 and reads the outcome back later, so the request runs on unbounded;
 * - `refused`: the deadline came with nothing sent: the till was told "nothing
 *   was done", so nothing may be sent from then on.
 */
export type TillPhase = 'waiting' | 'answered' | 'pending' | 'refused';

/** POSTs that only read: bounded like GETs, and not a "write in flight" at the deadline. */
const READ_LIKE: ReadonlySet<OperationId> = new Set<OperationId>(['couponValidate', 'rewardPreview']);

export function isReadCall(operation: OperationId): boolean {
  return OPERATIONS[operation].method === 'GET' || READ_LIKE.has(operation);
}

/** "Nothing was done, send it again": the till's deadline came before anything was sent. */
export function tillDeadlineReached(): ServiceUnavailableError {
  return markNotDelivered(
    problem(
      'till_deadline_reached',
      'Nothing was sent to the loyalty service before the time the till waits (Prefer: wait) ran out; send the same request again',
      {
        retryAfterSeconds: 1,
      },
    ),
  );
}

export class TillWait {
  phase: TillPhase = 'waiting';
  /** A write was sent upstream, or may have been (its send started). */
  writeSent = false;
  /**
   * Once `pending`: whether the till came back for the answer (read it back,
   * or retried with the same key) before what the write got is decided; set
   * by whoever answered the 202. False: nobody will hear of it, so let it go.
   */
  cameBack: () => Promise<boolean> = async () => false;

  /**
   * @param deadline epoch ms by which the answer must be written (the till's
   *   time less a margin for writing it)
   * @param waitSeconds what the till asked for (or its store's default)
   */
  constructor(
    readonly deadline: number,
    readonly waitSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the deadline still bounds what this request does. */
  get bounding(): boolean {
    return this.phase === 'waiting';
  }

  leftMs(): number {
    return this.deadline - this.now();
  }

  /**
   * Called right before a call goes out (and before a write is queued): after
   * the till was told nothing was done, nothing may be done. Marks a write
   * (`read`: a call its caller says only reads, whatever its operation).
   */
  beforeSend(operation: OperationId | 'queue' | 'read'): void {
    if (this.phase === 'refused') throw tillDeadlineReached();
    if (operation === 'read') return;
    if (operation === 'queue' || !isReadCall(operation)) this.writeSent = true;
  }
}

const scope = new AsyncLocalStorage<TillWait>();

/** Runs a request's handler with its till's deadline, so every upstream call it makes is bounded by it. */
export function withTill<T>(till: TillWait, run: () => T): T {
  return scope.run(till, run);
}

/** The deadline of the request this code runs for, if its till gave one. */
export function currentTill(): TillWait | undefined {
  return scope.getStore();
}

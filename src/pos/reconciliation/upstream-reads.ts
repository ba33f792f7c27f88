import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../platform/errors';
import { isProblem } from '../../platform/problem';
import type { HoldLookupAnswer, LoyaltyCallContext, LoyaltyClient } from '../../upstream';
import type { OrderTransactionsAnswer } from '../../upstream/coupon-answers';

export type Transaction = OrderTransactionsAnswer['transactions'][number];
export type HoldRead = { state: HoldLookupAnswer['state']; points?: number } | 'not_found';

/**
 * The loyalty service's own records, read for a reconciliation: order
 * transactions and hold lookups, each id once (cached), never a write. Every
 * read carries the background priority, so it takes the fleet's rate budget
 * only after the tills' calls; refused for want of budget, it waits its turn
 * (the answer's Retry-After) and asks again, as work nobody waits for may.
 */
export class UpstreamReads {
  readonly counts = { orderTransactions: 0, holdLookup: 0 };
  private readonly orders = new Map<string, Promise<Transaction[]>>();
  private readonly holds = new Map<string, Promise<HoldRead>>();

  constructor(
    private readonly loyalty: Pick<LoyaltyClient, 'orderTransactions' | 'holdLookup'>,
    private readonly call: LoyaltyCallContext,
  ) {}

  /** An order's transactions; none when the service has no record of it. */
  transactions(orderId: string): Promise<Transaction[]> {
    let read = this.orders.get(orderId);
    if (!read) {
      this.counts.orderTransactions += 1;
      read = patiently(() => this.loyalty.orderTransactions(orderId, this.call), this.call.signal).then(
        (a) => a.transactions,
        (err: unknown) => {
          if (isProblem(err, 'transaction_not_found', 'original_transaction_not_found', 'upstream_not_found')) return [];
          throw err;
        },
      );
      this.orders.set(orderId, read);
    }
    return read;
  }

  hold(reference: string): Promise<HoldRead> {
    let read = this.holds.get(reference);
    if (!read) {
      this.counts.holdLookup += 1;
      read = patiently(() => this.loyalty.holdLookup(reference, this.call), this.call.signal).then(
        (h): HoldRead => ({ state: h.state, points: h.holdEquivalentPoints }),
        (err: unknown) => {
          if (isProblem(err, 'hold_not_active', 'upstream_not_found')) return 'not_found';
          throw err;
        },
      );
      this.holds.set(reference, read);
    }
    return read;
  }
}

/** A read refused for want of budget (nothing sent) waits the Retry-After and is asked again, up to this many times. */
const BUSY_TRIES = 60;
const MAX_BUSY_WAIT_MS = 5_000;

/** Reads, waiting out budget refusals; a stop (`signal`) cuts the wait short with the refusal in hand. */
export async function patiently<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await read();
    } catch (err) {
      if (!isProblem(err, 'upstream_busy') || tries >= BUSY_TRIES || signal?.aborted) throw err;
      const waitMs = Math.min(MAX_BUSY_WAIT_MS, Math.max(50, ((err as AppError).retryAfterSeconds ?? 1) * 1000));
      await sleep(waitMs, undefined, { signal }).catch(() => {
        throw err;
      });
    }
  }
}

/** Runs `fn` over `items`, at most `n` at a time. */
export async function inPool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

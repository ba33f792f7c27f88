import { certainlyNotDelivered, isBudgetRefusal, markPaused, overBudget, upstreamFailureKind } from '../errors';
import type { CallPolicy } from '../policy';
import { realSleep, Sleep } from '../retry';
import type { UpstreamBudget } from './budget';

export interface BudgetPolicyOptions {
  /** How long a 429 without a readable Retry-After pauses its bucket. */
  pauseWithoutRetryAfterMs: number;
  /** The longest pause a 429's Retry-After may set (a wrong header must not stop the fleet for hours). */
  maxPauseMs: number;
  sleep?: Sleep;
}

/**
 * The CallPolicy: takes the call's slot from the budget and waits for it (as
 * long as its priority allows; a booking moved back for a second leg meanwhile
 * waits for its new slot, or is refused if that is too late), or refuses it with `overBudget` (nothing
 * sent, not retried): a read then answers 503 `upstream_busy` with the
 * schedule's Retry-After at once, and a write that can wait is queued in the
 * outbox. An upstream 429 pauses the call's bucket fleet-wide; the client
 * retries it at once, and that reservation waits out the pause or refuses.
 */
export function budgetPolicy(budget: UpstreamBudget, opts: BudgetPolicyOptions): CallPolicy {
  const sleep = opts.sleep ?? realSleep;
  return async (info, next) => {
    // A write whose next step needs another bucket (a hold, its sale) is not started when that step would find no room.
    if (info.thenNeeds !== undefined && info.thenNeeds !== info.bucket) {
      const room = await budget.room(info.thenNeeds, info.priority);
      if (!room.ok) throw overBudget(Math.max(0.001, room.retryAfterMs / 1000));
    }
    // A wait the till will not see the end of is refused now, nothing taken or sent (a write that can wait is queued).
    const r = await budget.reserve(info.bucket, info.priority, info.deadline === undefined ? undefined : info.deadline - Date.now());
    if (!r.ok) throw overBudget(Math.max(0.001, r.retryAfterMs / 1000));
    if (r.waitMs >= 1) await sleep(Math.round(r.waitMs), info.signal);
    if (r.booking) {
      // A second leg may have taken the slot meanwhile: go at the one it has now, or not at all.
      const moved = await budget.confirm(info.bucket, r.booking);
      if (!moved.ok) throw overBudget(Math.max(0.001, moved.retryAfterMs / 1000));
      if (moved.waitMs >= 1) await sleep(Math.round(moved.waitMs), info.signal);
    }
    try {
      return await next();
    } catch (err) {
      if (upstreamFailureKind(err) === 'rate_limited' && certainlyNotDelivered(err) && !isBudgetRefusal(err)) {
        const seconds = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
        await budget.pause(info.bucket, seconds === undefined ? opts.pauseWithoutRetryAfterMs : Math.min(seconds * 1000, opts.maxPauseMs));
        markPaused(err as object);
      }
      throw err;
    }
  };
}

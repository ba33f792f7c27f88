import type { Logger } from 'pino';
import { AppError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import { maybeApplied, writeOutcome } from '../../upstream';
import { FinalVerdict, WriteUnconfirmed } from './ids/same-write';

/**
 * One thing a money action takes before the upstream hears of it (a held
 * redemption, a coupon lock, a sale id), with its undo beside it. Each is a
 * compare-and-set into a claim state of its machine (../money/machines.ts).
 */
export interface Claim<A = unknown> {
  /** For logs: `redemption rdm_x`, `coupon lock cpl_y`, `payment P1`. */
  readonly name: string;
  /** Taken again by the same action (a till's retry after an unknown outcome): its first attempt may have landed. */
  readonly again?: boolean;
  /** Takes it, or throws the till's refusal. */
  take(): Promise<void>;
  /** Applied upstream: to its final state. `answer` is absent when the upstream's record showed it. */
  finish(answer: A | undefined): Promise<void>;
  /**
   * Certainly not applied: back to where it was (or ended, when the refusal says the thing is gone). `refusal`: the upstream's,
   * or a later claim's when nothing was sent. `final`: the upstream's record shows another write under the id, so no attempt
   * of this action landed: freed even when taken again.
   */
  free(refusal?: AppError, final?: boolean): Promise<void>;
  /** Unknown, or applied but not recorded (`answer` then given): kept as it is and settled from the upstream's record later. */
  settleLater(answer?: A): void;
}

export interface MoneyAction<A> {
  /** As the till reads it: `Payment P1`, `The void of redemption rdm_x`. */
  what: string;
  claims: Claim<A>[];
  /** The one upstream write. */
  send(): Promise<A>;
  /** Asked after a duplicate answer: is this very write on the upstream's record of that id? May throw a FinalVerdict (same-write.ts). */
  onRecord(duplicate: AppError): Promise<boolean>;
  /** The till's refusal for a definite upstream refusal (a duplicate here means the id is another's). */
  explain?(refusal: AppError): AppError;
  logger: Logger;
  /** Runs the whole step and sees its outcome (the audit trail, src/pos/audit); it must not change it. */
  audit?: { around<T>(run: () => Promise<T>): Promise<T> };
}

/**
 * The money path's one sequence: claim -> act -> settle.
 * - Every claim is taken by compare-and-set; a refusal frees those taken before it (nothing was sent).
 * - The write is sent, and its outcome read in one place (src/upstream/outcome.ts).
 * - `applied`: every claim moves to its final state.
 * - `refused`: every claim is freed, and the till hears the refusal; unless a
 *   claim was a retry's (`again`), whose first attempt may have landed: that
 *   one is settled from the record, and the till told to send the same request again.
 *   A final verdict after a duplicate is not a retry's: another write the
 *   upstream's record shows holds the id (every claim freed, 409), or the
 *   earlier write cannot be matched with this one by any later look (409
 *   `write_unconfirmed`: do not send again; a retry's claims are kept).
 * - `unknown`, or Redis failing after `applied`: every claim is kept, settled
 *   later from the upstream's record, and the till is told to send the same
 *   request again, never that nothing was done.
 * Returns the upstream's answer, or undefined when its record showed the write.
 */
export async function claimActSettle<A>(action: MoneyAction<A>): Promise<A | undefined> {
  if (action.audit) return action.audit.around(() => claimActSettle({ ...action, audit: undefined }));
  const taken: Claim<A>[] = [];
  try {
    for (const c of action.claims) {
      await c.take();
      taken.push(c);
    }
  } catch (err) {
    await freeAll(action, taken, err instanceof AppError ? err : undefined);
    throw err;
  }
  let final: FinalVerdict | undefined;
  const outcome = await writeOutcome(action.send, async (duplicate) => {
    try {
      return await action.onRecord(duplicate);
    } catch (err) {
      if (!(err instanceof FinalVerdict)) throw err;
      final = err;
      return false;
    }
  });
  if (outcome.kind === 'refused') {
    const retry = taken.some((c) => c.again);
    if (final instanceof WriteUnconfirmed) {
      const answer = unconfirmed(action.what, final);
      // A retry's first attempt may have landed: its claims stay, for the record to settle if it ever can.
      if (retry) keepAll(action, taken, final);
      else await freeAll(action, taken, answer);
      throw answer;
    }
    const refusal = action.explain ? action.explain(outcome.error) : outcome.error;
    await freeAll(action, taken, refusal, final !== undefined);
    // A retry refused says nothing of the first attempt, which may have landed: never "nothing was done".
    if (retry && !final) throw maybeApplied(action.what, refusal);
    throw refusal;
  }
  if (outcome.kind === 'unknown') {
    keepAll(action, taken, outcome.error);
    throw maybeApplied(action.what, outcome.error);
  }
  try {
    for (const c of taken) await c.finish(outcome.body);
  } catch (err) {
    keepAll(action, taken, err, outcome.body);
    throw maybeApplied(action.what, err);
  }
  return outcome.body;
}

/** The till's final answer when the earlier write under the id cannot be matched with this one, now or later. */
const unconfirmed = (what: string, v: WriteUnconfirmed) =>
  problem(
    'write_unconfirmed',
    `${what}: the loyalty service already has a write under this id, and this BFF cannot tell whether it is this one (${v.message}); it may be, recorded earlier. This request changed nothing; do not send it again: look the sale up, or leave it to the day's reconciliation`,
  );

/** Frees each claim; one that cannot be freed now (Redis away) is settled later from the upstream, which has nothing. */
async function freeAll<A>(action: MoneyAction<A>, taken: Claim<A>[], refusal: AppError | undefined, final = false): Promise<void> {
  for (const c of taken.reverse()) {
    try {
      await c.free(refusal, final);
    } catch (err) {
      action.logger.warn(
        { claim: c.name, err: { message: (err as Error).message } },
        "a refused write's claim could not be freed; it will be settled from the upstream",
      );
      c.settleLater();
    }
  }
}

function keepAll<A>(action: MoneyAction<A>, taken: Claim<A>[], cause: unknown, answer?: A): void {
  action.logger.warn(
    { what: action.what, claims: taken.map((c) => c.name), cause: (cause as Error)?.message },
    'write outcome unknown or not recorded; claims kept and settled from the upstream',
  );
  for (const c of taken) c.settleLater(answer);
}

/** A claim on one stored record: what its take found (`claimed`) and what the record ended as (`ended`). */
export interface RecordClaim<R, A = unknown> extends Claim<A> {
  readonly claimed: R;
  readonly ended: R | undefined;
}

/**
 * A RecordClaim from its steps. `take` answers the record as claimed and
 * whether it was already this action's claim (a till's retry after an unknown
 * outcome); the other steps get both.
 */
export function recordClaim<R, A = unknown>(
  name: string,
  steps: {
    take(): Promise<{ record: R; again: boolean }>;
    finish(claimed: R, answer: A | undefined): Promise<R>;
    free(claimed: R, again: boolean, refusal?: AppError): Promise<void>;
    settleLater(claimed: R, answer?: A): void;
  },
): RecordClaim<R, A> {
  let claimed: R | undefined;
  let ended: R | undefined;
  let again = false;
  return {
    name,
    get claimed() {
      return claimed as R;
    },
    get ended() {
      return ended;
    },
    get again() {
      return again;
    },
    async take() {
      ({ record: claimed, again } = await steps.take());
    },
    async finish(answer) {
      ended = await steps.finish(claimed as R, answer);
    },
    free: (refusal, final) => steps.free(claimed as R, again && !final, refusal),
    settleLater: (answer) => steps.settleLater(claimed as R, answer),
  };
}

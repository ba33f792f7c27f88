import type { HoldAnswer } from '../../upstream';
import type { CallContext, SharedDeps } from '../context';
import type { PosSettings } from '../settings';
import type { RedemptionStore } from './types';
import type { HoldExpirySettings } from '../../platform/settings';

/**
 * When a hold ends. The hold's answer does not say (only a hold lookup does),
 * so a redemption's expiry starts as an estimate: when the hold was asked for
 * plus the account's hold period. The lookup that confirms it is sent after
 * the till has its answer (HOLD_EXPIRY_LOOKUP=after_answer, the default) and
 * corrects the tracked expiry; `before_answer` waits for it (one more round
 * trip for the cashier); `off` never sends it.
 */
export type HoldExpiryLookup = HoldExpirySettings['lookup'];

/**
 * The account's hold period as this BFF instance knows it: HOLD_PERIOD_MINUTES
 * until a lookup has shown the real one, then the last one seen. Learned as
 * `dateToExpire - when the hold's answer came`: the hold was made before its
 * answer, so the period learned is never longer than the real one, and an
 * estimate made from it never ends after the real hold. It also absorbs any
 * offset between our clock and the service's.
 */
class HoldPeriod {
  private learnedMs: number | undefined;
  constructor(private readonly configuredMs: number) {}

  get ms(): number {
    return this.learnedMs ?? this.configuredMs;
  }

  learn(expiresAt: number, answeredAt: number): void {
    const ms = expiresAt - answeredAt;
    if (ms > 0) this.learnedMs = ms;
  }
}

/** What correcting a hold's tracked end uses. */
export type HoldPeriodDeps = Pick<SharedDeps, 'loyalty' | 'clock' | 'logger'> & {
  settings: Pick<PosSettings, 'holdPeriodMinutes'>;
  redemptions: RedemptionStore;
};
type PeriodDeps = Pick<HoldPeriodDeps, 'loyalty' | 'settings'>;

/** One per loyalty client, i.e. per account and BFF instance. */
const periods = new WeakMap<object, HoldPeriod>();

function periodOf(deps: PeriodDeps): HoldPeriod {
  let p = periods.get(deps.loyalty);
  if (!p) periods.set(deps.loyalty, (p = new HoldPeriod(deps.settings.holdPeriodMinutes * 60_000)));
  return p;
}

/** The estimate for a hold asked for at `askedAt`. */
export function estimatedExpiry(deps: PeriodDeps, askedAt: number): number {
  return askedAt + periodOf(deps).ms;
}

/** Looks the hold up, learns the period from it; the hold's end, or undefined when the lookup failed. */
export async function lookUpExpiry(
  deps: Pick<HoldPeriodDeps, 'loyalty' | 'logger' | 'settings'>,
  ctx: CallContext,
  hold: Pick<HoldAnswer, 'holdReference'>,
  answeredAt: number,
  priority: 'cashier' | 'background' = 'cashier',
): Promise<number | undefined> {
  try {
    // Looked up after the answer: work the till does not wait for, so its deadline does not bound it.
    const lookup = await deps.loyalty.holdLookup(hold.holdReference, {
      requestId: ctx.requestId,
      priority,
      ...(priority === 'background' ? { till: null } : {}),
    });
    // Epoch ms, read as UTC by the client when it has no offset (src/upstream/date-time.ts).
    const expiresAt = lookup.dateToExpire;
    // An end before the answer is bad data or a clock far off: keep the estimate.
    if (!(expiresAt > answeredAt)) throw new Error('dateToExpire is before the hold was answered');
    periodOf(deps).learn(expiresAt, answeredAt);
    return expiresAt;
  } catch (err) {
    deps.logger.warn(
      { requestId: ctx.requestId, err: (err as Error).message },
      'hold lookup failed; the tracked expiry stays the estimate from the hold period',
    );
    return undefined;
  }
}

/**
 * The lookup starts this long after the hold's answer, so its work does not
 * compete with the till's answer (which normally takes a few ms more), and
 * the caller has usually stored the redemption by the time it comes back.
 */
const LOOKUP_DELAY_MS = 20;
/** Waits between tries while the caller has not stored the held redemption yet (ms). */
const NOT_STORED_YET_RETRIES_MS = [10, 40, 150, 500, 1500];

/**
 * After the answer: looks the hold up and writes its real end into the
 * redemption `id`, once the caller has stored it as held with this hold.
 * Never throws (it runs after the till has its answer).
 */
export async function confirmExpiry(
  deps: HoldPeriodDeps,
  ctx: CallContext,
  id: string,
  hold: Pick<HoldAnswer, 'holdReference'>,
  at: { answeredAt: number; estimate: number },
): Promise<void> {
  await new Promise((r) => setTimeout(r, LOOKUP_DELAY_MS));
  const expiresAt = await lookUpExpiry(deps, ctx, hold, at.answeredAt, 'background');
  if (expiresAt === undefined) return;
  for (const waitMs of [0, ...NOT_STORED_YET_RETRIES_MS]) {
    if (waitMs) await new Promise((r) => setTimeout(r, waitMs));
    // A hold already due (by either end) is the sweeper's: a change now would expire it on read instead.
    const now = deps.clock();
    if (Math.min(at.estimate, expiresAt) <= now) return;
    let notYet = false;
    try {
      const result = await deps.redemptions.change(id, now, (cur) => {
        if (cur.state === 'otp_required') return ((notYet = true), 'not held yet');
        if (cur.state !== 'held' || cur.holdReference !== hold.holdReference) return `it is ${cur.state} with another hold`;
        if (cur.expiresAt === expiresAt) return 'already exact';
        return { ...cur, expiresAt };
      });
      if (result.ok || (!notYet && result.reason !== 'not_found')) return;
    } catch (err) {
      deps.logger.warn({ requestId: ctx.requestId, redemptionId: id, err: (err as Error).message }, 'could not correct the tracked hold expiry');
      return;
    }
  }
  deps.logger.warn({ requestId: ctx.requestId, redemptionId: id }, 'the redemption was not stored as held in time; its tracked expiry stays the estimate');
}

/** Placing and releasing a hold upstream, and estimating when it ends. */
import type { HoldRequest } from '../../contract';
import { isProblem, problem } from '../../platform/problem';
import { noteForAudit } from '../audit/record';
import { failureOf, saleBucket, type HoldAnswer } from '../../upstream';
import type { CallContext } from '../context';
import { confirmExpiry, estimatedExpiry, lookUpExpiry } from './hold-period';
import type { Redemption, RedemptionAsk } from './types';
import type { RedemptionDeps } from './redemption-deps';

function holdFields(ask: RedemptionAsk): Pick<HoldRequest, 'amountToHold' | 'pointsToHold' | 'ruleId'> {
  if (ask.kind === 'amount') return { amountToHold: ask.amount };
  if (ask.kind === 'points') return { pointsToHold: ask.points };
  return { ruleId: ask.ruleId };
}

/**
 * Sends the hold. Every answer shows whether the account checks OTPs: a
 * refusal for a missing or wrong code says it does, a hold placed without a
 * code says it does not; a hold placed with a code says nothing (an account
 * that does not check codes ignores it).
 */
export async function sendHold(
  deps: RedemptionDeps,
  ctx: CallContext,
  r: Pick<Redemption, 'customerId' | 'email' | 'mobile' | 'ask'>,
  extra: { hash?: string; otp?: string },
  startedAt: number,
  priority: 'secondLeg' | 'cashier' = 'cashier',
): Promise<HoldAnswer> {
  let hold: HoldAnswer;
  try {
    hold = await deps.loyalty.hold(
      {
        customerId: r.customerId,
        transactionTime: new Date(startedAt).toISOString(),
        email: r.email,
        mobile: r.mobile,
        hash: extra.hash,
        otp: extra.otp,
        ...holdFields(r.ask),
      },
      // Its sale will need room in its own bucket (Orders, when sales are recorded as orders): no hold when it would find none.
      { requestId: ctx.requestId, priority, thenNeeds: saleBucket(deps.settings.salesRecordedAs ?? 'payment') },
    );
  } catch (err) {
    if (isProblem(err, 'otp_invalid')) await deps.upstreamOtp.learn(true);
    // Maybe placed, and a hold has no id of ours to find it by: counted here, flagged in the day's reconciliation.
    if (failureOf(err) === 'unknown') deps.metrics.holdsUnanswered.inc();
    throw err;
  }
  if (extra.otp === undefined) await deps.upstreamOtp.learn(false);
  await keepOnlyIfAwaited(deps, ctx, hold);
  return hold;
}

/**
 * A hold that landed after the till stopped waiting (it was answered 202) is
 * kept only if the till came back for it first (read the answer, or retried
 * with the key); otherwise nobody would know the points are held: released
 * now, and the answer kept for the till says so.
 */
async function keepOnlyIfAwaited(deps: RedemptionDeps, ctx: CallContext, hold: HoldAnswer): Promise<void> {
  if (ctx.till?.phase !== 'pending' || (await ctx.till.cameBack())) return;
  deps.metrics.holdsReleasedLate.inc();
  noteForAudit({ holdReference: hold.holdReference });
  deps.logger.warn({ requestId: ctx.requestId }, 'a hold landed after the till stopped waiting and nobody came back for it: released');
  await releaseOrphan(deps, ctx, hold.holdReference);
  throw problem(
    'hold_released_late',
    'The points were held after the till stopped waiting, and nobody came back for them, so they were released: start a new redemption',
  );
}

/**
 * A placed hold's end, estimated from the account's hold period and corrected
 * by a hold lookup sent after the answer (see ../redemptions/hold-period.ts and
 * HOLD_EXPIRY_LOOKUP), or before it.
 */
export async function expiryOf(deps: RedemptionDeps, ctx: CallContext, id: string, hold: HoldAnswer, startedAt: number): Promise<number> {
  const answeredAt = deps.clock();
  const estimate = estimatedExpiry(deps, startedAt);
  const lookup = deps.settings.holdExpiryLookup ?? 'after_answer';
  const exact = lookup === 'before_answer' ? await lookUpExpiry(deps, ctx, hold, answeredAt) : undefined;
  if (lookup === 'after_answer') void confirmExpiry(deps, ctx, id, hold, { answeredAt, estimate });
  return exact ?? estimate;
}

/** Places the upstream hold; the answer waits for it alone. */
export async function placeHold(
  deps: RedemptionDeps,
  ctx: CallContext,
  r: Pick<Redemption, 'id' | 'customerId' | 'email' | 'mobile' | 'ask'>,
  extra: { hash?: string; otp?: string },
) {
  const startedAt = deps.clock();
  const hold = await sendHold(deps, ctx, r, extra, startedAt, 'secondLeg');
  return { hold, expiresAt: await expiryOf(deps, ctx, r.id, hold, startedAt) };
}

/**
 * Best effort: a hold we could not record must not keep the customer's points
 * locked. Not the till's work (it was not told of this hold), so not bounded
 * or refused by its deadline.
 */
export async function releaseOrphan(deps: RedemptionDeps, ctx: CallContext, holdReference: string) {
  await deps.loyalty.holdCancel(holdReference, { requestId: ctx.requestId, till: null }).catch((err) => {
    deps.logger.error({ requestId: ctx.requestId, err: (err as Error).message }, 'could not release an unrecorded hold; it will lapse at its expiry');
  });
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../../platform/errors';
import { failureOf, RETRY_SAME_REQUEST } from '../../upstream';
import { toldNothingDone } from '../money/till-outcome';
import type { CallContext } from '../context';
import type { Repair } from '../money/repairs';
import { asTaker } from '../money/lease';
import { isQueued } from '../outbox/forward';
import type { AuditTrail } from './trail';
import type { AuditAction, AuditActor, AuditOutcome, AuditSubject, NewAuditEntry } from './types';

/** What an audited action is given: the trail, when one is kept. */
export type AuditDeps = { audit?: AuditTrail };

/** What an action is about, read when its outcome is recorded (the claims it takes fill some of it in). */
export type SubjectOf = AuditSubject | (() => AuditSubject);

/** The hook an action runs inside (the claim step's `audit`): records its outcome once it is known, and never changes it. */
export interface AuditNote {
  around<T>(run: () => Promise<T>): Promise<T>;
}

interface Scope {
  trail: AuditTrail;
  entry(outcome: AuditOutcome, more?: AuditSubject & { code?: string; repair?: string }): NewAuditEntry;
  /** Filled in by the action as it goes (noteForAudit). */
  noted: AuditSubject;
}

const scope = new AsyncLocalStorage<Scope>();

export function actorOf(ctx: CallContext): AuditActor {
  return {
    storeId: ctx.identity.store.id,
    terminalId: ctx.identity.terminal.id,
    cashierId: ctx.cashierId,
    shiftId: ctx.shiftId,
    requestId: ctx.requestId,
  };
}

/** Without the fields that are absent, so a figure an answer lacks never hides one the action named. */
const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
const names = (v: unknown) => (Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string').slice(0, 50) : undefined);

/** The figures an action's answer carries, by action; named fields only. */
function figuresOf(action: AuditAction, answer: unknown): AuditSubject & { code?: string } {
  const a = obj(answer);
  switch (action) {
    case 'payment':
      return answer === undefined ? { code: 'already_recorded' } : { pointsEarned: num(a.rewardedPoints), pointsRedeemed: num(a.redeemedPoints) };
    case 'refund':
    case 'sale_void':
      return answer === undefined ? { code: 'already_refunded' } : { amountRefunded: num(a.refundAmount), pointsTakenBack: num(a.refundEquivalentPoints) };
    case 'otp_step': {
      const hold = obj(a.hold);
      return {
        pointsHeld: num(hold.holdEquivalentPoints),
        amountHeld: num(hold.holdAmount),
        holdReference: typeof hold.holdReference === 'string' ? hold.holdReference : undefined,
      };
    }
    case 'redemption_start':
      return {
        redemptionId: typeof a.id === 'string' ? a.id : undefined,
        customerId: typeof a.customerId === 'string' ? a.customerId : undefined,
        pointsHeld: num(a.points),
        amountHeld: num(a.amount),
        // A code sent, no points held yet: the OTP step holds them.
        // A stand-in (the loyalty service out): no hold, so reconciliation reads no hold's record for it.
        code: a.state === 'otp_required' ? 'otp_sent' : a.state === 'stand_in' ? 'stand_in' : undefined,
      };
    case 'coupon_lock':
      return {
        couponLockId: typeof a.id === 'string' ? a.id : undefined,
        couponWorth: num(a.totalWorth),
        names: names(Array.isArray(a.coupons) ? a.coupons.map((c) => obj(c).code) : undefined),
      };
    case 'customer_registration':
      return { code: typeof a.outcome === 'string' ? a.outcome : undefined };
    case 'events':
      return { names: names(a.accepted) };
    default:
      return {};
  }
}

function auditScope(trail: AuditTrail, ctx: CallContext, action: AuditAction, subject: SubjectOf): Scope {
  const noted: AuditSubject = {};
  return {
    trail,
    noted,
    entry: (outcome, more = {}) => ({
      ...actorOf(ctx),
      ...defined(typeof subject === 'function' ? subject() : subject),
      ...defined(noted),
      ...defined(more),
      at: trail.now(),
      action,
      outcome,
    }),
  };
}

/** Records without ever throwing: the action's own outcome stands whatever happens here. */
function safely(s: Scope, outcome: AuditOutcome, more: () => AuditSubject & { code?: string; repair?: string }): void {
  try {
    s.trail.record(s.entry(outcome, more()));
  } catch {
    // An entry that cannot even be built is the trail's loss, never the till's.
  }
}

/**
 * The hook for an action. `mode` says how a failure reads: through the claim
 * step (its only "may have been applied" answer is retry_same_request; every
 * other error is a refusal), or a plain call (the one outcome reader decides).
 */
export function auditNote(
  deps: AuditDeps,
  ctx: CallContext,
  action: AuditAction,
  subject: SubjectOf,
  mode: 'claim_step' | 'call' = 'claim_step',
): AuditNote | undefined {
  const trail = deps.audit;
  if (!trail) return undefined;
  return {
    async around<T>(run: () => Promise<T>): Promise<T> {
      const s = auditScope(trail, ctx, action, subject);
      let result: T;
      try {
        result = await scope.run(s, () => asTaker(actorOf(ctx), run));
      } catch (err) {
        const code = err instanceof AppError ? err.code : 'internal_error';
        // Unknown only where the till was not told "nothing was done" (the one rule in ../money/till-outcome.ts).
        const unknown = mode === 'claim_step' ? code === RETRY_SAME_REQUEST : failureOf(err) === 'unknown' && !toldNothingDone(err);
        safely(s, unknown ? 'unknown' : 'refused', () => ({ code }));
        throw err;
      }
      if (isQueued(result)) safely(s, 'queued', () => ({ outboxId: result.outboxId }));
      else safely(s, 'applied', () => figuresOf(action, result));
      return result;
    },
  };
}

/** An action that does not go through the claim step, run inside its audit hook. */
export function audited<T>(deps: AuditDeps, ctx: CallContext, action: AuditAction, subject: SubjectOf, run: (ctx: CallContext) => Promise<T>): Promise<T> {
  const note = auditNote(deps, ctx, action, subject, 'call');
  return note ? note.around(() => run(ctx)) : run(ctx);
}

/** Adds what the action learnt on the way (a hold's reference) to its entry; nothing outside an audited action. */
export function noteForAudit(fields: AuditSubject): void {
  const s = scope.getStore();
  if (s) Object.assign(s.noted, fields);
}

/**
 * A repair added while an audited action runs (its outcome unknown) records
 * what the upstream's record settled it as, under the same action and ids.
 */
export function auditedRepair(repair: Repair): Repair {
  const s = scope.getStore();
  if (!s) return repair;
  return {
    ...repair,
    settle: async () => {
      const recorded = await repair.settle();
      // `unchanged`: another settled it (a sweep, the same request again), and wrote its entry.
      if (recorded !== 'unchanged') safely(s, 'settled', () => ({ code: recorded, repair: repair.key }));
      return recorded;
    },
  };
}

/**
 * Stand-in redemption (docs/store-manager.md#stand-in-redemption):
 * when a hold certainly was not sent because the loyalty service is out, a
 * customer seen at the till a moment before may spend points up to their last
 * known balance and the floor limits. The redemption is `stand_in` (no hold);
 * the payment naming it queues its redeem and its sale together (../sales).
 */
import type { Logger } from 'pino';
import { isProblem, problem } from '../../platform/problem';
import { applyTransition, REDEMPTION_TRANSITIONS } from '../money/machines';
import { failureOf, isBudgetRefusal, nothingSent } from '../../upstream';
import type { CallContext } from '../context';
import { limitKeys, type StandInLedger } from '../stand-in/ledger';
import { storePolicy } from '../terminals/policy';
import type { PosSettings } from '../settings';
import type { Redemption, StandInTerms } from './types';
import type { RedemptionDeps } from './redemption-deps';
import { redemptionView, type RedemptionView } from './view';
import { audited, noteForAudit } from '../audit/record';
import { redemptionSubject } from '../audit/subjects';
import { outcomeOf, redemptionNotFound } from './claim';
import { lapsedFrom } from './record';
import type { AuditTrail } from '../audit/trail';
import { capCheck } from './cap';

export type StandInDeps = RedemptionDeps & {
  standInLedger?: StandInLedger;
  settings: Pick<PosSettings, 'standIn' | 'holdPeriodMinutes' | 'storeTimeZone'>;
};

/** The store's stand-in values: its own in the terminals file, else the settings. */
const standInPolicy = (deps: StandInDeps, ctx: CallContext) => storePolicy(ctx.identity.store, { standIn: deps.settings.standIn }).standIn;

/**
 * Since when this instance has seen the fleet budget (or the upstream's 429)
 * refuse holds, and when it last did; cleared by a hold placed. A refusal a
 * minute or more after the last one starts a new streak: a budget refusal lasts
 * at most its 30-s window, so a quiet minute says nothing about being out now.
 */
const refusing = new WeakMap<object, { since: number; last: number }>();
const STREAK_GAP_MS = 60_000;

export function holdPlaced(deps: Pick<StandInDeps, 'standInLedger'>): void {
  if (deps.standInLedger) refusing.delete(deps.standInLedger);
}

/**
 * Whether `err` shows the service out of reach with nothing sent: the circuit
 * open or the connection refused at once; a budget refusal (or 429) only once
 * refusals have lasted STAND_IN_AFTER_SECONDS. Never a till deadline or a key
 * refused (nothing is out: the BFF is).
 */
function certainlyOut(deps: StandInDeps, err: unknown, afterSeconds: number): boolean {
  if (!nothingSent(err) || isProblem(err, 'till_deadline_reached', 'upstream_auth_failed')) return false;
  if (!isBudgetRefusal(err) && !isProblem(err, 'upstream_busy')) return isProblem(err, 'upstream_circuit_open', 'upstream_unavailable');
  const key = deps.standInLedger as object;
  const now = deps.clock();
  const seen = refusing.get(key);
  const since = seen && now - seen.last < STREAK_GAP_MS ? seen.since : now;
  refusing.set(key, { since, last: now });
  return now - since >= afterSeconds * 1000;
}

/**
 * A step before the hold failed with `err` (the service out): when stand-in is
 * on for the store and the service certainly out, the clearer `refusal` (what
 * stand-in would need) is thrown instead of the bare outage; else `err`.
 */
function outageOrThrow(deps: StandInDeps, ctx: CallContext, err: unknown, refusal: () => unknown): never {
  const policy = standInPolicy(deps, ctx);
  if (deps.standInLedger && policy?.mode === 'on' && failureOf(err) !== 'unknown' && certainlyOut(deps, err, policy.afterSeconds)) throw refusal();
  throw err;
}

/** An account that checks OTPs, its code not sendable: such an account cannot be served offline. */
export const otpAccountOrThrow = (deps: StandInDeps, ctx: CallContext, err: unknown): never => outageOrThrow(deps, ctx, err, otpAccountRefusal);

/** The customer read (no hash to prove them) failed: stand-in would need the QR code scanned. */
export const qrOrThrow = (deps: StandInDeps, ctx: CallContext, err: unknown): never => outageOrThrow(deps, ctx, err, qrRefusal);

const qrRefusal = () => problem('stand_in_qr_required', "The loyalty service is out: scan the customer's QR code for a stand-in redemption");
const otpAccountRefusal = () =>
  problem('stand_in_otp_account', 'The loyalty service is out and this account checks one-time codes, which cannot be checked offline: no stand-in');

/**
 * After a hold failed with `err`: a stand-in redemption when every rule allows
 * it, else `err` (or the rule's refusal) thrown. A hold whose outcome is unknown
 * bars the customer from stand-in until it would have lapsed (HOLD_PERIOD_MINUTES:
 * it has no id to settle it by).
 */
export async function standInOrThrow(deps: StandInDeps, ctx: CallContext, base: Redemption, err: unknown, hash: string | undefined): Promise<RedemptionView> {
  const policy = standInPolicy(deps, ctx);
  const ledger = deps.standInLedger;
  if (!ledger || policy?.mode !== 'on') throw err;
  if (failureOf(err) === 'unknown') {
    await ledger.markUnsettled(base.customerId, deps.settings.holdPeriodMinutes * 60_000).catch(() => undefined);
    throw err;
  }
  if (!certainlyOut(deps, err, policy.afterSeconds)) throw err;
  if (base.ask.kind !== 'points') throw problem('stand_in_points_only', 'The loyalty service is out: a stand-in redemption must be asked in points');
  if (!hash) throw qrRefusal();
  if ((await deps.upstreamOtp.required()) !== false) throw otpAccountRefusal();
  if (await ledger.unsettled(base.customerId))
    throw problem('stand_in_hold_unsettled', `A hold for customer ${base.customerId} may have been placed (no answer): no stand-in until it lapses`);
  // Kept for the looking-up store's STAND_IN_SEEN_MINUTES; this store's own minutes (and the BFF's clock) decide here.
  const seen = await ledger.lastSeen(base.customerId);
  if (!seen || deps.clock() - seen.at > policy.seenMinutes * 60_000)
    throw problem(
      'stand_in_not_seen',
      `The loyalty service is out and customer ${base.customerId} was not looked up in the last ${policy.seenMinutes} minutes: no stand-in`,
    );
  const points = base.ask.points;
  if (points > seen.available)
    throw problem('stand_in_over_balance', `${points} points is more than the customer's last known balance (${seen.available})`, {
      extra: { lastKnownBalance: seen.available },
    });
  // The same ask again while a manager has not approved it: the same redemption still waits (an approved one is returned before the hold: standInApproved).
  const ask = askKey(base);
  const waiting = await pendingOf(deps, ask);
  if (waiting?.state === 'stand_in_approval') throw needsApproval(waiting);
  const keys = limitKeys(base.customerId, base.storeId, deps.clock(), deps.settings.storeTimeZone);
  const took = await ledger.take({ ...keys, points, customerMax: policy.maxPointsPerCustomer, storeMax: policy.maxPointsPerStore });
  if (!took.ok) {
    const what = took.limit === 'customer' ? 'this customer today' : "this store's hour";
    if (policy.approvalMinutes > 0) {
      // Within the balance but over a floor limit: a manager of the store may approve this one redemption (./stand-in.ts approveStandIn).
      const approvalUntil = deps.clock() + policy.approvalMinutes * 60_000;
      const pending: Redemption = {
        ...base,
        state: 'stand_in_approval',
        holdPoints: points,
        // It lapses (the store expires it, on read or by the sweep) when the manager's minutes are up.
        expiresAt: approvalUntil,
        standIn: { points, lastKnownBalance: seen.available, approvalUntil, cashierId: ctx.cashierId, shiftId: ctx.shiftId },
        updatedAt: deps.clock(),
      };
      await deps.redemptions.create(pending);
      await ledger.setPending(ask, pending.id, policy.approvalMinutes * 60_000);
      throw needsApproval(pending, `over the limit of ${took.max} points for ${what} (${took.used} used)`);
    }
    throw problem(
      took.limit === 'customer' ? 'stand_in_customer_limit' : 'stand_in_store_limit',
      `Stand-in is limited to ${took.max} points for ${what}; ${took.used} are used`,
      { extra: { limit: took.max, used: took.used } },
    );
  }
  const record: Redemption = {
    ...base,
    state: 'stand_in',
    holdPoints: points,
    expiresAt: unpaidUntil(deps),
    standIn: { points, lastKnownBalance: seen.available, counted: keys, cashierId: ctx.cashierId, shiftId: ctx.shiftId },
    updatedAt: deps.clock(),
  };
  try {
    await deps.redemptions.create(record);
  } catch (createErr) {
    await ledger.giveBack(keys.customerKey, keys.storeKey, points).catch(() => undefined);
    throw createErr;
  }
  noteForAudit({ pointsHeld: points });
  deps.logger.warn(
    { requestId: ctx.requestId, redemptionId: record.id, customerId: record.customerId, points, storeId: record.storeId },
    'stand-in redemption',
  );
  return redemptionView(record, deps.clock());
}

/**
 * Until when a stand-in not yet paid stands: a hold's period (HOLD_PERIOD_MINUTES).
 * A promise made offline is no longer than one made online; past it the store
 * expires it and the floor limits and cap are given back (standInLapsed).
 */
const unpaidUntil = (deps: StandInDeps): number => deps.clock() + deps.settings.holdPeriodMinutes * 60_000;

/** What makes two starts the same ask: the till, the customer and the points. */
const askKey = (r: Redemption): string => `${r.storeId}:${r.terminalId}:${r.customerId}:${r.ask.kind === 'points' ? r.ask.points : ''}`;

/**
 * The cashier sends the same start again after a manager approved it: the approved stand-in, before
 * anything is counted or sent (its points were counted against the cap at the approval). Undefined
 * for any other start. The QR code is asked for again, as at the first ask.
 */
export async function standInApproved(deps: StandInDeps, ctx: CallContext, base: Redemption, hash: string | undefined): Promise<RedemptionView | undefined> {
  const policy = standInPolicy(deps, ctx);
  if (!deps.standInLedger || policy?.mode !== 'on' || !hash || base.ask.kind !== 'points') return undefined;
  const approved = await pendingOf(deps, askKey(base));
  return approved?.state === 'stand_in' ? redemptionView(approved, deps.clock()) : undefined;
}

/** The redemption waiting for (or given) approval for this ask; one whose minutes are up reads expired (the store lapses it). */
async function pendingOf(deps: StandInDeps, ask: string): Promise<Redemption | null> {
  const id = await deps.standInLedger?.pendingFor(ask);
  return id ? deps.redemptions.get(id, deps.clock()) : null;
}

/**
 * A stand-in's wait for approval that lapsed (not one approved, then unpaid); or still waiting past its
 * minutes, as one kept from before waits lapsed by themselves (no expiresAt) does.
 */
const approvalLapsed = (r: Redemption, now: number): boolean =>
  (r.state === 'expired' && r.standIn?.approvalUntil !== undefined && !r.standIn.approvedBy) ||
  (r.state === 'stand_in_approval' && now >= (r.standIn?.approvalUntil ?? 0));

function needsApproval(r: Redemption, why = 'over the floor limits'): Error {
  const until = new Date(r.standIn?.approvalUntil ?? 0).toISOString();
  return problem(
    'stand_in_needs_approval',
    `${r.standIn?.points} points in stand-in is ${why}: a manager terminal of this store may approve redemption ${r.id} until ${until}, then send the same request again`,
    { extra: { redemptionId: r.id, approveBy: until } },
  );
}

/**
 * A manager terminal of the redemption's store approves a stand-in waiting for
 * it (`stand_in_approval` -> `stand_in`, the machine's `standInApprove`, a
 * compare-and-set: once), within STAND_IN_APPROVAL_MINUTES of the ask. The
 * points were checked against the last known balance at the ask; the floor
 * limits' counters are not taken (the manager vouches for it). Audited.
 */
export function approveStandIn(deps: StandInDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
  return audited(
    deps,
    ctx,
    'stand_in_approve',
    () => redemptionSubject(id),
    async () => {
      const now = deps.clock();
      // Approved, its points count against the customer's redemption cap from now (a start over the cap is refused, so is this).
      const asked = await deps.redemptions.get(id, now);
      const counts = asked?.storeId === ctx.identity.store.id && asked.state === 'stand_in_approval' && deps.redemptionCap !== undefined;
      if (counts) await capCheck(deps, ctx.identity.store, asked, asked.standIn?.points ?? 0);
      const notCounted = () => (counts ? deps.redemptionCap?.giveBack(asked).catch(() => undefined) : undefined);
      let refusal: unknown;
      const approving = deps.redemptions.change(id, now, (cur) => {
        if (cur.storeId !== ctx.identity.store.id) return ((refusal = redemptionNotFound(id)), 'another store');
        // The store has lapsed a wait whose minutes are up (its expiresAt) before this sees it.
        if (approvalLapsed(cur, now)) {
          refusal = problem(
            'stand_in_approval_expired',
            `Redemption ${id} waited for approval until ${new Date(cur.standIn?.approvalUntil ?? 0).toISOString()}: it lapsed`,
          );
          return 'it lapsed';
        }
        if (cur.state !== 'stand_in_approval') {
          refusal = problem('stand_in_not_pending', `Redemption ${id} is ${cur.state}: nothing to approve`, { extra: outcomeOf(cur) });
          return `it is ${cur.state}`;
        }
        // Approved, it is a stand-in not yet paid: it stands a hold's period from now.
        const next = applyTransition(
          REDEMPTION_TRANSITIONS.standInApprove,
          cur.state,
          { ...cur, updatedAt: now },
          { args: { expiresAt: unpaidUntil(deps) } },
        ) as Redemption;
        return { ...next, standIn: { ...(cur.standIn as StandInTerms), approvedBy: ctx.identity.terminal.id } };
      });
      const done = await approving.catch(async (err: unknown) => {
        await notCounted();
        throw err;
      });
      if (!done.ok || refusal) await notCounted();
      if (!done.ok)
        throw done.reason === 'not_found' ? redemptionNotFound(id) : (refusal ?? problem('redemption_busy', `Redemption ${id} could not be approved`));
      if (refusal) throw refusal;
      // The cashier's same start finds it until it lapses unpaid, not only within the wait for approval.
      await deps.standInLedger?.setPending(askKey(done.redemption), id, deps.settings.holdPeriodMinutes * 60_000).catch(() => undefined);
      noteForAudit({ customerId: done.redemption.customerId, pointsHeld: done.redemption.standIn?.points });
      deps.logger.warn(
        { requestId: ctx.requestId, redemptionId: id, points: done.redemption.standIn?.points, approvedBy: ctx.identity.terminal.id },
        'stand-in approved',
      );
      return redemptionView(done.redemption, now);
    },
  );
}

/**
 * Voids a `stand_in` redemption before its payment: nothing was sent upstream,
 * so it is `voided` at once (the machine's `standInVoid`, a compare-and-set:
 * of a void and a payment racing exactly one wins) and the points it took from
 * the floor-limit counters are given back. Audited as `redemption_void`.
 */
export function voidStandIn(deps: StandInDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
  return audited(
    deps,
    ctx,
    'redemption_void',
    () => redemptionSubject(id),
    async () => {
      let refusal: unknown;
      const done = await deps.redemptions.change(id, deps.clock(), (cur) => {
        if (cur.storeId !== ctx.identity.store.id) return ((refusal = redemptionNotFound(id)), 'another store');
        if (cur.state !== 'stand_in' && cur.state !== 'stand_in_approval') {
          refusal = problem('redemption_not_held', `Redemption ${id} is ${cur.state}; only a held or stand-in redemption can be voided`, {
            extra: outcomeOf(cur),
          });
          return `it is ${cur.state}`;
        }
        return applyTransition(REDEMPTION_TRANSITIONS.standInVoid, cur.state, { ...cur, updatedAt: deps.clock() }) as Redemption;
      });
      if (!done.ok)
        throw done.reason === 'not_found' ? redemptionNotFound(id) : (refusal ?? problem('redemption_busy', `Redemption ${id} could not be voided`));
      await giveBackLimits(deps.standInLedger, done.redemption);
      deps.logger.info(
        { requestId: ctx.requestId, redemptionId: id, customerId: done.redemption.customerId, points: done.redemption.standIn?.points },
        'stand-in voided',
      );
      return redemptionView(done.redemption, deps.clock());
    },
  );
}

/** Gives the floor-limit counters back the points a stand-in took from them (none when a manager approved it over them). */
async function giveBackLimits(ledger: StandInLedger | undefined, r: Redemption): Promise<void> {
  const counted = r.standIn?.counted;
  if (counted && ledger) await ledger.giveBack(counted.customerKey, counted.storeKey, r.standIn?.points ?? 0);
}

/**
 * For the sweeper's onExpired: a stand-in that lapsed unpaid (or whose wait for
 * approval did) is audited `stand_in_lapsed` with who rang it up, and gives its
 * points back to the floor limits, as a void does. Heard once per expiry (the
 * store expires each once); a give-back lost to an error leaves the points
 * counted until the counter's hour or day ends, erring on the side of refusing.
 * A hold's expiry is not a stand-in's: nothing done.
 */
export function standInLapsed(deps: { standInLedger?: StandInLedger; audit?: AuditTrail; clock: () => number }, logger: Logger): (r: Redemption) => void {
  return (r) => {
    if (!r.standIn) return;
    deps.audit?.record({
      at: deps.clock(),
      action: 'stand_in_lapsed',
      outcome: 'applied',
      code: lapsedFrom(r),
      storeId: r.storeId,
      terminalId: r.terminalId,
      cashierId: r.standIn.cashierId,
      shiftId: r.standIn.shiftId,
      customerId: r.customerId,
      redemptionId: r.id,
      pointsHeld: r.standIn.points,
    });
    void giveBackLimits(deps.standInLedger, r).catch((err: unknown) =>
      logger.warn(
        { redemptionId: r.id, err: { message: (err as Error).message } },
        'stand-in: points of a lapsed stand-in could not be given back to the floor limits',
      ),
    );
  };
}

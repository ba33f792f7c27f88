import { applyTransition, REDEMPTION_TRANSITIONS } from '../money/machines';
import type { HoldStateRead } from '../../upstream';
import { isOpen } from './record';
import type { Redemption, RedemptionStore } from './types';
import type { SharedDeps } from '../context';

/**
 * What a claimed hold's lookup says became of it. The client's reader has
 * already named the state (HoldStateRead, src/upstream/answers.ts: the
 * published Active, Expired, Used, and the older spellings it accepts);
 * released and expired both mean the hold is over.
 */
type HoldFate = 'used' | 'ended' | 'active' | 'unknown';

const FATES: Record<HoldStateRead, HoldFate> = { used: 'used', expired: 'ended', released: 'ended', active: 'active', unknown: 'unknown' };

const holdFate = (state: HoldStateRead | undefined): HoldFate => (state === undefined ? 'unknown' : FATES[state]);

export type Settled = 'redeemed' | 'voided' | 'expired' | 'still_active' | 'unchanged';

type Deps = Pick<SharedDeps, 'loyalty' | 'clock' | 'logger'> & { redemptions: RedemptionStore };

/**
 * Asks the upstream what became of a claimed hold and records it: used means
 * the payment that claimed it went through (`redeemed`, so the same sale sent
 * again is recognised); ended means it is over (`voided` if a void claimed it,
 * else `expired`); active means the upstream still holds it: the claim is kept
 * (a payment may still be in flight upstream), its expiry taken over, and the
 * sweeper asks again (30 s after each look once its lease is over). Throws when
 * the upstream or the store fails, so the caller tries again later.
 */
export async function settleFromUpstream(deps: Deps, r: Redemption): Promise<Settled> {
  const lookup = await deps.loyalty.holdLookup(r.holdReference as string, { requestId: `hold-check-${r.id}`, priority: 'background' });
  const fate = holdFate(lookup.state);
  const now = deps.clock();
  if (fate === 'unknown') {
    deps.logger.warn(
      { redemptionId: r.id, upstreamState: String(lookup.state).slice(0, 40) },
      'hold lookup answered a state this BFF does not know; left as it is',
    );
    return 'unchanged';
  }
  if (fate === 'active') {
    const until = lookup.dateToExpire;
    if (!(until > (r.expiresAt ?? 0))) return 'still_active';
    const moved = await deps.redemptions.change(r.id, now, (cur) => (isOpen(cur) ? { ...cur, expiresAt: until } : `it is ${cur.state}`));
    return moved.ok ? 'still_active' : 'unchanged';
  }
  let recorded: Settled = 'unchanged';
  const result = await deps.redemptions.change(r.id, now, (cur) => {
    if (!isOpen(cur)) return `it is ${cur.state}`;
    if (fate === 'used') {
      recorded = 'redeemed';
      return applyTransition(REDEMPTION_TRANSITIONS.holdUsed, cur.state, cur);
    }
    recorded = cur.state === 'voiding' ? 'voided' : 'expired';
    return applyTransition(cur.state === 'voiding' ? REDEMPTION_TRANSITIONS.holdReleased : REDEMPTION_TRANSITIONS.holdEnded, cur.state, cur);
  });
  if (!result.ok) {
    if (result.reason === 'rejected')
      deps.logger.warn(
        { redemptionId: r.id, upstreamState: lookup.state, detail: result.detail },
        'hold outcome from the upstream does not fit the record; left as it is',
      );
    return 'unchanged';
  }
  deps.logger.info(
    {
      redemptionId: r.id,
      storeId: r.storeId,
      customerId: r.customerId,
      holdReference: r.holdReference,
      paymentId: r.paymentId,
      upstreamState: lookup.state,
      recorded,
    },
    'hold outcome settled from the upstream',
  );
  return recorded;
}

/**
 * When the sweep stops asking about a due hold whose record does not show it
 * ended (used by nothing of this BFF's, a state it does not know, or no
 * answer): past the hold's end by another hold period (as long again as it
 * was held). The hold is over upstream by then whatever its record says.
 */
export function dueHoldGivenUpAt(r: Pick<Redemption, 'createdAt' | 'expiresAt'>): number {
  const end = r.expiresAt ?? r.createdAt;
  return end + Math.max(0, end - r.createdAt);
}

/**
 * A due hold nobody claimed, handed over by the sweep: what the BFF believes
 * over (its estimate of the hold's end) is checked against the hold's record
 * first. Still active upstream (this host's clock ran ahead, or the account's
 * hold period is longer than the estimate): recorded `expired` (unless a
 * payment claimed it meanwhile), then released. Ended upstream: recorded `expired`. Used, a state this BFF does
 * not know, or no answer: asked again at the next look until
 * dueHoldGivenUpAt, then recorded `expired` with a warning naming what the
 * record said, never released (no payment of this BFF claimed it, and a used
 * hold is not to be cancelled). Throws while the upstream cannot be asked, so
 * the next sweep tries again; a release that fails after the record ended is
 * logged, and the hold lapses upstream by itself.
 */
export async function endDueHold(deps: Deps, r: Redemption): Promise<Settled> {
  const ctx = { requestId: `hold-end-${r.id}`, priority: 'background' as const };
  const givenUp = deps.clock() >= dueHoldGivenUpAt(r);
  let lookup: Awaited<ReturnType<Deps['loyalty']['holdLookup']>>;
  try {
    lookup = await deps.loyalty.holdLookup(r.holdReference as string, ctx);
  } catch (err) {
    if (!givenUp) throw err;
    return endUnseen(deps, r, `no answer (${String((err as Error).message).slice(0, 80)})`);
  }
  const fate = holdFate(lookup.state);
  if (fate === 'used' || fate === 'unknown') {
    const upstreamState = String(lookup.state).slice(0, 40);
    if (givenUp) return endUnseen(deps, r, upstreamState);
    deps.logger.info({ redemptionId: r.id, upstreamState }, 'a due hold is not over upstream the way this BFF expected; asked again later');
    return 'unchanged';
  }
  // Ended here first (compare-and-set), then released: a payment that claims the hold meanwhile (another host's clock
  // behind this one's) wins, and nothing is released under it.
  const result = await deps.redemptions.apply(r.id, deps.clock(), 'holdEnded', { when: (cur) => cur.state === 'held' || `it is ${cur.state}` });
  if (!result.ok) return 'unchanged';
  if (fate === 'active') {
    try {
      await deps.loyalty.holdCancel(r.holdReference as string, ctx);
    } catch (err) {
      deps.logger.warn(
        { redemptionId: r.id, holdReference: r.holdReference, err: { message: (err as Error).message } },
        'a due hold ended here could not be released upstream; its points stay held until the hold lapses there by itself',
      );
      return 'expired';
    }
  }
  deps.logger.info(
    { redemptionId: r.id, storeId: r.storeId, holdReference: r.holdReference, upstreamState: lookup.state, released: fate === 'active' },
    'due hold ended',
  );
  return 'expired';
}

/** A due hold its record never showed ended, past dueHoldGivenUpAt: recorded `expired`, not released upstream. */
async function endUnseen(deps: Deps, r: Redemption, upstreamState: string): Promise<Settled> {
  const result = await deps.redemptions.apply(r.id, deps.clock(), 'holdEnded', { when: (cur) => cur.state === 'held' || `it is ${cur.state}` });
  // Past its end, the store's read may have ended it first (counted as ended on read): warned about all the same.
  if (!('redemption' in result) || result.redemption.state !== 'expired') return 'unchanged';
  deps.logger.warn(
    { redemptionId: r.id, storeId: r.storeId, holdReference: r.holdReference, upstreamState, expiresAt: r.expiresAt },
    'a due hold whose record never showed it ended is recorded expired, long past its end; not released upstream',
  );
  return result.ok ? 'expired' : 'unchanged';
}

import { applyTransition, REDEMPTION_TRANSITIONS } from '../money/machines';
import { ConflictError, NotFoundError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import type { Redemption } from './types';

/**
 * The one rule by which a payment or a void takes a held redemption. Both run
 * it inside the store's `change` (a compare-and-set: a Lua script on Redis, a
 * synchronous step in memory), so of a payment and a void racing for one
 * redemption exactly one writes its claim (`paying` or `voiding`); the other
 * re-reads, sees the claim, and is refused with the winner's outcome.
 */
export type Claimant =
  { kind: 'payment'; storeId: string; customerId: string; paymentId: string; now: number; marginMs: number } | { kind: 'void'; storeId: string };

/** Why a claim was refused, as the till hears it. */
export type ClaimRefusal = NotFoundError | ConflictError;

/** Another store's redemption reads exactly like a missing one, so ids cannot be probed. */
export function redemptionNotFound(id: string): NotFoundError {
  return problem('redemption_not_found', `Redemption ${id} was not found`);
}

export function claim(cur: Redemption, who: Claimant): Redemption | ClaimRefusal {
  if (cur.storeId !== who.storeId) return redemptionNotFound(cur.id);
  if (who.kind === 'void') {
    // A second void of the same redemption (a till's retry) may carry on: releasing a hold twice is harmless.
    if (cur.state === 'voiding') return cur;
    if (cur.state === 'paying') return problem('payment_in_progress', `Redemption ${cur.id} is used by payment ${cur.paymentId}`, { extra: outcomeOf(cur) });
    if (cur.state !== 'held')
      return problem('redemption_not_held', `Redemption ${cur.id} is ${cur.state}; only a held redemption can be voided`, { extra: outcomeOf(cur) });
    return applyTransition(REDEMPTION_TRANSITIONS.void, cur.state, cur) as Redemption;
  }
  if (cur.customerId !== who.customerId) return problem('redemption_customer_mismatch', `Redemption ${cur.id} belongs to another customer`);
  // The same sale sent again (its first answer lost): the upstream's record says whether it already has it.
  if (cur.paymentId === who.paymentId && (cur.state === 'paying' || cur.state === 'redeemed')) return cur;
  if (cur.state === 'voiding') return problem('redemption_not_held', `Redemption ${cur.id} is being voided; start a new redemption`, { extra: outcomeOf(cur) });
  if (cur.state === 'paying')
    return problem('redemption_in_use', `Redemption ${cur.id} is already used by payment ${cur.paymentId}`, { extra: outcomeOf(cur) });
  if (cur.state !== 'held') return problem('redemption_not_held', `Redemption ${cur.id} is ${cur.state}; start a new redemption`, { extra: outcomeOf(cur) });
  if ((cur.expiresAt ?? 0) - who.now < who.marginMs) {
    return problem('redemption_expiring', `Redemption ${cur.id} has less than ${Math.round(who.marginMs / 1000)} s left; void it and start again`, {
      extra: outcomeOf(cur),
    });
  }
  return applyTransition(REDEMPTION_TRANSITIONS.pay, cur.state, cur, { args: { paymentId: who.paymentId } }) as Redemption;
}

/**
 * What a refused claimant is told the redemption ends as: a void in progress
 * ends `voided`, a payment in progress `redeemed` (if its upstream call is
 * refused, the claim is freed and the redemption is `held` again).
 */
export function outcomeOf(r: Redemption): { state: Redemption['state']; paymentId?: string } {
  if (r.state === 'voiding') return { state: 'voided' };
  if (r.state === 'paying') return { state: 'redeemed', paymentId: r.paymentId };
  return r.paymentId ? { state: r.state, paymentId: r.paymentId } : { state: r.state };
}

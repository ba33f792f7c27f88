import type { Redemption } from './types';

/**
 * The one rule by which a payment or a void takes a held redemption. Both run
 * it inside the store's `change` (a compare-and-set: a Lua script on Redis, a
 * synchronous step in memory), so of a payment and a void racing for one
 * redemption exactly one writes its claim; the other re-reads, sees the claim,
 * and is refused with the winner's outcome. A refusal is "code:detail".
 */
export type Claimant =
  | { kind: 'payment'; storeId: string; customerId: string; paymentId: string; now: number; marginMs: number }
  | { kind: 'void'; storeId: string };

/** Another store's redemption reads exactly like a missing one, so ids cannot be probed. */
export const CLAIM_NOT_FOUND = 'redemption_not_found';

export function claim(cur: Redemption, who: Claimant): Redemption | string {
  if (cur.storeId !== who.storeId) return CLAIM_NOT_FOUND;
  if (who.kind === 'void') {
    if (cur.state !== 'held') return `redemption_not_held:Redemption ${cur.id} is ${cur.state}; only a held redemption can be voided`;
    if (cur.paymentId) return `payment_in_progress:Redemption ${cur.id} is used by payment ${cur.paymentId}`;
    // A second void of the same redemption (a till's retry) may carry on: releasing a hold twice is harmless.
    return { ...cur, voiding: true };
  }
  if (cur.customerId !== who.customerId) return `redemption_customer_mismatch:Redemption ${cur.id} belongs to another customer`;
  // The same sale sent again (its first answer lost): let the upstream say whether it already has it.
  if (cur.paymentId === who.paymentId && (cur.state === 'held' || cur.state === 'redeemed')) return cur;
  if (cur.voiding) return `redemption_not_held:Redemption ${cur.id} is being voided; start a new redemption`;
  if (cur.state !== 'held') return `redemption_not_held:Redemption ${cur.id} is ${cur.state}; start a new redemption`;
  if (cur.paymentId) return `redemption_in_use:Redemption ${cur.id} is already used by payment ${cur.paymentId}`;
  if ((cur.expiresAt ?? 0) - who.now < who.marginMs) {
    return `redemption_expiring:Redemption ${cur.id} has less than ${Math.round(who.marginMs / 1000)} s left; void it and start again`;
  }
  return { ...cur, paymentId: who.paymentId };
}

/**
 * What a refused claimant is told the redemption ends as: a void in progress
 * ends `voided`, a payment in progress `redeemed` (if its upstream call fails
 * for certain, the claim is freed and the redemption stays `held`).
 */
export function outcomeOf(r: Redemption): { state: Redemption['state']; paymentId?: string } {
  if (r.state === 'held' && r.voiding) return { state: 'voided' };
  if (r.state === 'held' && r.paymentId) return { state: 'redeemed', paymentId: r.paymentId };
  return r.paymentId ? { state: r.state, paymentId: r.paymentId } : { state: r.state };
}

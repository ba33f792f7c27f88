import { UnprocessableError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import type { CouponLock } from '../coupons/locks/types';
import type { Redemption } from '../redemptions/types';
import type { SaleLine } from './schemas';
import { worthOf } from '../coupons/verdicts';
import type { RuleTerms } from '../redemptions/options';

/**
 * What each discount of a sale takes off its basket: the money the totals
 * rule (./totals.ts) subtracts from `totalAmount`, and the receipt prints.
 */

/** A cent: totals are sums of rounded line figures, so they may disagree by that much. */
export const CENT = 0.01;
/** A float epsilon on top of a cent, so 80.01 against 100 - 20 is not refused by rounding. */
export const EPSILON = 1e-9;

export const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;

export interface CouponApplied {
  code: string;
  worth: number;
}

function basketChanged(lock: Pick<CouponLock, 'id' | 'basketTotal'>, basket: number, why: string): UnprocessableError {
  return problem(
    'coupon_lock_basket_changed',
    `Coupon lock ${lock.id} was locked for a basket of ${lock.basketTotal}, and this sale's totalAmount is ${basket}: ${why}. Release the lock and lock the coupons again for this basket`,
    { errors: [{ path: 'totalAmount', message: `the coupon lock was validated for a basket of ${lock.basketTotal}` }] },
  );
}

/**
 * Each locked coupon's worth on this basket. The loyalty service checked the
 * coupons (their minimum order value among them) for the basket they were
 * locked for, so a lock is good for that basket, or for a larger one on which
 * each coupon is worth the same (a minimum the locked basket met, a larger one
 * meets too). A smaller basket, or one that changes a coupon's worth (a
 * percentage; the lock keeps no cap, so a capped one is refused too), is
 * refused: `coupon_lock_basket_changed`.
 */
export function couponsOnBasket(lock: Pick<CouponLock, 'id' | 'basketTotal' | 'coupons'>, basket: number): CouponApplied[] {
  const applied = lock.coupons.map((c) => ({ code: c.code, worth: c.worth }));
  if (Math.abs(basket - lock.basketTotal) <= CENT + EPSILON) return applied;
  if (basket < lock.basketTotal)
    throw basketChanged(lock, basket, "it is smaller, and each coupon's minimum order value was checked for the locked basket only");
  for (const c of lock.coupons) {
    const here = worthOf(c, basket);
    if (Math.abs(here - c.worth) > EPSILON) throw basketChanged(lock, basket, `coupon ${c.code} is worth ${here} on it, not the ${c.worth} it was locked at`);
  }
  return applied;
}

/** How a rule takes money off, read from its configured type. */
function ruleKind(type: string): 'percentage' | 'fixed' | 'product' | 'shipping' | 'other' {
  if (/percent/i.test(type)) return 'percentage';
  if (/fixed/i.test(type)) return 'fixed';
  if (/product/i.test(type)) return 'product';
  if (/shipping/i.test(type)) return 'shipping';
  return 'other';
}

/** Whether a redemption's worth depends on the basket, so it cannot be priced without one. */
export function needsBasket(rule: RuleTerms | undefined): boolean {
  return rule !== undefined && ruleKind(rule.type) === 'percentage' && rule.discountValue !== undefined;
}

/** One unit of the free product, when the sale has its line: the line priced per unit, never more than the line. */
function productLineWorth(lines: readonly SaleLine[] | undefined, productId: string | undefined): number | undefined {
  if (productId === undefined) return undefined;
  const line = lines?.find((l) => l.serviceId === productId || l.sku === productId);
  if (!line) return undefined;
  return Math.min(line.amount, line.amount / (line.quantity ?? 1));
}

/**
 * Money a redemption takes off this basket (never more than the basket).
 * Points or an amount: the money held. A rule, by its configured terms: a
 * percentage of the basket (capped when a cap is set), a fixed amount, one
 * unit of the free product when the sale has its line. Free shipping, a free
 * product not among the lines, or a rule the programme does not list (or
 * lists without a value): the money the loyalty service held for it.
 */
export function redemptionWorth(
  redemption: Pick<Redemption, 'ask' | 'holdAmount'>,
  rule: RuleTerms | undefined,
  basket: number,
  lines?: readonly SaleLine[],
): number {
  const held = redemption.holdAmount ?? 0;
  const atMostBasket = (n: number) => round2(Math.max(0, Math.min(n, basket)));
  if (redemption.ask.kind !== 'rule' || !rule) return atMostBasket(held);
  switch (ruleKind(rule.type)) {
    case 'percentage': {
      if (rule.discountValue === undefined) return atMostBasket(held);
      // As for coupons, a cap of 0 or less caps nothing.
      const cap = rule.capping !== undefined && rule.capping > 0 ? rule.capping : Infinity;
      return atMostBasket(Math.min((basket * rule.discountValue) / 100, cap));
    }
    case 'fixed':
      return atMostBasket(rule.discountValue ?? held);
    case 'product':
      return atMostBasket(productLineWorth(lines, rule.productId) ?? held);
    default:
      return atMostBasket(held);
  }
}

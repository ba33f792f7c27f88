import { UnprocessableError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import type { CouponLock, CouponLockStore } from '../coupons/locks/types';
import type { CallContext, SharedDeps } from '../context';
import type { Redemption, RedemptionStore } from '../redemptions/types';
import type { PaymentBody } from './schemas';
import { CENT, CouponApplied, couponsOnBasket, EPSILON, needsBasket, redemptionWorth, round2 } from './discount-worth';
import type { RedemptionOptionsCache, RuleTerms } from '../redemptions/options';

/** What checking a sale's totals reads. */
export type TotalsDeps = Pick<SharedDeps, 'clock' | 'logger'> & {
  redemptions: Pick<RedemptionStore, 'get'>;
  couponLocks: Pick<CouponLockStore, 'get'>;
  redemptionOptions: Pick<RedemptionOptionsCache, 'terms'>;
};

/**
 * The totals rule. `totalPaid` is what the customer paid after every discount
 * the BFF applies (a redemption, a coupon lock); `totalAmount` the sale before
 * them. Points are earned on `totalPaid`, so it may not be more than
 * `totalAmount` less what each discount is worth on this basket (a cent of
 * tolerance): otherwise a discount's money would earn points again.
 */

export interface SaleDiscounts {
  redemption?: Pick<Redemption, 'ask' | 'holdAmount'>;
  /** The redemption's rule as the programme configures it; absent when it is not a rule or is not listed. */
  rule?: RuleTerms;
  lock?: Pick<CouponLock, 'id' | 'basketTotal' | 'coupons'>;
}

export interface AppliedDiscounts {
  /** The basket the discounts were priced on; null when the sale gave none (nothing was compared). */
  basket: number | null;
  /** Money the redemption takes off. */
  redemption: number;
  /** Each locked coupon and what it takes off this basket. */
  coupons: CouponApplied[];
}

/**
 * The sale's basket: its `totalAmount`, or, when the till sent none, the
 * basket the coupon lock was validated for (what the till last said the sale
 * was). Neither: there is nothing to compare with.
 */
function basketOf(body: Pick<PaymentBody, 'totalAmount'>, lock: SaleDiscounts['lock']): number | undefined {
  return body.totalAmount ?? lock?.basketTotal;
}

function inconsistent(body: Pick<PaymentBody, 'totalAmount' | 'totalPaid'>, basket: number, limit: number, parts: string[]): UnprocessableError {
  const before = body.totalAmount !== undefined ? `totalAmount (${basket})` : `the coupon lock's basket (${basket}; no totalAmount was sent)`;
  const less = parts.length ? ` less ${parts.join(' and ')}` : '';
  const detail = parts.length
    ? `totalPaid (${body.totalPaid}) is more than ${before}${less}: totalPaid is what was paid after discounts, coupons and redeemed points`
    : `totalPaid (${body.totalPaid}) is more than ${before}: totalPaid is what was paid after discounts, totalAmount the sale before them`;
  return problem('payment_totals_inconsistent', detail, {
    errors: [
      { path: 'totalPaid', message: `must be at most ${limit} (${body.totalAmount !== undefined ? 'totalAmount' : "the coupon lock's basket"}${less})` },
      {
        path: 'totalAmount',
        message:
          body.totalAmount !== undefined
            ? `the sale before discounts; must be at least totalPaid${parts.length ? ' plus the discounts' : ''}`
            : `absent, so the coupon lock's basket (${basket}) was taken as the sale before discounts; send it when the sale differs`,
      },
    ],
  });
}

/**
 * Prices each discount for this basket and checks `totalPaid` against them.
 * Returns what was applied (for the receipt), or throws
 * `payment_totals_inconsistent`, `coupon_lock_basket_changed`, or
 * `total_amount_required` (a percentage rule cannot be priced without the basket).
 */
export function applyTotals(body: Pick<PaymentBody, 'totalAmount' | 'totalPaid' | 'lines'>, d: SaleDiscounts): AppliedDiscounts {
  const basket = basketOf(body, d.lock);
  if (basket === undefined) {
    if (d.redemption && needsBasket(d.rule)) {
      throw problem(
        'total_amount_required',
        'The redemption is a percentage of the sale, so the sale before discounts is needed to price it: send totalAmount',
        {
          errors: [{ path: 'totalAmount', message: 'required with a percentage redemption rule' }],
        },
      );
    }
    // No basket: nothing to compare totalPaid with; the redemption is reported at the money held.
    return { basket: null, redemption: d.redemption?.holdAmount ?? 0, coupons: [] };
  }
  const coupons = d.lock ? couponsOnBasket(d.lock, basket) : [];
  const couponsOff = Math.min(
    basket,
    coupons.reduce((s, c) => s + c.worth, 0),
  );
  const redemption = d.redemption ? redemptionWorth(d.redemption, d.rule, basket, body.lines) : 0;
  const limit = round2(Math.max(0, basket - couponsOff - redemption));
  if (body.totalPaid > limit + CENT + EPSILON) {
    const parts = [...(d.redemption ? [`the redemption's ${redemption}`] : []), ...coupons.map((c) => `coupon ${c.code}'s ${c.worth}`)];
    throw inconsistent(body, basket, limit, parts);
  }
  return { basket, redemption, coupons };
}

/** The coupons of a sale the rule accepted, each at its worth on that sale's basket: what its receipt prints. */
export function couponsApplied(body: Pick<PaymentBody, 'totalAmount'>, lock: Pick<CouponLock, 'id' | 'basketTotal' | 'coupons'>): CouponApplied[] {
  return couponsOnBasket(lock, body.totalAmount ?? lock.basketTotal);
}

/** The rule's terms, or undefined when they cannot be read now: the redemption is then priced at the money held for it, as the loyalty service valued it. */
async function ruleTermsOf(deps: TotalsDeps, ctx: CallContext, ruleId: string): Promise<RuleTerms | undefined> {
  try {
    const terms = await deps.redemptionOptions.terms(ruleId, ctx.requestId);
    if (!terms)
      deps.logger.warn({ requestId: ctx.requestId, ruleId }, 'totals: the redemption rule is not among the listed rules; priced at the money held for it');
    return terms;
  } catch (err) {
    deps.logger.warn(
      { requestId: ctx.requestId, ruleId, err: (err as Error).message },
      'totals: redemption rules unreadable; the rule is priced at the money held for it',
    );
    return undefined;
  }
}

/**
 * The totals rule for a sale as it arrives: reads the redemption and the
 * coupon lock it names, when this store's (any other case is left to their
 * claims, which refuse it with their own codes), and the redemption's rule.
 */
export async function checkSaleTotals(deps: TotalsDeps, ctx: CallContext, body: PaymentBody): Promise<AppliedDiscounts> {
  const store = ctx.identity.store.id;
  const [r, l] = await Promise.all([
    body.redemptionId ? deps.redemptions.get(body.redemptionId, deps.clock()) : null,
    body.couponLockId ? deps.couponLocks.get(body.couponLockId) : null,
  ]);
  const redemption = r && r.storeId === store ? r : undefined;
  const lock = l && l.storeId === store ? l : undefined;
  const rule = redemption?.ask.kind === 'rule' ? await ruleTermsOf(deps, ctx, redemption.ask.ruleId) : undefined;
  return applyTotals(body, { redemption, rule, lock });
}

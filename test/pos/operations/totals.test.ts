import { AppError } from '../../../src/platform/errors';
import { couponsOnBasket, redemptionWorth } from '../../../src/pos/sales/discount-worth';
import { applyTotals, couponsApplied } from '../../../src/pos/sales/totals';

const points = { ask: { kind: 'points', points: 200 }, holdAmount: 20 } as const;
const byRule = (holdAmount: number) => ({ ask: { kind: 'rule', ruleId: '7' }, holdAmount }) as const;
const pct = (discountValue: number, capping?: number) => ({ type: 'percentage_discount', discountValue, capping });
const lockOf = (basketTotal: number, ...coupons: { code: string; type: string; value: number; worth: number }[]) => ({ id: 'cpl_1', basketTotal, coupons });
const five = { code: 'FIVE', type: 'fixed', value: 5, worth: 5 };

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('redemptionWorth: what a redemption takes off this basket', () => {
  it('points or an amount: the money held, at most the basket', () => {
    expect(redemptionWorth(points, undefined, 100)).toBe(20);
    expect(redemptionWorth(points, undefined, 12.5)).toBe(12.5);
  });

  it('a percentage rule: its percent of the basket, rounded to the cent, capped when a cap is set (0 caps nothing)', () => {
    expect(redemptionWorth(byRule(30), pct(15), 100)).toBe(15);
    expect(redemptionWorth(byRule(30), pct(15), 33.33)).toBe(5);
    expect(redemptionWorth(byRule(30), pct(15, 50), 1000)).toBe(50);
    expect(redemptionWorth(byRule(30), pct(15, 0), 1000)).toBe(150);
  });

  it('a fixed rule: its value, at most the basket', () => {
    expect(redemptionWorth(byRule(10), { type: 'fixed_discount', discountValue: 10 }, 100)).toBe(10);
    expect(redemptionWorth(byRule(10), { type: 'fixed_rate_settings', discountValue: 10 }, 6)).toBe(6);
  });

  it('a free product: one unit of its line (never more than the line), else the money held', () => {
    const rule = { type: 'free_product', productId: 'coffee' };
    expect(redemptionWorth(byRule(25), rule, 50, [{ serviceId: 'coffee', amount: 36, quantity: 3 }])).toBe(12);
    expect(redemptionWorth(byRule(25), rule, 50, [{ serviceId: 'x', sku: 'coffee', amount: 9 }])).toBe(9);
    expect(redemptionWorth(byRule(25), rule, 50, [{ serviceId: 'coffee', amount: 4, quantity: 0.5 }])).toBe(4);
    expect(redemptionWorth(byRule(25), rule, 50, [{ serviceId: 'cake', amount: 50 }])).toBe(25);
    expect(redemptionWorth(byRule(25), rule, 50)).toBe(25);
  });

  it('free shipping, another type, a percentage without a value, or a rule not listed: the money held', () => {
    expect(redemptionWorth(byRule(15), { type: 'free_shipping' }, 100)).toBe(15);
    expect(redemptionWorth(byRule(15), { type: 'custom' }, 100)).toBe(15);
    expect(redemptionWorth(byRule(15), { type: 'percentage_discount' }, 100)).toBe(15);
    expect(redemptionWorth(byRule(15), undefined, 100)).toBe(15);
  });
});

describe('couponsOnBasket: a coupon lock on the basket being paid', () => {
  it('its own basket (within a cent): each coupon at the worth it was locked at', () => {
    expect(couponsOnBasket(lockOf(100, five), 100)).toEqual([{ code: 'FIVE', worth: 5 }]);
    expect(couponsOnBasket(lockOf(100, five), 99.99)).toEqual([{ code: 'FIVE', worth: 5 }]);
  });

  it('a larger basket on which each coupon is worth the same: taken', () => {
    expect(couponsOnBasket(lockOf(100, five), 120)).toEqual([{ code: 'FIVE', worth: 5 }]);
  });

  it('a smaller basket, or one that changes a worth, is refused naming totalAmount', () => {
    const smaller = refusal(() => couponsOnBasket(lockOf(100, five), 98));
    expect([smaller.status, smaller.code, smaller.errors?.[0].path]).toEqual([422, 'coupon_lock_basket_changed', 'totalAmount']);
    const pct20 = { code: 'BIG20', type: 'percentage', value: 20, worth: 100 };
    expect(refusal(() => couponsOnBasket(lockOf(500, pct20), 600)).code).toBe('coupon_lock_basket_changed');
    // A fixed coupon worth the whole (smaller) basket it was locked for would be worth more on a larger one.
    expect(refusal(() => couponsOnBasket(lockOf(3, { ...five, worth: 3 }), 10)).code).toBe('coupon_lock_basket_changed');
  });

  it("the receipt prices the coupons on the sale's totalAmount, else on the locked basket", () => {
    expect(couponsApplied({ totalAmount: 150 }, lockOf(100, five))).toEqual([{ code: 'FIVE', worth: 5 }]);
    expect(couponsApplied({}, lockOf(100, five))).toEqual([{ code: 'FIVE', worth: 5 }]);
  });
});

describe('applyTotals: totalPaid against totalAmount less every discount', () => {
  it('without discounts: at most totalAmount, a cent of tolerance', () => {
    expect(applyTotals({ totalAmount: 50, totalPaid: 50.01 }, {})).toEqual({ basket: 50, redemption: 0, coupons: [] });
    const err = refusal(() => applyTotals({ totalAmount: 50, totalPaid: 50.02 }, {}));
    expect([err.code, err.errors?.map((e) => e.path)]).toEqual(['payment_totals_inconsistent', ['totalPaid', 'totalAmount']]);
  });

  it('subtracts the redemption and each coupon, never below 0', () => {
    expect(applyTotals({ totalAmount: 200, totalPaid: 165 }, { redemption: byRule(30), rule: pct(15), lock: lockOf(200, five) })).toEqual({
      basket: 200,
      redemption: 30,
      coupons: [{ code: 'FIVE', worth: 5 }],
    });
    const err = refusal(() => applyTotals({ totalAmount: 200, totalPaid: 165.02 }, { redemption: byRule(30), rule: pct(15), lock: lockOf(200, five) }));
    expect(err.errors?.[0].message).toContain('at most 165');
    expect(applyTotals({ totalAmount: 4, totalPaid: 0 }, { redemption: points, lock: lockOf(4, { ...five, worth: 4 }) }).basket).toBe(4);
  });

  it("takes the coupon lock's basket when totalAmount is absent", () => {
    expect(refusal(() => applyTotals({ totalPaid: 96 }, { lock: lockOf(100, five) })).code).toBe('payment_totals_inconsistent');
    expect(applyTotals({ totalPaid: 95 }, { lock: lockOf(100, five) }).basket).toBe(100);
  });

  it('without any basket: nothing is compared, but a percentage rule cannot be priced', () => {
    expect(applyTotals({ totalPaid: 1000 }, { redemption: points })).toEqual({ basket: null, redemption: 20, coupons: [] });
    const err = refusal(() => applyTotals({ totalPaid: 85 }, { redemption: byRule(30), rule: pct(15) }));
    expect([err.status, err.code, err.errors?.[0].path]).toEqual([422, 'total_amount_required', 'totalAmount']);
  });
});

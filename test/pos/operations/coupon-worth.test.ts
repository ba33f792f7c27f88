import { worthOf } from '../../../src/pos/coupons/verdicts';

describe('worthOf: what a coupon takes off a basket', () => {
  it('takes a fixed amount, at most the basket', () => {
    expect(worthOf({ type: 'fixed', value: 10 }, 60)).toBe(10);
    expect(worthOf({ type: 'fixed', value: 10 }, 7.5)).toBe(7.5);
  });

  it('takes a percentage, rounded to the cent, capped when a cap is set', () => {
    expect(worthOf({ type: 'percentage', value: 15 }, 33.33)).toBe(5);
    expect(worthOf({ type: 'percentage', value: 20, capping: 5 }, 60)).toBe(5);
    expect(worthOf({ type: 'percentage', value: 20, capping: 50 }, 60)).toBe(12);
  });

  it('reads a cap of 0 as no cap, not as a coupon worth nothing', () => {
    expect(worthOf({ type: 'percentage', value: 20, capping: 0 }, 60)).toBe(12);
  });

  it('gives no money worth to other rewards or to an answer without a value', () => {
    expect(worthOf({ type: 'shipping', value: 10 }, 60)).toBe(0);
    expect(worthOf({ type: 'product' }, 60)).toBe(0);
    expect(worthOf({ type: 'fixed' }, 60)).toBe(0);
  });
});

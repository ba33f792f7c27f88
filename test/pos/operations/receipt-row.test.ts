import { displayWidth } from '../../../src/platform/display-width';
import { row } from '../../../src/pos/sales/receipt';

describe('row: one receipt line in printed columns', () => {
  it('puts the label left and the value right, 40 columns in all', () => {
    expect(row('Balance', '1000 Stars')).toBe(`Balance${' '.repeat(23)}1000 Stars`);
    expect(displayWidth(row('Balance', '1000 ポイント'))).toBe(40);
  });

  it('cuts a long label between whole characters, never the value, and keeps a space between them', () => {
    const coupon = 'Coupon 満員御礼キャンペーン限定クーポン';
    // 29 columns are left for the label: "Coupon " and eleven wide characters.
    expect(row(coupon, '-10.00 EGP')).toBe('Coupon 満員御礼キャンペーン限 -10.00 EGP');
    // 30 columns left: a twelfth wide character would need 31, so it is left out and the gap takes the odd column.
    expect(row(coupon, '-9.00 EGP')).toBe('Coupon 満員御礼キャンペーン限  -9.00 EGP');
  });

  it('a value as wide as the line fills it alone', () => {
    expect(row('Label', 'x'.repeat(45))).toBe('x'.repeat(40));
    expect(displayWidth(row('Label', 'ポ'.repeat(21)))).toBe(40);
  });
});

import { startStack, Stack } from '../support/e2e';
import { heldRedemption } from './helpers';

/**
 * Receipt lines are measured in printed columns: a points name in
 * double-width characters takes two columns a character, and no line may run
 * past the 40 columns of the slip. Counted here with the ranges this name and
 * the digits use, independently of the code under test.
 */
const columns = (line: string) => [...line].reduce((n, ch) => n + (/[\u3000-\u30FF\u4E00-\u9FFF\uFF01-\uFF60]/.test(ch) ? 2 : 1), 0);

describe.each(['memory', 'redis'] as const)('receipt columns with a double-width points name (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { pointsName: 'ポイント' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('every line of a sale and of its refund is exactly 40 columns, values whole and right-aligned', async () => {
    const r = await heldRedemption(s, `wide-${store}`, 100, { seed: 1000 });
    const paid = await s
      .pos('cashier')
      .post('/payments', { customerId: `wide-${store}`, paymentId: `wide-sale-${store}`, totalPaid: 90, redemptionId: r.id })
      .expect(201);
    const refund = await s
      .pos('manager')
      .post('/refunds', { customerId: `wide-${store}`, refundId: `wide-rf-${store}`, paymentId: `wide-sale-${store}`, amount: 45 })
      .expect(201);
    for (const rc of [paid.body.receipt, refund.body.receipt]) {
      expect(rc.pointsName).toBe('ポイント');
      expect(rc.lines.map(columns)).toEqual(rc.lines.map(() => 40));
    }
    expect(paid.body.receipt.lines[0]).toBe(`${'-'.repeat(11)} Loyalty ポイント ${'-'.repeat(11)}`);
    expect(paid.body.receipt.lines).toContain(`Earned${' '.repeat(40 - 6 - columns('+90 ポイント'))}+90 ポイント`);
    expect(refund.body.receipt.lines).toContain(`Given back${' '.repeat(40 - 10 - columns('+50 ポイント'))}+50 ポイント`);
  });
});

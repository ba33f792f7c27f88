import {
  applyTransition,
  COUPON_LOCK_MACHINE,
  COUPON_LOCK_TRANSITIONS,
  type Machine,
  REDEMPTION_MACHINE,
  REDEMPTION_TRANSITIONS,
  SALE_MACHINE,
  SALE_TRANSITIONS,
  type Transition,
  transitionRefusal,
} from '../../../src/pos/money/machines';
import { MemoryIdRecords } from '../../../src/pos/money/ids/records';

const tables: [string, Machine<string>, Record<string, Transition<string>>][] = [
  ['redemption', REDEMPTION_MACHINE, REDEMPTION_TRANSITIONS],
  ['coupon lock', COUPON_LOCK_MACHINE, COUPON_LOCK_TRANSITIONS],
  ['sale', SALE_MACHINE, SALE_TRANSITIONS],
];

describe('named transitions', () => {
  it.each(tables)('every %s transition is one its machine allows', (_name, machine, transitions) => {
    for (const [name, t] of Object.entries(transitions))
      for (const from of t.from) expect({ name, from, refusal: transitionRefusal(machine, 'it', from, t.to) }).toEqual({ name, from, refusal: null });
  });

  it('applies the state and the fields it writes, from the allowed states only', () => {
    const cur = { state: 'paying', paymentId: 'P1', customerId: 'c' };
    expect(applyTransition(REDEMPTION_TRANSITIONS.payRefused, 'paying', cur)).toEqual({ state: 'held', paymentId: undefined, customerId: 'c' });
    expect(
      applyTransition(REDEMPTION_TRANSITIONS.pay, 'held', { state: 'held' } as { state: string; paymentId?: string }, { args: { paymentId: 'P2' } }),
    ).toEqual({ state: 'paying', paymentId: 'P2' });
    expect(applyTransition(REDEMPTION_TRANSITIONS.voidApplied, 'paying', cur)).toBe('it is paying');
    expect(applyTransition(REDEMPTION_TRANSITIONS.payApplied, 'paying', cur, { when: (c) => c.paymentId === 'P9' || 'another payment' })).toBe(
      'another payment',
    );
  });

  it('is applied by the id records inside their compare-and-set, which still refuse going back', async () => {
    const ids = new MemoryIdRecords<{
      kind: 'payment';
      id: string;
      storeId: string;
      state?: 'recording' | 'recorded' | 'voiding' | 'voided';
      voidRefundId?: string;
    }>(60_000);
    await ids.claim({ kind: 'payment', id: 'P1', storeId: 's1' });
    expect((await ids.apply('payment', 'P1', 'void', { args: { voidRefundId: 'R1' } })).ok).toBe(false);
    expect(await ids.apply('payment', 'P1', 'recorded')).toMatchObject({ ok: true, entry: { state: 'recorded' } });
    expect(await ids.apply('payment', 'P1', 'void', { args: { voidRefundId: 'R1' } })).toMatchObject({
      ok: true,
      entry: { state: 'voiding', voidRefundId: 'R1' },
    });
    expect(await ids.apply('payment', 'P1', 'voidApplied')).toMatchObject({ ok: true, entry: { state: 'voided' } });
    expect(await ids.change('payment', 'P1', (cur) => ({ ...cur, state: 'recorded' }))).toMatchObject({ ok: false });
  });
});

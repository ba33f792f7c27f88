import { computeSignals, DEFAULT_THRESHOLDS, signalsOfStore, countSignals, type AbuseSignal } from '../../../src/pos/audit/signals';
import type { AuditEntry } from '../../../src/pos/audit/types';

/**
 * The signal rules on entries written by hand: each threshold met exactly is
 * flagged, one step short of it is not, the time windows end where they say,
 * and a store is shown only its own part of a pattern across stores.
 */

const DAY = { from: Date.UTC(2026, 10, 24), to: Date.UTC(2026, 10, 25) - 1 };
const at = (h: number, m = 0) => DAY.from + h * 3600_000 + m * 60_000;
let n = 0;
function entry(e: Partial<AuditEntry> & Pick<AuditEntry, 'action' | 'at'>): AuditEntry {
  n += 1;
  return { id: `${n}-0`, storeId: 'store-001', terminalId: 'till-1', outcome: 'applied', ...e };
}
const sale = (paymentId: string, customerId: string, when: number, more: Partial<AuditEntry> = {}) =>
  entry({ action: 'payment', at: when, paymentId, customerId, cashierId: 'c-1', shiftId: 'am', amountPaid: 10, pointsEarned: 10, ...more });
const start = (customerId: string, when: number, more: Partial<AuditEntry> = {}) =>
  entry({ action: 'redemption_start', at: when, customerId, redemptionId: `rdm_${n}`, proof: 'hash', pointsHeld: 100, ...more });
const refund = (paymentId: string, when: number, more: Partial<AuditEntry> = {}) =>
  entry({ action: 'refund', at: when, paymentId, refundId: `r-${paymentId}`, cashierId: 'c-1', ...more });

const kinds = (xs: AbuseSignal[]) => xs.map((x) => x.signal);

/** A shift of `total` sales, `theirs` of them by one customer, the rest by customers seen once. */
function shift(total: number, theirs: number, shiftId = 'am'): AuditEntry[] {
  return Array.from({ length: total }, (_, i) => sale(`${shiftId}-${i}`, i < theirs ? 'hoarder' : `walk-in-${shiftId}-${i}`, at(9, i), { shiftId }));
}

describe('abuse signals from the audit trail', () => {
  it('a clean day flags nothing', () => {
    const day = [...shift(20, 2), start('alice', at(10)), start('bob', at(10, 5), { storeId: 'store-002' }), refund('am-5', at(11), { cashierId: 'c-9' })];
    // A refund of a sale that earned nothing, by a cashier of another store.
    day[5] = { ...day[5], pointsEarned: 0 };
    expect(computeSignals(day, DAY)).toEqual([]);
    expect(countSignals([])).toEqual({ customer_share: 0, earn_then_refund: 0, multi_store_redemptions: 0, typed_customer_id: 0 });
  });

  it('customer_share: 30 % of a shift of 10 is flagged; 3 of 11, or 3 of 9 (too few sales), are not', () => {
    const flagged = computeSignals(shift(10, 3), DAY);
    expect(kinds(flagged)).toEqual(['customer_share']);
    expect(flagged[0]).toMatchObject({ customerId: 'hoarder', shiftId: 'am', count: 3, of: 10, threshold: 30 });
    expect(flagged[0].parts).toEqual([expect.objectContaining({ storeId: 'store-001', cashierIds: ['c-1'], paymentIds: ['am-0', 'am-1', 'am-2'] })]);
    expect(computeSignals(shift(11, 3), DAY)).toEqual([]);
    expect(computeSignals(shift(9, 3), DAY)).toEqual([]);
    // A sale sent again (the same payment id twice) counts once; a refused one not at all.
    const again = [...shift(10, 2), sale('am-0', 'hoarder', at(12)), sale('x', 'hoarder', at(12), { outcome: 'refused' })];
    expect(computeSignals(again, DAY)).toEqual([]);
  });

  it('earn_then_refund: within 24 h by the same cashier or at the same store; not after, not elsewhere by another', () => {
    const earned = sale('p-1', 'eve', at(1) - 20 * 3600_000, { storeId: 'store-002', cashierId: 'c-7' });
    const sameStore = refund('p-1', at(3, 59), { storeId: 'store-002', cashierId: 'c-8' });
    expect(kinds(computeSignals([earned, sameStore], DAY))).toEqual(['earn_then_refund']);
    // 24 h and a minute: not flagged.
    expect(computeSignals([earned, refund('p-1', earned.at + 24 * 3600_000 + 60_000, { storeId: 'store-002' })], DAY)).toEqual([]);
    // Another store, another cashier: not flagged; the same cashier at another store: flagged, and both stores see it.
    expect(computeSignals([earned, refund('p-1', at(2), { storeId: 'store-001', cashierId: 'c-1' })], DAY)).toEqual([]);
    const byThem = computeSignals([earned, refund('p-1', at(2), { storeId: 'store-001', cashierId: 'c-7' })], DAY);
    expect(kinds(byThem)).toEqual(['earn_then_refund']);
    expect(signalsOfStore(byThem, 'store-002')[0].parts.map((p) => p.storeId)).toEqual(['store-002']);
    expect(signalsOfStore(byThem, 'store-001')[0].parts.map((p) => p.storeId)).toEqual(['store-001']);
    // A refund of the day before is not this day's signal.
    expect(computeSignals([earned, refund('p-1', DAY.from - 1, { storeId: 'store-002' })], DAY)).toEqual([]);
    // A sale that earned nothing.
    expect(computeSignals([{ ...earned, pointsEarned: 0 }, sameStore], DAY)).toEqual([]);
  });

  it('multi_store_redemptions: three stores within 30 minutes; two stores, or three over 31 minutes, are not', () => {
    const three = [start('roamer', at(12)), start('roamer', at(12, 10), { storeId: 'store-002' }), start('roamer', at(12, 30), { storeId: 'store-003' })];
    const flagged = computeSignals(three, DAY);
    expect(kinds(flagged)).toEqual(['multi_store_redemptions']);
    expect(flagged[0]).toMatchObject({ customerId: 'roamer', count: 3, of: 3 });
    const mine = signalsOfStore(flagged, 'store-002');
    expect(mine[0].parts).toEqual([expect.objectContaining({ storeId: 'store-002', redemptionIds: [three[1].redemptionId] })]);
    expect(mine[0].of).toBe(3);
    expect(signalsOfStore(flagged, 'store-004')).toEqual([]);
    expect(computeSignals(three.slice(0, 2).concat(start('roamer', at(12, 20))), DAY)).toEqual([]);
    expect(computeSignals([three[0], three[1], { ...three[2], at: at(12, 31) }], DAY)).toEqual([]);
    // A refused start is no redemption.
    expect(computeSignals([three[0], three[1], { ...three[2], outcome: 'refused' }], DAY)).toEqual([]);
  });

  it('typed_customer_id: three typed starts by one cashier in a day; two, or three by different cashiers, are not', () => {
    const typed = (who: string, m: number) => start(`t-${m}`, at(15, m), { proof: 'none', cashierId: who });
    const flagged = computeSignals([typed('c-5', 1), typed('c-5', 2), typed('c-5', 3), start('x', at(15, 4), { cashierId: 'c-5', proof: 'qr' })], DAY);
    expect(kinds(flagged)).toEqual(['typed_customer_id']);
    expect(flagged[0]).toMatchObject({ count: 3, threshold: 3, parts: [expect.objectContaining({ cashierIds: ['c-5'] })] });
    expect(computeSignals([typed('c-5', 1), typed('c-5', 2)], DAY)).toEqual([]);
    expect(computeSignals([typed('c-5', 1), typed('c-6', 2), typed('c-7', 3)], DAY)).toEqual([]);
    expect(computeSignals([typed('c-5', 1), typed('c-5', 2), typed('c-5', 3)], DAY, { ...DEFAULT_THRESHOLDS, typedIdPerCashier: 4 })).toEqual([]);
  });
});

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
    // The manager's quick refunds of three sales that earned points: ordinary returns.
    const refunds = ['am-5', 'am-6', 'am-7'].map((p, i) => refund(p, at(11, i), { terminalId: 'office-1', cashierId: 'c-9' }));
    const day = [...shift(20, 2), start('alice', at(10)), start('bob', at(10, 5), { storeId: 'store-002' }), ...refunds];
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

  describe('earn_then_refund', () => {
    // c-7 rings three sales that earned points, one the evening before, and refunds each within 24 h.
    const sales = [
      sale('p-1', 'eve', at(1) - 20 * 3600_000, { storeId: 'store-002', cashierId: 'c-7' }),
      sale('p-2', 'eve', at(9), { storeId: 'store-002', cashierId: 'c-7' }),
      sale('p-3', 'eve', at(10), { storeId: 'store-002', cashierId: 'c-7', pointsEarned: 25 }),
    ];
    const undo = (s: AuditEntry, when: number, more: Partial<AuditEntry> = {}) =>
      refund(s.paymentId as string, when, { storeId: 'store-002', terminalId: 'office-2', cashierId: 'c-7', ...more });
    const refunds = [undo(sales[0], at(3, 59)), undo(sales[1], at(9, 5)), undo(sales[2], at(10, 30), { action: 'sale_void', refundId: 'void-p-3' })];

    it('three of their own sales refunded by one cashier in a day are flagged, named in the note', () => {
      const flagged = computeSignals([...sales, ...refunds], DAY);
      expect(kinds(flagged)).toEqual(['earn_then_refund']);
      expect(flagged[0]).toMatchObject({ customerId: 'eve', count: 3, threshold: 3, from: sales[0].at, to: refunds[2].at });
      expect(flagged[0].note).toBe(
        'Cashier c-7 refunded or voided 3 of their own sales that earned points, each within 24 h, all to customer eve (threshold 3 a day): ' +
          'p-1 (+10, refunded after 22 h 59 min), p-2 (+10, refunded after 5 min), p-3 (+25, voided after 30 min)',
      );
      expect(flagged[0].parts).toEqual([
        {
          storeId: 'store-002',
          cashierIds: ['c-7'],
          terminalIds: ['office-2', 'till-1'],
          paymentIds: ['p-1', 'p-2', 'p-3'],
          refundIds: ['r-p-1', 'r-p-2', 'void-p-3'],
          redemptionIds: [],
        },
      ]);
      // A long day names ten sales in the note; the parts have them all.
      const many = Array.from({ length: 12 }, (_, i) => sale(`q-${i}`, `walk-in-${i}`, at(12, i), { cashierId: 'c-7' }));
      const long = computeSignals([...many, ...many.map((x) => refund(x.paymentId as string, x.at + 60_000, { cashierId: 'c-7' }))], DAY);
      expect(long[0].count).toBe(12);
      expect(long[0].note).toMatch(/: q-0 \(\+10, refunded after 1 min\), .*, q-9 \(\+10, refunded after 1 min\), and 2 more \(in parts\)$/);
      expect(long[0].parts[0].paymentIds).toHaveLength(12);
      // Sales to several customers: the signal is about the cashier only.
      const several = computeSignals([...sales.slice(0, 2), { ...sales[2], customerId: 'frank' }, ...refunds], DAY);
      expect(several[0].customerId).toBeUndefined();
      expect(several[0].note).not.toContain('all to customer');
    });

    it('two are not; nor three with one a minute past 24 h, one that earned nothing, one of the day before, or a second refund of one sale', () => {
      expect(computeSignals([...sales, refunds[0], refunds[1]], DAY)).toEqual([]);
      expect(computeSignals([...sales, refunds[1], refunds[2], undo(sales[0], sales[0].at + 24 * 3600_000 + 60_000)], DAY)).toEqual([]);
      expect(computeSignals([{ ...sales[0], pointsEarned: 0 }, ...sales.slice(1), ...refunds], DAY)).toEqual([]);
      expect(computeSignals([...sales, refunds[1], refunds[2], undo(sales[0], DAY.from - 1)], DAY)).toEqual([]);
      expect(computeSignals([...sales, refunds[0], refunds[1], undo(sales[1], at(9, 6), { refundId: 'r-p-2-again' })], DAY)).toEqual([]);
      // The 24 h end itself counts.
      expect(kinds(computeSignals([...sales, refunds[1], refunds[2], undo(sales[0], sales[0].at + 24 * 3600_000)], DAY))).toEqual(['earn_then_refund']);
    });

    it('counts only the cashier who rang the sale: a manager refunding them, or several cashiers one each, are not flagged', () => {
      const byManager = refunds.map((r) => ({ ...r, cashierId: 'm-1' }));
      expect(computeSignals([...sales, ...byManager], DAY)).toEqual([]);
      expect(computeSignals([...sales, refunds[0], refunds[1], byManager[2]], DAY)).toEqual([]);
      const rungByThree = sales.map((x, i) => ({ ...x, cashierId: `c-${i}` }));
      expect(computeSignals([...rungByThree, ...refunds], DAY)).toEqual([]);
      expect(computeSignals([...sales, ...refunds], DAY, { ...DEFAULT_THRESHOLDS, refundPerCashier: 4 })).toEqual([]);
    });

    it('a till that names no cashier stands for one: its own sales refunded at it count, not those rung at another till', () => {
      const noId = (x: AuditEntry) => ({ ...x, cashierId: undefined, terminalId: 'office-2' });
      const flagged = computeSignals([...sales.map(noId), ...refunds.map(noId)], DAY);
      expect(kinds(flagged)).toEqual(['earn_then_refund']);
      expect(flagged[0].note).toMatch(/^Till office-2 \(no cashier id\) refunded or voided 3 /);
      expect(computeSignals([...sales.map((x) => ({ ...x, cashierId: undefined })), ...refunds.map(noId)], DAY)).toEqual([]);
    });

    it("a refund at another store is not the cashier's own sale there (ids are per store): not counted", () => {
      const elsewhere = refunds.map((r) => ({ ...r, storeId: 'store-001', terminalId: 'office-1' }));
      expect(computeSignals([...sales, ...elsewhere], DAY)).toEqual([]);
    });

    it('a refund naming no cashier, of a sale whose cashier is named, counts as theirs, and the note says so', () => {
      const anonymous = refunds.map((r) => ({ ...r, cashierId: undefined, terminalId: 'office-2' }));
      const flagged = computeSignals([...sales, anonymous[0], anonymous[1], refunds[2]], DAY);
      expect(kinds(flagged)).toEqual(['earn_then_refund']);
      expect(flagged[0].note).toMatch(/^Cashier \S+ \(some at a till naming no cashier\) refunded or voided 3 /);
    });
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

import { reconciliationPrintout } from '../../../src/pos/reconciliation/format';
import type { ReconciliationReport, ReconciliationRow } from '../../../src/pos/reconciliation/types';

/** The printout's head counts: rows compared and in step apart from rows nothing upstream could be compared with. */
const at = Date.parse('2026-11-23T10:00:00Z');
const row = (over: Partial<ReconciliationRow>): ReconciliationRow => ({
  kind: 'sale',
  id: 'x',
  terminalIds: ['till-1'],
  cashierIds: [],
  status: 'matched',
  flags: [],
  note: '',
  bff: {},
  upstream: {},
  entries: ['1-0'],
  at,
  ...over,
});

function report(rows: ReconciliationRow[]): ReconciliationReport {
  return {
    storeId: 'store-001',
    window: { from: '2026-11-23T00:00:00.000Z', to: '2026-11-23T23:59:59.999Z', date: '2026-11-23', timeZone: 'UTC' },
    generatedAt: '2026-11-24T06:00:00.000Z',
    actions: { payment: 2, events: 3 },
    settledLater: 0,
    redisLosses: [],
    signals: [],
    rows,
    anomalies: rows.filter((r) => r.flags.length).map((r) => ({ kind: r.flags[0], row: r.kind, id: r.id, note: r.note })),
    totals: { bff: {}, upstream: {}, notKnownHere: {} },
    reads: { orderTransactions: 2, holdLookup: 0 },
  };
}

const line = (lines: string[], label: string) =>
  lines
    .find((l) => l.startsWith(label))
    ?.slice(label.length)
    .trim();

describe('the reconciliation printout counts', () => {
  it('counts events (no record upstream) and a stand-in not yet sent as not comparable, never as checked in step', () => {
    const lines = reconciliationPrintout(
      report([
        row({ id: 'sale-1' }),
        row({ id: 'sale-2' }),
        row({ kind: 'events', id: 'e1', status: 'recorded_here', note: 'events place_order; applied; no readable record upstream to compare' }),
        row({ kind: 'events', id: 'e2', status: 'recorded_here', note: 'events store_visit; applied; no readable record upstream to compare' }),
        row({ kind: 'events', id: 'e3', status: 'recorded_here', flags: ['unknown_open'], note: 'events; outcome unknown' }),
        row({ kind: 'redemption', id: 'rdm-1', status: 'not_checked', note: 'no hold known here' }),
        row({ kind: 'redemption', id: 'rdm-2', status: 'pending', note: 'stand-in: 100 points; paid by sale s-3, its redeem still queued in the outbox' }),
      ]),
    );
    expect(line(lines, 'Checked, in step')).toBe('2');
    expect(line(lines, 'Not comparable')).toBe('4');
    expect(line(lines, 'Anomalies')).toBe('1');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
  });
});

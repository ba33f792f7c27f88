import type { AuditEntry } from '../../../src/pos/audit/types';
import { groupEntries } from '../../../src/pos/reconciliation/engine';
import { rowsOfStore, type Facts } from '../../../src/pos/reconciliation/rows';

const facts = (): Facts => ({ transactions: new Map(), holds: new Map(), outbox: new Map(), locks: new Map(), saleStores: new Map(), unreadable: new Map() });
const at = Date.UTC(2026, 10, 24, 12);
const refused = (id: string, action: AuditEntry['action'], code: string): AuditEntry => ({
  id,
  at,
  storeId: 'store-001',
  terminalId: 'till-1',
  action,
  outcome: 'refused',
  requestId: `req-${id}`,
  customerId: 'c-1',
  code,
});

describe('rows of entries without a record id (refused before one was made)', () => {
  it('are listed under their own action, never as customer events', () => {
    const entries = [
      refused('1-0', 'redemption_start', 'customer_not_found'),
      refused('2-0', 'coupon_lock', 'coupon_refused'),
      refused('3-0', 'payment', 'payment_totals_inconsistent'),
      refused('4-0', 'events', 'kiosk_events_off'),
    ];
    const rows = rowsOfStore(groupEntries(entries), facts(), { storeId: 'store-001', window: { from: at - 3600_000, to: at + 3600_000 }, timeZone: 'UTC' });
    expect(rows.map((r) => [r.kind, r.status])).toEqual([
      ['redemption', 'refused'],
      ['coupon_lock', 'refused'],
      ['sale', 'refused'],
      ['events', 'refused'],
    ]);
  });
});

import pino from 'pino';
import { auditGivenUpClaim, auditSettledClaim } from '../../../src/pos/audit/settled-claims';
import { MemoryAuditStore } from '../../../src/pos/audit/memory-store';
import { AuditTrail } from '../../../src/pos/audit/trail';
import type { AuditEntry } from '../../../src/pos/audit/types';
import { groupEntries } from '../../../src/pos/reconciliation/engine';
import { rowsOfStore, type Facts } from '../../../src/pos/reconciliation/rows';

/*
 * The entries the lease sweeps write for the claims they settle: `afterCrash`
 * only for a claim whose lease was over (its taker crashed), none for a
 * settlement that changed nothing, an `unknown` one for a claim given up; and
 * the reconciliation flags a lost outcome only where the action's own entry
 * never said `applied`.
 */

const now = Date.UTC(2026, 10, 24, 12);
const lease = (until: number) => ({ at: until - 120_000, until, terminalId: 'till-1', cashierId: 'anna-07', requestId: 'req-P1' });
const claim = { action: 'payment' as const, storeId: 'store-001', repair: 'sale:payment:P1', subject: { customerId: 'c-1', paymentId: 'P1', amountPaid: 40 } };

async function written(write: (trail: AuditTrail) => void): Promise<AuditEntry[]> {
  const store = new MemoryAuditStore(86_400_000);
  const trail = new AuditTrail({ store, logger: pino({ level: 'silent' }), clock: () => now });
  write(trail);
  await trail.flush();
  return (await store.scan('store-001', { fromMs: 0, untilMs: now + 1, count: 100 })).entries;
}

const facts = (): Facts => ({ transactions: new Map(), holds: new Map(), outbox: new Map(), locks: new Map(), saleStores: new Map(), unreadable: new Map() });
const flagsOf = (entries: AuditEntry[]) =>
  rowsOfStore(groupEntries(entries), facts(), { storeId: 'store-001', window: { from: now - 3600_000, to: now + 3600_000 }, timeZone: 'UTC' }).flatMap(
    (r) => r.flags,
  );

describe('settled claims are audited as crashes only past their lease', () => {
  it('marks afterCrash on a claim whose lease was over, not on one settled within it', async () => {
    const entries = await written((trail) => {
      auditSettledClaim(trail, { ...claim, lease: lease(now), code: 'recorded' });
      auditSettledClaim(trail, { ...claim, lease: lease(now + 1), code: 'recorded' });
      // Written by the release before leases: nobody runs it any more.
      auditSettledClaim(trail, { ...claim, code: 'recorded' });
    });
    expect(entries.map((e) => [e.outcome, e.afterCrash])).toEqual([
      ['settled', true],
      ['settled', undefined],
      ['settled', true],
    ]);
    expect(entries[0]).toMatchObject({ terminalId: 'till-1', cashierId: 'anna-07', requestId: 'req-P1' });
  });

  it('writes nothing for a settlement that changed nothing, and `unknown` for a claim given up', async () => {
    const entries = await written((trail) => {
      auditSettledClaim(trail, { ...claim, lease: lease(now - 1), code: 'unchanged' });
      auditGivenUpClaim(trail, { ...claim, lease: lease(now - 86_400_000) });
    });
    expect(entries.map((e) => [e.outcome, e.code, e.afterCrash])).toEqual([['unknown', 'not_on_record', undefined]]);
    expect(flagsOf(entries)).toEqual(['unknown_open']);
  });

  it('flags a lost outcome only for a sale whose own entry did not say applied', async () => {
    const applied: AuditEntry = {
      id: '1-0',
      at: now - 60_000,
      storeId: 'store-001',
      terminalId: 'till-1',
      action: 'payment',
      outcome: 'applied',
      ...claim.subject,
    };
    const settled = await written((trail) => auditSettledClaim(trail, { ...claim, lease: lease(now - 1), code: 'recorded' }));
    const late = settled.map((e) => ({ ...e, id: '2-0' }));
    expect(flagsOf(late)).toContain('unknown_then_settled');
    expect(flagsOf([applied, ...late])).not.toContain('unknown_then_settled');
  });
});

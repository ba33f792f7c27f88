import type { AuditEntry } from '../../../src/pos/audit/types';
import type { OutboxEntry } from '../../../src/pos/outbox/types';
import { groupEntries } from '../../../src/pos/reconciliation/engine';
import { rowsOfStore, type Facts } from '../../../src/pos/reconciliation/rows';
import type { Transaction } from '../../../src/pos/reconciliation/upstream-reads';

/**
 * A stand-in's row from what the BFF settled (its sale's outbox entry, a `stand_in_short` entry) against the
 * loyalty service's record of its redeem: the states the e2e test (test/e2e/stand-in.test.ts) does not reach.
 */
const at = Date.UTC(2026, 10, 24, 12);
const ctx = { storeId: 'store-001', window: { from: at - 3600_000, to: at + 3600_000 }, timeZone: 'UTC' };
const entry = (id: string, e: Partial<AuditEntry> & Pick<AuditEntry, 'action' | 'outcome'>): AuditEntry => ({
  id,
  at,
  storeId: 'store-001',
  terminalId: 'till-1',
  requestId: `req-${id}`,
  customerId: 'c-1',
  ...e,
});
const RDM = 'rdm_AAAAAAAAAAAA';
const started = entry('1-0', { action: 'redemption_start', outcome: 'applied', code: 'stand_in', redemptionId: RDM, pointsHeld: 100 });
const paid = entry('2-0', { action: 'payment', outcome: 'queued', paymentId: 'sale-1', redemptionId: RDM, outboxId: 'obx_1', amountPaid: 40 });
const short = entry('3-0', {
  action: 'stand_in_short',
  outcome: 'applied',
  code: 'stand_in_short',
  redemptionId: RDM,
  paymentId: 'sale-1',
  outboxId: 'obx_1',
  pointsHeld: 100,
  cashierId: 'c-7',
});
const outbox = (state: OutboxEntry['state'], outcome?: 'redeemed' | 'short'): OutboxEntry =>
  ({ id: 'obx_1', state, result: outcome ? { standIn: { redemptionId: RDM, outcome, points: 100 } } : undefined }) as OutboxEntry;
const redeem = (points: number): Transaction => ({
  transactionType: 'Redemption',
  transactionId: RDM,
  equivalentPoints: points,
  amount: points / 10,
  transactionDate: at,
});

function rowOf(entries: AuditEntry[], o: OutboxEntry | null, redeems?: Transaction[], unreadable?: string) {
  const facts: Facts = {
    transactions: new Map(redeems ? [[RDM, redeems]] : []),
    holds: new Map(),
    outbox: new Map([['obx_1', o]]),
    locks: new Map(),
    saleStores: new Map(),
    unreadable: new Map(unreadable ? [[`order:${RDM}`, unreadable]] : []),
  };
  const row = rowsOfStore(groupEntries(entries), facts, ctx).find((r) => r.kind === 'redemption');
  return { status: row?.status, flags: row?.flags, note: row?.note, bff: row?.bff, upstream: row?.upstream };
}

describe("a stand-in's row against the loyalty service's record of its redeem", () => {
  it('redeemed here: matched with exactly one redeem of its points; two of them are flagged', () => {
    expect(rowOf([started, paid], outbox('delivered', 'redeemed'), [redeem(100)])).toMatchObject({ status: 'matched', flags: [] });
    expect(rowOf([started, paid], outbox('delivered', 'redeemed'), [redeem(100), redeem(100)])).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_redeem_mismatch'],
      note: expect.stringContaining(`2 redeems of 100, 100 points under ${RDM}`),
      upstream: { redeemed: 200 },
    });
  });

  it("a sale's record under the same id (a till's sale id that is the redemption id), or a reversal, is not its redeem", () => {
    const sale: Transaction = { transactionType: 'PaymentReward', transactionId: RDM, amount: 40, equivalentPoints: undefined, transactionDate: at };
    expect(rowOf([started, paid], outbox('delivered', 'redeemed'), [sale, redeem(100)])).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_redeem_mismatch'],
      note: expect.stringContaining(`the loyalty service has no redeem under ${RDM}`),
    });
    const reversal = { ...redeem(100), transactionType: 'RedemptionReversal' };
    expect(rowOf([started, paid], outbox('delivered', 'redeemed'), [reversal])).toMatchObject({ status: 'mismatch', flags: ['stand_in_redeem_mismatch'] });
  });

  it('short here: a redeem there all the same is flagged besides the shortfall', () => {
    expect(rowOf([started, paid, short], outbox('delivered', 'short'), [])).toMatchObject({ status: 'mismatch', flags: ['stand_in_short'] });
    expect(rowOf([started, paid, short], outbox('delivered', 'short'), [redeem(100)])).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_short', 'stand_in_redeem_mismatch'],
      note: expect.stringMatching(/not redeemed .*cashier c-7.*yet the loyalty service has a redeem of 100 points/),
      bff: { redeemed: 0 },
      upstream: { redeemed: 100 },
    });
  });

  it('short as its outbox entry says, settled on a later day (no stand_in_short entry in this one): flagged short, with who rang it up', () => {
    const start = { ...started, cashierId: 'c-9', shiftId: 'sh-2' };
    expect(rowOf([start, paid], outbox('delivered', 'short'), [])).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_short'],
      note: expect.stringContaining('cashier c-9, shift sh-2'),
    });
  });

  it('given up in the outbox: not applied when there is no redeem there; flagged when there is one', () => {
    expect(rowOf([started, paid], outbox('dead'), [])).toMatchObject({ status: 'not_applied', flags: [] });
    expect(rowOf([started, paid], outbox('discarded'), [redeem(100)])).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_redeem_mismatch'],
      note: expect.stringMatching(/given up in the outbox \(obx_1\): not redeemed here; yet the loyalty service has a redeem of 100 points/),
    });
  });

  it('the outbox entry no longer kept: none or its one redeem is not flagged; a redeem it could not have made is', () => {
    expect(rowOf([started, paid], null, [redeem(100)])).toMatchObject({
      status: 'matched',
      flags: [],
      note: expect.stringMatching(/no longer keeps its entry \(obx_1\); the loyalty service has a redeem of 100 points/),
      bff: { redeemed: 100 },
    });
    expect(rowOf([started, paid], null, [])).toMatchObject({ status: 'not_applied', flags: [] });
    expect(rowOf([started, paid], null, [redeem(60)])).toMatchObject({ status: 'mismatch', flags: ['stand_in_redeem_mismatch'] });
    expect(rowOf([started, paid], null, [redeem(100), redeem(100)])).toMatchObject({ status: 'mismatch', flags: ['stand_in_redeem_mismatch'] });
  });

  it('a day with no start of it: a shortfall settled after midnight is still flagged and compared; a wait for approval that lapsed is lapsed', () => {
    expect(rowOf([short], outbox('delivered', 'short'), [])).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_short'],
      note: expect.stringContaining('cashier c-7'),
    });
    const lapsed = entry('4-0', { action: 'stand_in_lapsed', outcome: 'applied', code: 'stand_in_approval', redemptionId: RDM, pointsHeld: 400 });
    expect(rowOf([lapsed], null)).toMatchObject({ status: 'lapsed', flags: [], note: expect.stringContaining('stand-in: 400 points; not paid in time') });
  });

  it('a record that could not be read: not checked (a short one stays flagged short)', () => {
    expect(rowOf([started, paid], outbox('delivered', 'redeemed'), undefined, 'upstream_unavailable')).toMatchObject({
      status: 'not_checked',
      flags: ['not_checked'],
      note: expect.stringContaining("its redeem's record unreadable (upstream_unavailable)"),
    });
    expect(rowOf([started, paid, short], outbox('delivered', 'short'), undefined, 'upstream_unavailable')).toMatchObject({
      flags: ['stand_in_short', 'not_checked'],
    });
  });

  it('still queued: pending, nothing compared', () => {
    expect(rowOf([started, paid], outbox('queued'))).toMatchObject({ status: 'pending', flags: [], bff: {}, upstream: {} });
  });
});

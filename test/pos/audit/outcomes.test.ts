import { silentLogger } from '../../../src/platform/logger';
import { problem } from '../../../src/platform/problem';
import { audited, auditedRepair } from '../../../src/pos/audit/record';
import { MemoryAuditStore } from '../../../src/pos/audit/memory-store';
import { AuditTrail } from '../../../src/pos/audit/trail';
import type { CallContext } from '../../../src/pos/context';

const ctx = {
  requestId: 'req-1',
  identity: { terminal: { id: 'till-1', storeId: 'store-001', role: 'cashier' }, store: { id: 'store-001' } },
} as unknown as CallContext;

/** The outcome an action wrapped at its route is recorded with, when it fails with `err`. */
async function recordedFor(err: Error): Promise<string | undefined> {
  const store = new MemoryAuditStore(86_400_000);
  const audit = new AuditTrail({ store, logger: silentLogger, clock: Date.now });
  await expect(audited({ audit }, ctx, 'coupon_lock', { customerId: 'c-1' }, () => Promise.reject(err))).rejects.toBe(err);
  await audit.flush();
  const { entries } = await store.scan('store-001', { fromMs: 0, untilMs: Number.MAX_SAFE_INTEGER, count: 10 });
  return entries[0]?.outcome;
}

describe('the audit outcome of an action outside the claim step says what the till was told', () => {
  it('refused where the till was told nothing was done (its key freed): Redis away, a record busy', async () => {
    expect(await recordedFor(problem('redis_unavailable', 'down'))).toBe('refused');
    expect(await recordedFor(problem('coupon_lock_busy', 'busy'))).toBe('refused');
  });

  it('unknown where the upstream may have acted (a timeout), refused for a definite refusal', async () => {
    expect(await recordedFor(problem('upstream_timeout', 'slow'))).toBe('unknown');
    expect(await recordedFor(problem('coupon_refused', 'no'))).toBe('refused');
  });
});

describe('a repair handed on by an audited action records how it settled', () => {
  it('writes `settled` with what it recorded, and nothing when it changed nothing (another settled it)', async () => {
    const store = new MemoryAuditStore(86_400_000);
    const audit = new AuditTrail({ store, logger: silentLogger, clock: Date.now });
    const [recorded, unchanged] = await audited({ audit }, ctx, 'payment', { customerId: 'c-1', paymentId: 'P1' }, async () => [
      auditedRepair({ key: 'sale:payment:P1', settle: async () => 'recorded' }),
      auditedRepair({ key: 'sale:payment:P1', settle: async () => 'unchanged' }),
    ]);
    await recorded.settle();
    await unchanged.settle();
    await audit.flush();
    const { entries } = await store.scan('store-001', { fromMs: 0, untilMs: Number.MAX_SAFE_INTEGER, count: 10 });
    expect(entries.map((e) => [e.outcome, e.code])).toEqual([
      ['applied', undefined],
      ['settled', 'recorded'],
    ]);
  });
});

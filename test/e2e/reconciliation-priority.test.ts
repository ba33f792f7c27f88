import { silentLogger } from '../../src/platform/logger';
import { reconciliationDepsOf } from '../../src/pos/reconciliation';
import { localDate } from '../../src/pos/audit/store-day';
import { reconcileStore } from '../../src/pos/reconciliation/engine';
import { windowOf } from '../../src/pos/reconciliation';
import { LoyaltyClient, type CallInfo } from '../../src/upstream';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/** A reconciliation reads the loyalty service at background priority: after every till, in what budget they leave. */
describe('reconciliation reads', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('go at background priority', async () => {
    await s.seed('rp-1', 0);
    await s.pos('cashier').post('/payments', { customerId: 'rp-1', paymentId: 'rp-sale-1', totalPaid: 30 }).expect(201);
    const seen: CallInfo[] = [];
    const loyalty = new LoyaltyClient({
      baseUrl: s.sandbox.url,
      apiKey: SANDBOX_KEYS.apikey,
      secretKey: SANDBOX_KEYS.secretkey,
      timeoutMs: 5_000,
      retries: 0,
      logger: silentLogger,
      policies: [(info, next) => (seen.push(info), next())],
    });
    const deps = { ...reconciliationDepsOf(s.bffs[0].deps), loyalty };
    await s.bffs[0].deps.audit?.flush();
    const report = await reconcileStore(deps, 'store-001', windowOf({ date: localDate(Date.now(), 'UTC') }, 'UTC', Date.now()));
    expect(report.rows.some((r) => JSON.stringify(r).includes('rp-sale-1'))).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen.map((i) => i.priority))).toEqual(new Set(['background']));
  });
});

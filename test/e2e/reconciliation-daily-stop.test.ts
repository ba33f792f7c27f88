import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/platform/logger';
import { reconciliationDepsOf } from '../../src/pos/reconciliation';
import { DailyReconciliation, dailyClaim } from '../../src/pos/reconciliation/daily';
import { localDate } from '../../src/pos/audit/store-day';
import { LoyaltyClient, type CallInfo } from '../../src/upstream';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * A BFF stopping while its daily reconciliation runs: the run ends at once
 * (its reads, in flight to a slow loyalty service, are aborted) and the day is given back, so another instance, or
 * this one started again, writes that day's report.
 */
describe('the daily reconciliation, stopped mid-run', () => {
  let s: Stack;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-daily-stop-'));
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('aborts its reads and gives the day back', async () => {
    await s.seed('ds-1', 0);
    await s.pos('cashier').post('/payments', { customerId: 'ds-1', paymentId: 'ds-sale-1', totalPaid: 30 }).expect(201);
    await s.bffs[0].deps.audit?.flush();
    // The loyalty service answers order reads only after a minute: the reads are in flight when the BFF stops.
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'orderTransactions', latencyMs: 60_000 }] })
      .expect(200);
    const seen: CallInfo[] = [];
    const loyalty = new LoyaltyClient({
      baseUrl: s.sandbox.url,
      apiKey: SANDBOX_KEYS.apikey,
      secretKey: SANDBOX_KEYS.secretkey,
      timeoutMs: 120_000,
      retries: 0,
      logger: silentLogger,
      policies: [(info, next) => (seen.push(info), next())],
    });
    const claim = dailyClaim({ prefix: 'x' });
    const tomorrow = Date.now() + 86_400_000;
    const job = new DailyReconciliation({
      deps: { ...reconciliationDepsOf(s.bffs[0].deps), loyalty, timeZone: 'UTC' },
      at: '00:00',
      dir,
      stores: () => ['store-001'],
      claim,
      logger: silentLogger,
      clock: () => tomorrow,
    });
    job.start();
    await waitFor('a reconciliation read', () => seen.length > 0);
    const started = Date.now();
    await job.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(seen.every((i) => i.signal !== undefined)).toBe(true);
    // No report of a run cut short; the day (today, seen from tomorrow) is free to take again.
    expect(readdirSync(dir)).toEqual([]);
    expect(await claim.take(localDate(Date.now(), 'UTC'))).toBe(true);
  });
});

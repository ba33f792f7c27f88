import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { localDate } from '../../src/pos/audit/store-day';
import { startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * RECONCILIATION_DAILY_AT: once the store's clock passes it, one instance of
 * the fleet reconciles the day before for every store and writes its report
 * files; the other instance does not do it again.
 */
describe('the daily reconciliation job (two instances, one Redis)', () => {
  let s: Stack;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-reports-'));
  beforeAll(async () => {
    // 00:00: already past, whenever the test runs.
    s = await startStack({ store: 'redis', instances: 2, env: { RECONCILIATION_DAILY_AT: '00:00', RECONCILIATION_REPORT_DIR: dir, STORE_TIME_ZONE: 'UTC' } });
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes each store's report of the day before once, in JSON, CSV and the printout", async () => {
    const yesterday = localDate(Date.now() - 86_400_000, 'UTC');
    const expected = ['store-001', 'store-002'].flatMap((st) => ['csv', 'json', 'txt'].map((ext) => `reconciliation-${st}-${yesterday}.${ext}`));
    await waitFor('the report files', () => expected.every((f) => readdirSync(dir).includes(f)), 10_000);
    expect(readdirSync(dir).sort()).toEqual(expected.sort());
    const report = JSON.parse(readFileSync(path.join(dir, `reconciliation-store-001-${yesterday}.json`), 'utf8'));
    expect(report).toMatchObject({ storeId: 'store-001', window: { date: yesterday, timeZone: 'UTC' }, rows: [], anomalies: [] });
    expect(readFileSync(path.join(dir, `reconciliation-store-002-${yesterday}.txt`), 'utf8').split('\n')[0]).toBe('------- Reconciliation store-002 -------');
    const written = s.logs.filter((l) => l.includes('daily reconciliation written'));
    expect(written).toHaveLength(2);
    // Both instances had the job on; one took the day.
    expect(new Set(written.map((l) => (JSON.parse(l) as { instance: number }).instance)).size).toBe(1);
    expect(s.logs.filter((l) => l.includes('daily reconciliation on'))).toHaveLength(2);
  });
});

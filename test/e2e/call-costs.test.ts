import { readFileSync } from 'node:fs';
import path from 'node:path';
import { callCostTable, measureCallCosts, readmeCallCostTable } from '../../bench/lib/call-costs';
import { costStack, stackHarness } from '../support/call-costs';
import type { Stack } from '../support/e2e';

/**
 * The README's table of what each cashier action costs in calls to the
 * loyalty service, per published bucket, is what the sandbox counts now: one
 * action at a time, each for a new customer, background calls after the
 * answer included. Regenerate it with `npx tsx bench/call-costs.ts`.
 */
describe('calls per cashier action', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await costStack();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('are what the README says', async () => {
    const costs = await measureCallCosts(stackHarness(s), { prefix: 'cost' });
    const readme = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operator', 'performance.md'), 'utf8');
    expect(callCostTable(costs)).toBe(readmeCallCostTable(readme));
  }, 60_000);
});

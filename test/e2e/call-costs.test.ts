import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type CallCost, callCostTable, readmeCallCostTable, type SaleMode } from '../../bench/lib/call-costs';
import { measureBothModes } from '../support/call-costs';

/**
 * The README's table of what each cashier action costs in calls to the
 * loyalty service, per published bucket, is what the sandbox counts now, with
 * sales recorded as payments and as tracked orders (SALES_RECORDED_AS), both
 * measured side by side: one action at a time, each for a new customer,
 * background calls after the answer included. Regenerate it with
 * `npx tsx bench/call-costs.ts`.
 */
describe('calls per cashier action', () => {
  let costs: Record<SaleMode, CallCost[]>;
  beforeAll(async () => {
    costs = await measureBothModes({ prefix: 'cost' });
  }, 60_000);

  it('are what the README says, with sales recorded as payments and as orders', () => {
    const readme = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operator', 'performance.md'), 'utf8');
    expect(callCostTable(costs)).toBe(readmeCallCostTable(readme));
  });

  it('record a sale as a Transactions POST in payment mode and as an Orders call in order mode', () => {
    const sale = (mode: SaleMode) => costs[mode].find((c) => c.action === 'Payment, ?receipt=none');
    expect(sale('payment')).toMatchObject({ buckets: { transactionsWrite: 1 }, operations: ['payment'] });
    expect(sale('order')).toMatchObject({ buckets: { orders: 1 }, operations: ['trackOrder'] });
  });
});

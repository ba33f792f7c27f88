import { createMetrics } from '../../src/platform/metrics';
import { silentLogger } from '../../src/platform/logger';
import { trackKeyVerdicts } from '../../src/pos/metrics/loyalty-keys';
import { LoyaltyKeys } from '../../src/upstream';

const pair = (n: number) => ({ apiKey: `api-${n}`, secretKey: `secret-${n}` });
const scrape = async (keys: LoyaltyKeys) => {
  const metrics = createMetrics({ defaultMetrics: false });
  trackKeyVerdicts(keys, metrics);
  return metrics.render();
};

it('shows a series per configured slot only, 1 while refused, and whether the key in use works', async () => {
  const one = new LoyaltyKeys({ current: pair(1), logger: silentLogger });
  expect(await scrape(one)).toMatch(/pos_loyalty_key_refused\{slot="current"\} 0/);
  expect(await scrape(one)).not.toMatch(/slot="next"/);
  one.learn('current', 'refused', 'check');
  expect(await scrape(one)).toMatch(/pos_loyalty_key_refused\{slot="current"\} 1/);
  expect(await scrape(one)).toMatch(/pos_loyalty_key_usable 0/);

  const two = new LoyaltyKeys({ current: pair(1), next: pair(2), logger: silentLogger });
  two.learn('current', 'refused', 'check');
  two.learn('next', 'ok', 'check');
  const text = await scrape(two);
  expect(text).toMatch(/pos_loyalty_key_refused\{slot="next"\} 0/);
  expect(text).toMatch(/pos_loyalty_key_usable 1/);
  expect(text).not.toMatch(/secret-|api-/);
});

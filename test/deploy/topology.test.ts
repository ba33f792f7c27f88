import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PUBLISHED_LIMITS } from '../../src/contract';
import { silentLogger } from '../../src/platform/logger';
import { connectRedis, waitForRedis } from '../../src/platform/redis';
import { upstream } from '../../src/platform/settings';
import { settingsIn } from '../../src/platform/settings/define';
import { RedisBudget, type Reservation } from '../../src/upstream/policies';
import { rules } from '../upstream/policies/budget-rules';
import { deleteKeys } from '../support/redis';

/**
 * docs/operator/topology.md: why a Redis per store is not a layout. Two data sets are two key
 * prefixes on the test Redis here: for the budget's keys, the same as two servers.
 */
const prefix = `test:topology:${randomUUID().slice(0, 8)}:`;
const clients: Redis[] = [];
const budget = async (dataSet: string) => {
  const redis = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
  await waitForRedis(redis, 5000);
  clients.push(redis);
  return new RedisBudget(redis, { prefix: `${prefix}${dataSet}:`, rules: rules({ rate: 0, quota: 12 }, { reserves: [0, 0] }), logger: silentLogger });
};
const granted = (rs: Reservation[]) => rs.filter((r) => r.ok).length;

afterAll(async () => {
  await deleteKeys(clients[0], prefix);
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
});

it('two fleets on separate data sets each take the whole quota: together twice what the account allows', async () => {
  const [storeA, storeB] = [await budget('store-a'), await budget('store-b')];
  const calls = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? storeA : storeB).reserve('transactionsWrite', 'cashier')));
  expect(granted(calls)).toBe(24);
});

it('the same two on one data set share it', async () => {
  const [a, b] = [await budget('one'), await budget('one')];
  const calls = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).reserve('transactionsWrite', 'cashier')));
  expect(granted(calls)).toBe(12);
});

it("each fleet's budget is, by default, the account's published figures (Transactions POST: 30 per second, 360 per 30 s)", () => {
  expect(PUBLISHED_LIMITS.transactionsWrite).toMatchObject({ rate: 30, quota: 360 });
  const parse = (variable: string) => settingsIn(upstream.settings).find((s) => s.variable === variable)!;
  expect(parse('UPSTREAM_RATE_TRANSACTIONS_WRITE').schema.parse(undefined)).toBe(30);
  expect(parse('UPSTREAM_QUOTA_TRANSACTIONS_WRITE').schema.parse(undefined)).toBe(360);
});

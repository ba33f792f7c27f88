import type { CallCost } from '../../bench/lib/call-costs';
import { capacityOf, mostAllowed } from '../../bench/scenarios/peak';

/** The peak-day scenario's arithmetic: the account's capacity from the published limits and the calls per checkout. */
const row = (action: string, buckets: CallCost['buckets']): CallCost => ({ action, buckets, operations: [] });
const costs = (points: CallCost['buckets'], start: CallCost['buckets'] = { transactionsWrite: 1, transactionsRead: 1 }) => [
  row('Start redemption, QR code (hold)', start),
  row('Payment with redemption (receipt)', points),
  row('Payment (receipt)', { transactionsWrite: 1, customersRead: 2 }),
];

it('is set by the bucket that runs out first: transaction writes, 360 per 30 s over 1.5 a checkout = 8 a second', () => {
  const c = capacityOf(costs({ transactionsWrite: 1, customersRead: 2 }));
  expect(c.bucket).toBe('transactionsWrite');
  expect(c.perSecond).toBe(8);
  expect(c.perCheckout).toEqual({ transactionsWrite: 1.5, transactionsRead: 0.5, customersRead: 2 });
});

it('moves to another bucket when a checkout spends more there', () => {
  // Ten customer reads per payment: 1200 per 30 s over 10 a checkout = 4 a second, below the writes' 8.
  const c = capacityOf([
    ...costs({ transactionsWrite: 1, customersRead: 10 }).slice(0, 2),
    row('Payment (receipt)', { transactionsWrite: 1, customersRead: 10 }),
  ]);
  expect(c.bucket).toBe('customersRead');
  expect(c.perSecond).toBe(4);
});

it('the most a bucket lets through from an empty window: its quota once per started window, at most its rate', () => {
  expect(mostAllowed('transactionsWrite', 60)).toBe(720);
  expect(mostAllowed('transactionsWrite', 20)).toBe(360);
  expect(mostAllowed('transactionsWrite', 61)).toBe(1080);
  expect(mostAllowed('transactionsWrite', 5)).toBe(150);
});

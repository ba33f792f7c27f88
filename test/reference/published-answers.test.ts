import { OPERATIONS, type OperationId } from '../../src/contract';
import { asTrackedOrder, LoyaltyClient } from '../../src/upstream';
import { batchRequest, eventRequest, holdRequest, otpRequest, paymentRequest, refundRequest } from '../upstream/fixtures';
import { json, makeClient, useTestUpstream } from '../upstream/test-upstream';
import { publishedAnswers } from './examples';

/**
 * Every published 2xx answer of the operations the BFF calls, served over
 * real HTTP to the client, is read without `upstream_invalid_response`.
 */

const upstream = useTestUpstream();
let client: LoyaltyClient;
beforeEach(() => {
  client = makeClient(upstream).client;
});
afterEach(() => client.close());

type Call = (c: LoyaltyClient) => Promise<unknown>;

/**
 * Operations of OPERATIONS the client never calls, and why; every other
 * operation must have its call in CALLS (the coverage test below fails
 * otherwise), so a new operation cannot go without its published answers
 * checked.
 */
const NOT_CALLED: Partial<Record<OperationId, string>> = {
  deleteCustomerPost:
    'the client deletes with DELETE /customers/{customerId}; the POST form is only for callers that cannot send DELETE (and the reference does not publish it)',
  couponBurn: 'the client has no method for it: the BFF never burns coupons itself',
};

/** One call per operation the client makes; each published answer of the operation is served to it. */
const CALLS: Partial<Record<OperationId, Call>> = {
  hold: (c) => c.hold(holdRequest),
  holdLookup: (c) => c.holdLookup('h-1'),
  holdCancel: (c) => c.holdCancel('h-1'),
  otp: (c) => c.otp(otpRequest),
  payment: (c) => c.payment(paymentRequest),
  trackOrder: (c) => c.trackOrder(asTrackedOrder(paymentRequest)),
  redeem: (c) => c.redeem({ customerId: 'c-1', transactionId: 't-1', transactionTime: '2025-03-01T10:00:00Z', points: 10 }),
  refund: (c) => c.refund(refundRequest),
  coupons: (c) => c.coupons('c-1'),
  tierProgress: (c) => c.tierProgress('c-1'),
  balance: (c) => c.balance('c-1'),
  hash: (c) => c.hash('c-1'),
  deleteCustomer: (c) => c.deleteCustomer('c-1'),
  events: (c) => c.events(eventRequest),
  batchOrders: (c) => c.batchOrders(batchRequest),
  batchStatus: (c) => c.batchStatus(42),
  upsertCustomer: (c) => c.upsertCustomer({ customerId: 'c-1' }),
  couponsValidate: (c) => c.couponsValidate({ customerId: 'c-1', coupons: ['TEN'], lock: true }),
  couponValidate: (c) => c.couponValidate('TEN', { customerId: 'c-1', lock: true }),
  // Resolves to nothing: done is what "read" means here.
  couponRelease: async (c) => {
    await c.couponRelease('lock-1');
    return 'released';
  },
  rewardPreview: (c) => c.rewardPreview({ customerId: 'c-1', totalPaid: 20 }),
  orderTransactions: (c) => c.orderTransactions('o-1'),
  transactions: (c) => c.transactions({ customerId: 'c-1' }),
  redemptionConfig: (c) => c.redemptionConfig(),
};

/** The operation's method and path as the fixture spells them (`{name}` for `:name`). */
function route(id: OperationId): [method: string, path: string] {
  const op = OPERATIONS[id];
  return [op.method.toLowerCase(), op.path.replace(/:([A-Za-z]+)/g, '{$1}')];
}

const ids = Object.keys(CALLS) as OperationId[];
const cases = ids.flatMap((id) => {
  const [method, p] = route(id);
  return publishedAnswers(method, p).map((a) => [`${id}: ${method.toUpperCase()} ${p} ${a.status} ${a.name}`, a.body, CALLS[id] as Call] as const);
});

/**
 * Operations whose published answer has no example values at all (only a
 * schema, or for OTP not even that); prism-walkthrough.test.ts serves
 * prism's samples of some of them.
 */
const WITHOUT_EXAMPLES: OperationId[] = [
  'otp',
  'coupons',
  'hash',
  'batchOrders',
  'batchStatus',
  'upsertCustomer',
  'couponsValidate',
  'couponValidate',
  'couponRelease',
];

describe('coverage', () => {
  it('has a call for every operation of OPERATIONS but those listed, with a reason, as not called', () => {
    const expected = (Object.keys(OPERATIONS) as OperationId[]).filter((id) => !(id in NOT_CALLED));
    expect([...ids].sort()).toEqual([...expected].sort());
  });

  it('lists as not called only operations the client has no method for', () => {
    const methods = new Set(Object.getOwnPropertyNames(LoyaltyClient.prototype));
    expect(Object.keys(NOT_CALLED).filter((id) => methods.has(id) || !(id in OPERATIONS))).toEqual([]);
  });

  it('checks a published answer of every operation called that publishes an example', () => {
    const covered = new Set(cases.map(([name]) => name.split(':')[0]));
    expect(ids.filter((id) => !covered.has(id)).sort()).toEqual([...WITHOUT_EXAMPLES].sort());
  });
});

it.each(cases)('%s is read', async (_name, body, call) => {
  upstream.script(body === undefined ? (res) => res.writeHead(200).end() : json(200, body));
  await expect(call(client)).resolves.toBeDefined();
  expect(upstream.seen).toHaveLength(1);
});

describe('what the published examples mean to the BFF', () => {
  const serve = (method: string, p: string, name = 'property examples') => {
    const a = publishedAnswers(method, p).find((x) => x.name === name);
    if (!a) throw new Error(`no ${name} for ${method} ${p}`);
    upstream.script(json(200, a.body));
  };

  it('a hold of "5" is 5', async () => {
    serve('post', '/transactions/hold');
    await expect(client.hold(holdRequest)).resolves.toMatchObject({
      holdAmount: 5,
      holdEquivalentPoints: 50,
      holdReference: 'a2a199ad-86f3-45c4-8253-7aaee50e4798',
    });
  });

  it('a hold look-up expiry without an offset is UTC, and "2" is 2', async () => {
    serve('get', '/transactions/hold/{holdReferenceId}');
    await expect(client.holdLookup('h-1')).resolves.toMatchObject({ dateToExpire: Date.UTC(2024, 9, 16, 8, 11, 24, 675), holdAmount: 2, state: 'active' });
  });

  it('a balance without customerId is read', async () => {
    serve('get', '/customers/{customerId}/balance', 'example');
    const b = await client.balance('c-1');
    expect(b.customerId).toBeUndefined();
    expect(b).toMatchObject({ availablePointsBalance: 1200, currency: 'USD' });
  });

  it('a reward preview is read with its points', async () => {
    serve('post', '/orders/reward-preview', 'examples.sample');
    await expect(client.rewardPreview({ customerId: 'c-1', totalPaid: 20 })).resolves.toMatchObject({
      totalPoints: 270,
      cashback: { totalPoints: 120, lineItems: [{ productId: 'P-100', totalPoints: 120 }] },
    });
  });

  it("an order's transactions are read", async () => {
    serve('get', '/orders/{orderId}/transactions');
    await expect(client.orderTransactions('o-1')).resolves.toMatchObject({
      transactions: [{ transactionType: 'PaymentReward', transactionId: 'ORD12345', amount: 250.75, equivalentPoints: 192 }],
    });
  });

  it("a customer's transactions are read with the merchant and branch they carried", async () => {
    serve('get', '/transactions');
    const page = await client.transactions({ customerId: 'cust_12345abc' });
    expect(page.transactions.length).toBeGreaterThan(0);
    expect(page.transactions[0]).toMatchObject({ transactionId: 'txn123456', customerId: 'cust_12345abc', type: 'Cancel' });
    expect(page.transactions[0]).toHaveProperty('merchantName');
    expect(page.transactions[0]).toHaveProperty('branchName');
  });

  it('a redemption configuration is read with its rule', async () => {
    serve('get', '/configurations/redemption');
    await expect(client.redemptionConfig()).resolves.toMatchObject({
      redemptionFactor: 0.1,
      redemptionRules: [{ id: '2138', pointsToRedeem: 100, valueOfPoint: 25, isActive: true }],
    });
  });

  it('a delete answered 200 with no body, or {}, is done', async () => {
    upstream.script((res) => res.writeHead(200).end(), json(200, {}));
    await expect(client.deleteCustomer('c-1')).resolves.toEqual({});
    await expect(client.deleteCustomer('c-1')).resolves.toEqual({});
  });
});

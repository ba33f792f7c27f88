import { loadSandboxAccounts, startSandbox, StartedSandbox } from '../../src/sandbox';
import type { AccountSettingsInput } from '../../src/sandbox';
import { conformance, PREFIX, schemaProblems, PUBLISHED_CATEGORY, PUBLISHED_STATUS, publishedRequest } from './sandbox-published';

/**
 * The sandbox against the PUBLISHED v4.0 reference (the committed fixture),
 * over real HTTP: every 2xx answer validates against the published response
 * schema with every documented property present, every error carries the
 * published body with the published status and category, and every
 * published request example is accepted.
 */

const KEYS = { apikey: 'ref_api_key', secretkey: 'ref_secret_key' };
const T = '2025-06-01T10:00:00.000Z';

function account(overrides: Partial<AccountSettingsInput> = {}): AccountSettingsInput {
  const demo = loadSandboxAccounts('config/sandbox-accounts.json')[0];
  return {
    ...demo,
    apiKey: KEYS.apikey,
    secretKey: KEYS.secretkey,
    seedCustomers: [],
    // A rule with a numeric id, as the reference numbers them (the OTP request types ruleId as an integer).
    redemptionRules: [...demo.redemptionRules!, { id: '2138', type: 'fixed_discount', name: '5 off', pointsCost: 50, value: 5 }],
    // The coupon the published payment example names.
    coupons: [
      ...(demo.coupons ?? []),
      { code: 'DISCOUNT10', name: '10 off', value: 10, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-01-01T00:00:00Z' },
    ],
    ...overrides,
  } as AccountSettingsInput;
}

let sbx: StartedSandbox;

beforeAll(async () => {
  sbx = await startSandbox({ accounts: [account()], startTime: Date.parse(T), frozenClock: true, logger: undefined });
});
afterAll(async () => {
  await sbx?.close();
});
beforeEach(async () => {
  expect((await call('POST', '/_sandbox/reset', {}, '')).status).toBe(200);
});

interface Answer {
  status: number;
  body: any;
  text: string;
  requestId: string | null;
}

async function call(method: string, p: string, body?: unknown, prefix = PREFIX, headers: Record<string, string> = KEYS): Promise<Answer> {
  const res = await fetch(sbx.url + prefix + p, {
    method,
    headers: {
      ...headers,
      ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...(typeof body === 'string' ? { 'content-type': 'text/plain' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, requestId: res.headers.get('x-request-id') };
}

const seed = async (customerId: string, points: number) =>
  expect((await call('POST', '/_sandbox/customers', { customerId, points }, '')).status).toBeLessThan(300);
const hashOf = async (customerId: string) => (await call('GET', `/customers/${customerId}/hash`)).body.hash as string;

/** A 2xx answer that conforms to the published schema of `method path` (the fixture's templated path). */
function expectPublished(answer: Answer, method: string, templated: string) {
  if (answer.status !== 200) throw new Error(`expected 200 from ${method} ${templated}, got ${answer.status} ${answer.text}`);
  expect(conformance(method, templated, answer.body)).toEqual([]);
}

/** An error answer in the published shape, status and category. */
function expectPublishedError(answer: Answer, code: number) {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status: PUBLISHED_STATUS[code] ?? code, code });
  expect(answer.body).toEqual({
    code,
    type: PUBLISHED_CATEGORY[Math.floor(code / 1000)],
    message: expect.any(String),
    documentationUrl: expect.stringMatching(/^https:\/\/\S+$/),
    requestId: answer.requestId,
    // The sandbox's own addition: which rule failed.
    reason: expect.any(String),
  });
  expect(answer.body.message.length).toBeGreaterThan(0);
}

describe('sandbox 2xx answers validate against the published response schemas, every documented field present', () => {
  it('the check itself refuses an answer missing a documented field or of the wrong type', () => {
    const balance = {
      totalPointsBalance: 1,
      totalPointsValue: 1,
      availablePointsBalance: 1,
      availablePointsValue: 1,
      pendingPoints: 0,
      pendingPointsValue: 0,
      currency: 'EGP',
      pointsName: 'P',
      nextExpiringPointsAmount: 0,
      nextExpiringPointsValue: 0,
      nextExpiringPointsDate: '',
      totalEarnedPoints: 1,
    };
    expect(conformance('get', '/customers/{customerId}/balance', balance)).toEqual([]);
    const { nextExpiringPointsDate: _absent, ...without } = balance;
    expect(conformance('get', '/customers/{customerId}/balance', without)).toEqual(['nextExpiringPointsDate is documented but absent']);
    expect(conformance('get', '/customers/{customerId}/balance', { ...balance, totalPointsBalance: '1' })).toEqual(['/totalPointsBalance must be number']);
  });

  it('hold, hold lookup (active, used, released), hold release', async () => {
    await seed('h-1', 1000);
    const hold = await call('POST', '/transactions/hold', { customerId: 'h-1', transactionTime: T, pointsToHold: 200, hash: await hashOf('h-1') });
    expectPublished(hold, 'post', '/transactions/hold');
    expect(typeof hold.body.holdAmount).toBe('number');
    const ref = hold.body.holdReference;

    const active = await call('GET', `/transactions/hold/${ref}`);
    expectPublished(active, 'get', '/transactions/hold/{holdReferenceId}');
    expect(active.body.state).toBe('active');

    const released = await call('DELETE', `/transactions/hold/${ref}`);
    expectPublished(released, 'delete', '/transactions/hold/{holdReferenceId}');
    const after = await call('GET', `/transactions/hold/${ref}`);
    expectPublished(after, 'get', '/transactions/hold/{holdReferenceId}');
    // Within the published states (Active, Expired, Used): a released hold reads as expired.
    expect(after.body.state).toBe('expired');

    const second = await call('POST', '/transactions/hold', { customerId: 'h-1', transactionTime: T, amountToHold: 5 });
    expectPublished(second, 'post', '/transactions/hold');
    await call('POST', '/payments', {
      customerId: 'h-1',
      paymentId: 'h-pay',
      paymentDate: T,
      totalPaid: 50,
      redemption: { pointsHoldReference: second.body.holdReference },
    });
    const used = await call('GET', `/transactions/hold/${second.body.holdReference}`);
    expectPublished(used, 'get', '/transactions/hold/{holdReferenceId}');
    expect(used.body.state).toBe('used');
  });

  it('payment (itemised and not) and refund', async () => {
    await seed('p-1', 0);
    const itemised = await call('POST', '/payments', {
      customerId: 'p-1',
      paymentId: 'p-1-sale',
      paymentDate: T,
      totalPaid: 150,
      paymentDetails: [
        { serviceId: 'sku-1', amount: 100, category: ['electronics'] },
        { serviceId: 'sku-2', amount: 50 },
      ],
    });
    expectPublished(itemised, 'post', '/payments');
    expect(itemised.body.paymentDetails).toHaveLength(2);
    expectPublished(await call('POST', '/payments', { customerId: 'p-1', paymentId: 'p-1-plain', paymentDate: T, totalPaid: 20 }), 'post', '/payments');
    expectPublished(
      await call('POST', '/transactions/refund', {
        customerId: 'p-1',
        refundTransactionId: 'p-1-ref',
        reverseTransactionId: 'p-1-sale',
        transactionTime: T,
        refundAmount: 50,
      }),
      'post',
      '/transactions/refund',
    );
  });

  it('track order (itemised and not, with a hold), redeem (by points and by hold), and the refund of an order by its id', async () => {
    await seed('o-1', 1000);
    const hold = await call('POST', '/transactions/hold', { customerId: 'o-1', transactionTime: T, pointsToHold: 100 });
    const itemised = await call('POST', '/orders', {
      customerId: 'o-1',
      orderId: 'o-1-sale',
      orderDate: T,
      totalPaid: 90,
      totalPrice: 100,
      lineItems: [{ productId: 'sku-1', price: 100, quantity: 1, discount: 10, category: ['electronics'] }],
      redemption: { pointsHoldReference: hold.body.holdReference },
    });
    expectPublished(itemised, 'post', '/orders');
    expect(itemised.body).toMatchObject({ redeemedPoints: 100, rewardedPoints: 180, lineItems: [{ productId: 'sku-1', points: 180 }] });
    expectPublished(await call('POST', '/orders', { customerId: 'o-1', orderId: 'o-1-plain', orderDate: T, totalPaid: 20 }), 'post', '/orders');
    expectPublished(
      await call('POST', '/transactions/refund', {
        customerId: 'o-1',
        refundTransactionId: 'o-1-ref',
        reverseTransactionId: 'o-1-sale',
        transactionTime: T,
        refundAmount: 45,
      }),
      'post',
      '/transactions/refund',
    );
    expectPublished(
      await call('POST', '/transactions/redeem', { customerId: 'o-1', transactionId: 'o-1-rdm', transactionTime: T, points: 50, reason: 'Discount' }),
      'post',
      '/transactions/redeem',
    );
    const second = await call('POST', '/transactions/hold', { customerId: 'o-1', transactionTime: T, amountToHold: 5 });
    const byHold = await call('POST', '/transactions/redeem', {
      customerId: 'o-1',
      transactionId: 'o-1-rdm2',
      transactionTime: T,
      holdReference: second.body.holdReference,
      reason: 'Hold',
    });
    expectPublished(byHold, 'post', '/transactions/redeem');
    expect(byHold.body).toMatchObject({ redeemAmount: 5, redeemEquivalentPoints: 50 });
    expectPublished(await call('GET', '/orders/o-1-rdm/transactions'), 'get', '/orders/{orderId}/transactions');
  });

  it("a customer's transactions list: a payment and its refund, with the merchant and branch each carried", async () => {
    await seed('t-1', 0);
    const merchant = { uniqueId: 'm-1', name: 'Demo Retail', branch: { uniqueId: 'b-1', name: 'Downtown' } };
    expect((await call('POST', '/payments', { customerId: 't-1', paymentId: 't-1-sale', paymentDate: T, totalPaid: 80, merchant })).status).toBe(200);
    const refunded = await call('POST', '/transactions/refund', {
      customerId: 't-1',
      refundTransactionId: 't-1-ref',
      reverseTransactionId: 't-1-sale',
      transactionTime: T,
      refundAmount: 30,
      merchant,
    });
    expect(refunded.status).toBe(200);
    const list = await call('GET', '/transactions?customerId=t-1');
    expect(list.status).toBe(200);
    expect(schemaProblems('get', '/transactions', list.body)).toEqual([]);
    // Coupon and achievement fields, an expiry and the balances around it do not apply to the payments and refunds the sandbox lists.
    const notApplicable = [
      'couponCode',
      'isCouponUsed',
      'couponType',
      'reason',
      'achievementName',
      'expiryDate',
      'pointsBalanceBefore',
      'pointsBalanceAfter',
      'achievementType',
      'achievedRewardCampaignId',
      'achievedTierId',
    ];
    const absent = conformance('get', '/transactions', list.body).filter(
      (m) => !notApplicable.some((f) => m === `transactions.0.${f} is documented but absent` || m === `transactions.1.${f} is documented but absent`),
    );
    expect(absent).toEqual([]);
    expect(list.body).toMatchObject({
      count: 2,
      hasMore: false,
      transactions: [
        {
          transactionId: 't-1-sale',
          type: 'PaymentReward',
          direction: '+',
          amount: 80,
          customerId: 't-1',
          merchantName: 'Demo Retail',
          branchName: 'Downtown',
        },
        { transactionId: 't-1-ref', type: 'Refund', direction: '-', amount: 30, merchantName: 'Demo Retail', branchName: 'Downtown' },
      ],
    });
    const first = await call('GET', '/transactions?customerId=t-1&limit=1');
    expect(first.body).toMatchObject({ count: 1, hasMore: true, transactions: [{ transactionId: 't-1-sale' }] });
    const next = await call('GET', `/transactions?customerId=t-1&limit=1&startAfter=${first.body.transactions[0].gameballTransactionId}`);
    expect(next.body).toMatchObject({ count: 1, hasMore: false, transactions: [{ transactionId: 't-1-ref' }] });
    // A startAfter naming no transaction of the list is an empty page, not the first page again (a reader would loop).
    expect((await call('GET', '/transactions?customerId=t-1&limit=1&startAfter=999999')).body).toEqual({ transactions: [], count: 0, hasMore: false });
    expect((await call('GET', '/transactions?customerId=nobody')).body).toEqual({ transactions: [], count: 0, hasMore: false });
  });

  it('customer create and update, balance, hash, coupons, tier progress (below the top and at it), delete', async () => {
    const created = await call('POST', '/customers', {
      customerId: 'c-new',
      email: 'c-new@example.com',
      customerAttributes: { displayName: 'C New', mobile: '+201000000009', channel: 'pos' },
    });
    expectPublished(created, 'post', '/customers');
    const updated = await call('POST', '/customers', { customerId: 'c-new', customerAttributes: { city: 'Alexandria' } });
    expectPublished(updated, 'post', '/customers');
    expect(updated.body.gameballId).toBe(created.body.gameballId);
    await seed('c-1', 300);
    expectPublished(await call('GET', '/customers/c-1/balance'), 'get', '/customers/{customerId}/balance');
    expectPublished(await call('GET', '/customers/c-1/hash'), 'get', '/customers/{customerId}/hash');
    const coupons = await call('GET', '/customers/c-1/coupons');
    expectPublished(coupons, 'get', '/customers/{customerId}/coupons');
    expect(coupons.body.coupons.length).toBeGreaterThan(0);

    expectPublished(await call('GET', '/customers/c-1/tier-progress'), 'get', '/customers/{customerId}/tier-progress');
    expectPublished(await call('GET', '/customers/c-1/tier-progress?expand=tier,referrals'), 'get', '/customers/{customerId}/tier-progress');
    await call('POST', '/payments', { customerId: 'c-1', paymentId: 'c-1-big', paymentDate: T, totalPaid: 6000 });
    const top = await call('GET', '/customers/c-1/tier-progress');
    expectPublished(top, 'get', '/customers/{customerId}/tier-progress');
    expect(top.body.next).toEqual(top.body.current);

    // Published as a bare 200.
    const del = await call('DELETE', '/customers/c-1');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    await seed('c-2', 1);
    expect((await call('POST', '/customers/c-2/delete')).status).toBe(200);
  });

  it('events (nested metadata), batch orders and batch status while pending and when completed', async () => {
    const ev = await call('POST', '/events', {
      customerId: 'e-1',
      events: { place_order: { order: { id: 'o-1', lines: [{ sku: 'a', qty: 2 }] }, total: 10 } },
    });
    expectPublished(ev, 'post', '/events');

    const orders = Array.from({ length: 120 }, (_, i) => ({ customerId: `b-${i % 3}`, orderId: `b-o${i}`, orderDate: T, totalPaid: 10 }));
    orders.push({ ...orders[0] }); // a duplicate, so `errors` has an entry
    const batch = await call('POST', '/batch/orders', { body: orders });
    expectPublished(batch, 'post', '/batch/orders');
    const early = await call('GET', `/batches/${batch.body.jobId}/status`);
    expectPublished(early, 'get', '/batches/{batchId}/status');
    expect(['pending', 'processing', 'completed']).toContain(early.body.status);
    let done = early;
    for (let i = 0; i < 200 && done.body.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 5));
      done = await call('GET', `/batches/${batch.body.jobId}/status`);
    }
    expectPublished(done, 'get', '/batches/{batchId}/status');
    expect(done.body).toMatchObject({
      batchId: String(batch.body.jobId),
      status: 'completed',
      progress: 100,
      totalItems: 121,
      processedItems: 121,
      failedItems: 1,
    });
    expect(done.body.errors).toEqual([expect.objectContaining({ orderId: 'b-o0', code: 9004 })]);
  });
});

describe('sandbox error answers carry the published body, status, code and category', () => {
  it('401 without the apikey (1000) and without the secret key (1001)', async () => {
    expectPublishedError(await call('GET', '/customers/x/balance', undefined, PREFIX, {}), 1000);
    expectPublishedError(await call('GET', '/customers/x/balance', undefined, PREFIX, { apikey: KEYS.apikey }), 1001);
  });

  it('400 for a body that is not JSON (3016) or misses a field (3000); 422 for null on a required field (3001) or a bad value (3003)', async () => {
    expectPublishedError(await call('POST', '/payments', 'not json'), 3016);
    expectPublishedError(await call('POST', '/payments', { paymentId: 'x', paymentDate: T, totalPaid: 1 }), 3000);
    const nul = await call('POST', '/payments', { customerId: null, paymentId: 'x', paymentDate: T, totalPaid: 1 });
    expectPublishedError(nul, 3001);
    expect(nul.body.message).toContain('customerId');
    expectPublishedError(await call('POST', '/payments', { customerId: 'x', paymentId: 'x', paymentDate: 'yesterday', totalPaid: 1 }), 3003);
  });

  it('404 for an unknown customer (7000), hold (9006), reversed transaction (9005), batch (4004)', async () => {
    expectPublishedError(await call('GET', '/customers/nobody/balance'), 7000);
    expectPublishedError(await call('GET', '/transactions/hold/no-such-hold'), 9006);
    await seed('r-1', 0);
    expectPublishedError(
      await call('POST', '/transactions/refund', { customerId: 'r-1', refundTransactionId: 'r', reverseTransactionId: 'nope', transactionTime: T }),
      9005,
    );
    expectPublishedError(await call('GET', '/batches/424242/status'), 4004);
  });

  it('422 for a duplicate order id or redeem transaction id (9004) and a redemption past the balance (9008)', async () => {
    await seed('t-2', 100);
    expect((await call('POST', '/orders', { customerId: 't-2', orderId: 'dup-o', orderDate: T, totalPaid: 1 })).status).toBe(200);
    expectPublishedError(await call('POST', '/orders', { customerId: 't-2', orderId: 'dup-o', orderDate: T, totalPaid: 1 }), 9004);
    const redeem = { customerId: 't-2', transactionId: 'dup-r', transactionTime: T, points: 60 };
    expect((await call('POST', '/transactions/redeem', redeem)).status).toBe(200);
    expectPublishedError(await call('POST', '/transactions/redeem', redeem), 9004);
    expectPublishedError(await call('POST', '/transactions/redeem', { ...redeem, transactionId: 'short' }), 9008);
    expectPublishedError(await call('POST', '/transactions/redeem', { ...redeem, transactionId: 'no-hold', points: undefined, holdReference: 'nope' }), 9006);
  });

  it('422 for insufficient points (9008), a duplicate transaction id (9004), a hold already released (9001)', async () => {
    await seed('t-1', 100);
    expectPublishedError(await call('POST', '/transactions/hold', { customerId: 't-1', transactionTime: T, pointsToHold: 500 }), 9008);
    expect((await call('POST', '/payments', { customerId: 't-1', paymentId: 'dup', paymentDate: T, totalPaid: 1 })).status).toBe(200);
    expectPublishedError(await call('POST', '/payments', { customerId: 't-1', paymentId: 'dup', paymentDate: T, totalPaid: 1 }), 9004);
    const hold = await call('POST', '/transactions/hold', { customerId: 't-1', transactionTime: T, pointsToHold: 10 });
    expect((await call('DELETE', `/transactions/hold/${hold.body.holdReference}`)).status).toBe(200);
    expectPublishedError(await call('DELETE', `/transactions/hold/${hold.body.holdReference}`), 9001);
  });
});

describe('every published request example is accepted, nulls included', () => {
  it('hold (the hash is per customer, so the live one replaces the example value)', async () => {
    const example = publishedRequest('post', '/transactions/hold');
    expect(example).toMatchObject({ amountToHold: null, ruleId: null });
    await seed(example.customerId as string, 1000);
    expectPublished(await call('POST', '/transactions/hold', { ...example, hash: await hashOf(example.customerId as string) }), 'post', '/transactions/hold');
  });

  it('OTP, and an OTP naming a rule by its integer id', async () => {
    const example = publishedRequest('post', '/transactions/otp');
    expect(example).toMatchObject({ points: null, ruleId: null });
    await seed(example.customerId as string, 1000);
    const sent = await call('POST', '/transactions/otp', example);
    // The reference documents no answer body for OTP: only the status is checked.
    expect(sent.status).toBe(200);
    expect((await call('POST', '/transactions/otp', { customerId: example.customerId, ruleId: 2138 })).status).toBe(200);
  });

  it('payment (the hold and lock references are state, so a live hold and a live lock of the example customer replace them)', async () => {
    const example = publishedRequest('post', '/payments') as any;
    await seed(example.customerId, 1000);
    const hold = await call('POST', '/transactions/hold', { customerId: example.customerId, transactionTime: T, pointsToHold: 100 });
    const redemption = { ...example.redemption, pointsHoldReference: hold.body.holdReference };
    if (example.redemption?.couponsLockReference) {
      const lock = await call('POST', '/coupons/validate', { customerId: example.customerId, coupons: example.redemption.couponCodes, lock: true });
      expect(lock.status).toBe(200);
      redemption.couponsLockReference = lock.body.lockReference;
    }
    const answer = await call('POST', '/payments', { ...example, redemption });
    expectPublished(answer, 'post', '/payments');
    expect(answer.body.redeemedPoints).toBe(100);
  });

  it('refund (of a payment made first under the example ids)', async () => {
    const example = publishedRequest('post', '/transactions/refund') as any;
    expect(
      (await call('POST', '/payments', { customerId: example.customerId, paymentId: example.reverseTransactionId, paymentDate: T, totalPaid: 100 })).status,
    ).toBe(200);
    expectPublished(await call('POST', '/transactions/refund', example), 'post', '/transactions/refund');
  });

  it('events', async () => {
    expectPublished(await call('POST', '/events', publishedRequest('post', '/events')), 'post', '/events');
  });

  it('track order (its hold and lock references are state: a live hold and a live lock of the example customer replace them)', async () => {
    const example = publishedRequest('post', '/orders') as any;
    expect(example.redemption).toMatchObject({ pointsHoldReference: expect.any(String), couponsLockReference: expect.any(String) });
    await seed(example.customerId, 1000);
    const hold = await call('POST', '/transactions/hold', { customerId: example.customerId, transactionTime: T, pointsToHold: 100 });
    const lock = await call('POST', '/coupons/validate', { customerId: example.customerId, coupons: example.redemption.couponCodes, lock: true });
    expect(lock.status).toBe(200);
    const redemption = { ...example.redemption, pointsHoldReference: hold.body.holdReference, couponsLockReference: lock.body.lockReference };
    const answer = await call('POST', '/orders', { ...example, redemption });
    expectPublished(answer, 'post', '/orders');
    expect(answer.body).toMatchObject({ customerId: example.customerId, redeemedPoints: 100 });
  });

  it('redeem (with the live hash of the example customer; the example leaves points out with 0 and holdReference with null)', async () => {
    const example = publishedRequest('post', '/transactions/redeem') as any;
    expect(example).toMatchObject({ points: 0, holdReference: null });
    await seed(example.customerId, 1000);
    const answer = await call('POST', '/transactions/redeem', { ...example, hash: await hashOf(example.customerId) });
    expectPublished(answer, 'post', '/transactions/redeem');
    expect(answer.body).toMatchObject({ transactionId: example.transactionId, redeemAmount: example.amount, reason: example.reason });
  });
});

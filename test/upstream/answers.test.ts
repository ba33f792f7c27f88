import { asTrackedOrder, type LoyaltyClient } from '../../src/upstream';
import { CouponsValidateAnswer, OrderTransactionsAnswer, RedemptionConfigAnswer } from '../../src/upstream/coupon-answers';
import { holdRequest, paymentRequest, tier } from './fixtures';
import { failure, json, makeClient, useTestUpstream } from './test-upstream';

/** The client as a tolerant reader (src/upstream/answers.ts), over real HTTP. */

const upstream = useTestUpstream();
let client: LoyaltyClient;
let lines: string[];
beforeEach(() => {
  ({ client, lines } = makeClient(upstream));
});
afterEach(() => client.close());

const unusable = () => lines.filter((l) => l.includes('loyalty answer unusable'));

describe('batch job status', () => {
  it('reads the published shape: pending is queued, failures from errors and failed results, with codes only', async () => {
    upstream.script(
      json(200, {
        batchId: '42',
        status: 'processing',
        progress: 50,
        totalItems: 4,
        processedItems: 2,
        failedItems: 1,
        results: [
          { orderId: 'o-1', success: true },
          { orderId: 'o-2', customerId: 'c-2', success: false, error: { code: 9004, message: 'Duplicate order o-2 (internal ref 77)' } },
        ],
        errors: [{ orderId: 'o-3', code: '7000', message: 'Customer c-3 missing' }, 'something odd'],
      }),
      json(200, { batchId: '43', status: 'pending', progress: 0, totalItems: 1, processedItems: 0, failedItems: 0, results: [], errors: [] }),
    );
    const s = await client.batchStatus(42);
    expect(s).toEqual({
      status: 'running',
      total: 4,
      processed: 2,
      failed: 1,
      succeeded: 1,
      failures: [{ orderId: 'o-2', customerId: 'c-2', code: 9004 }, { orderId: 'o-3', customerId: undefined, code: 7000 }, {}],
    });
    // The upstream's own words never leave the client.
    expect(JSON.stringify(s)).not.toMatch(/Duplicate|missing|internal/);
    expect((await client.batchStatus(43)).status).toBe('queued');
  });

  it("reads our sandbox's earlier shape", async () => {
    upstream.script(
      json(200, {
        jobId: 42,
        status: 'completed',
        total: 2,
        processed: 2,
        succeeded: 1,
        failed: 1,
        results: [
          { index: 0, orderId: 'o-1', customerId: 'c-1', success: true, rewardedPoints: 5 },
          { index: 1, orderId: 'o-2', customerId: 'c-1', success: false, error: { code: 9004, message: 'dup' } },
        ],
      }),
    );
    await expect(client.batchStatus(42)).resolves.toEqual({
      status: 'completed',
      total: 2,
      processed: 2,
      succeeded: 1,
      failed: 1,
      failures: [{ orderId: 'o-2', customerId: 'c-1', code: 9004 }],
    });
  });

  it.each([
    ['no item count', { status: 'completed', processedItems: 1 }, 'totalItems'],
    ['a count below zero', { status: 'completed', totalItems: -3, processedItems: 1 }, 'totalItems'],
    ['an unknown state', { status: 'exploded', totalItems: 1, processedItems: 1 }, 'status'],
    ['a state named like an Object property', { status: 'constructor', totalItems: 1, processedItems: 1 }, 'status'],
  ])('%s is upstream_invalid_response, and the log names the field', async (_what, body, field) => {
    upstream.script(json(200, body));
    expect((await failure(() => client.batchStatus(42))).code).toBe('upstream_invalid_response');
    expect(unusable()).toHaveLength(1);
    expect(JSON.parse(unusable()[0]).fields.join(' ')).toContain(`${field}:`);
  });
});

describe('reads', () => {
  it('accepts numeric strings, null and absent optional fields, and unknown fields', async () => {
    upstream.script(json(200, { availablePointsBalance: '120.5', pendingPoints: null, currency: null, somethingNew: { a: 1 } }));
    await expect(client.balance('c-1')).resolves.toEqual({ availablePointsBalance: 120.5 });
  });

  it('refuses a balance without the available points, naming it', async () => {
    upstream.script(json(200, { customerId: 'c-1', totalPointsBalance: 10 }));
    expect((await failure(() => client.balance('c-1'))).code).toBe('upstream_invalid_response');
    expect(unusable()[0]).toContain('availablePointsBalance');
  });

  it.each([
    ['null', null, null],
    ['an empty object', {}, null],
    ['the current tier again', tier, null],
    ['a lower tier', { ...tier, name: 'Bronze', order: 0 }, null],
    ['the next tier', { ...tier, name: 'Gold', order: 2, minProgress: 900 }, { name: 'Gold', order: 2, minProgress: 900 }],
  ])('a top tier: next as %s', async (_what, next, read) => {
    upstream.script(json(200, { current: tier, next, progress: 10 }));
    expect((await client.tierProgress('c-1')).next).toEqual(read);
  });

  it('reads a coupon list that is absent as none, and a coupon expiry without an offset as UTC', async () => {
    upstream.script(json(200, {}), json(200, { coupons: [{ code: 'TEN', expiryDate: '2030-01-01T00:00:00' }] }));
    await expect(client.coupons('c-1')).resolves.toEqual({ coupons: [] });
    await expect(client.coupons('c-1')).resolves.toEqual({ coupons: [{ code: 'TEN', expiryDate: Date.UTC(2030, 0, 1) }] });
  });

  it('refuses a hash that cannot go in a QR code, naming it', async () => {
    upstream.script(json(200, { hash: 'ab:cd' }));
    expect((await failure(() => client.hash('c-1'))).code).toBe('upstream_invalid_response');
    expect(unusable()[0]).toContain('hash');
  });

  it('refuses a batch job id no till could use (negative, fractional), naming it; takes a numeric string', async () => {
    upstream.script(json(200, { jobId: -5.5 }), json(200, { jobId: '17' }));
    expect((await failure(() => client.batchOrders({ body: [{ customerId: 'c', orderId: 'o', orderDate: '2025-01-01T00:00:00Z', totalPaid: 1 }] }))).code).toBe(
      'upstream_invalid_response',
    );
    expect(unusable()[0]).toContain('jobId');
    await expect(client.batchOrders({ body: [{ customerId: 'c', orderId: 'o', orderDate: '2025-01-01T00:00:00Z', totalPaid: 1 }] })).resolves.toEqual({
      jobId: 17,
    });
  });
});

describe('writes', () => {
  it('a hold without its reference is unusable (it could be neither used nor released)', async () => {
    upstream.script(json(200, { holdAmount: 5 }));
    expect((await failure(() => client.hold(holdRequest))).code).toBe('upstream_invalid_response');
    expect(unusable()[0]).toContain('holdReference');
  });

  it('a payment answered 2xx is returned as its answer even when its figures cannot be read', async () => {
    upstream.script(
      json(200, { rewardedPoints: 'lots', redeemedPoints: null, paymentDetails: [{ serviceId: 's1', points: '3' }, { points: 2 }, 'x'] }),
      (res) => res.writeHead(200).end(),
    );
    await expect(client.payment(paymentRequest)).resolves.toEqual({ paymentDetails: [{ serviceId: 's1', points: 3 }] });
    await expect(client.payment({ ...paymentRequest, paymentId: 'p-2' })).resolves.toEqual({ paymentDetails: [] });
  });
});

describe('requests', () => {
  it('sends the OTP rule id as the integer the reference wants, and refuses one that is not a whole number', async () => {
    upstream.script(json(200, {}));
    await client.otp({ customerId: 'c-1', ruleId: '12' });
    expect(JSON.parse(upstream.seen[0].body)).toEqual({ customerId: 'c-1', ruleId: 12 });
    const err = await failure(() => client.otp({ customerId: 'c-1', ruleId: 'gold-rule' }));
    expect(err.status).toBe(400);
    expect(JSON.stringify(err.errors)).toContain('ruleId');
    expect(upstream.seen).toHaveLength(1);
  });
});

describe('error bodies in the published form', () => {
  it("reads a category type with documentationUrl; a 3003 about the OTP is otp_invalid, with none of the upstream's text", async () => {
    upstream.script(
      json(422, {
        code: 3003,
        type: 'Payload Error',
        message: 'Invalid OTP for customer c-1',
        documentationUrl: 'https://example.invalid/docs',
        requestId: 'r-1',
      }),
    );
    const err = await failure(() => client.hold(holdRequest));
    expect({ code: err.code, loyaltyCode: err.loyaltyCode }).toEqual({ code: 'otp_invalid', loyaltyCode: 3003 });
    expect(err.message).not.toContain('c-1');
  });
});

describe('coupon, order and configuration answers (src/upstream/coupon-answers.ts)', () => {
  it('a lock answer with nulls and an unreadable end keeps its reference: the coupons are locked upstream either way', () => {
    const read = CouponsValidateAnswer.parse({ lockReference: 'L-1', coupons: null, dateToExpire: 'tomorrow' });
    expect(read).toEqual({ lockReference: 'L-1', coupons: [], dateToExpire: undefined });
    const one = CouponsValidateAnswer.parse({
      lockReference: 'L-2',
      coupons: [{ code: 'TEN', type: null, value: '10' }, { type: 'fixed' }],
      dateToExpire: '2030-01-01T10:00:00',
    });
    expect(one.coupons).toEqual([{ code: 'TEN', type: undefined, value: 10, capping: undefined, minOrderValue: undefined }]);
    expect(one.dateToExpire).toBe(Date.UTC(2030, 0, 1, 10));
  });

  it('order transactions: dates without an offset are UTC; an unreadable entry is left out', () => {
    const read = OrderTransactionsAnswer.parse({
      transactions: [{ transactionType: 'PaymentReward', transactionDate: '2024-10-16T08:13:29.29', equivalentPoints: '192' }, { amount: 3 }],
    });
    expect(read.transactions).toEqual([
      {
        transactionType: 'PaymentReward',
        transactionId: undefined,
        amount: undefined,
        equivalentPoints: 192,
        transactionDate: Date.UTC(2024, 9, 16, 8, 13, 29, 290),
      },
    ]);
  });

  it('redemption configuration: one unreadable rule does not hide the others', () => {
    const read = RedemptionConfigAnswer.parse({ redemptionFactor: 0.1, redemptionRules: [{ id: 7, pointsToRedeem: 100, isActive: null }, { id: 8 }] });
    expect(read.redemptionRules.map((r) => r.id)).toEqual(['7']);
  });
});

describe('a tracked order', () => {
  const order = () => client.trackOrder(asTrackedOrder(paymentRequest));

  it('reads the published schema into a sale answer: lines by product id', async () => {
    upstream.script(
      json(200, {
        customerId: 'c-1',
        redeemedPoints: 20,
        rewardedPoints: '80',
        lineItems: [{ productId: 'sku-1', quantity: 2, decimalPoints: 80, points: 80, score: 0 }, { quantity: 1 }],
      }),
    );
    expect(await order()).toEqual({ customerId: 'c-1', redeemedPoints: 20, rewardedPoints: 80, paymentDetails: [{ serviceId: 'sku-1', points: 80 }] });
  });

  it("reads the POS guide's example too (pointsEarned, pointsRedeemed, status; no lines)", async () => {
    upstream.script(json(200, { orderId: 'ORD000123', customerId: '12345', pointsEarned: 10, pointsRedeemed: 5, status: 'completed' }));
    expect(await order()).toEqual({ customerId: '12345', redeemedPoints: 5, rewardedPoints: 10, paymentDetails: [] });
  });

  it('takes an answer it cannot read as done with its figures unknown: the order was recorded', async () => {
    upstream.script(json(200, 'ok'));
    expect(await order()).toEqual({ customerId: undefined, redeemedPoints: undefined, rewardedPoints: undefined, paymentDetails: [] });
    expect(unusable()).toEqual([]);
  });
});

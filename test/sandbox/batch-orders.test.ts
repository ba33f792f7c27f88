import { BatchStatusResponse } from '../../src/contract';
import { submitBatch } from '../../src/sandbox/operations/batch-orders';
import { API, expectLoyaltyError, harness, testAccount } from './helpers';

const T = '2025-03-01T10:00:00Z';
const order = (customerId: string, orderId: string, totalPaid: number, extra: Record<string, unknown> = {}) => ({
  customerId,
  orderId,
  orderDate: T,
  totalPaid,
  ...extra,
});

describe('sandbox batch orders', () => {
  const other = { apikey: 'other_api_key', secretkey: 'other_secret_key' };
  const h = harness([testAccount(), testAccount({ name: 'Other', apiKey: other.apikey, secretKey: other.secretkey })]);
  const submit = async (orders: unknown[]) => {
    const res = await h.http.post(`${API}/batch/orders`).set(h.keys).send({ body: orders });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jobId: expect.any(Number) });
    return res.body.jobId as number;
  };
  const status = (jobId: number | string, keys = h.keys) => h.http.get(`${API}/batches/${jobId}/status`).set(keys);
  /** Polls the status route until the job ends (each poll is a real HTTP round trip). */
  const finished = async (jobId: number) => {
    for (let i = 0; i < 500; i++) {
      const res = await status(jobId);
      expect(res.status).toBe(200);
      const body = BatchStatusResponse.parse(res.body);
      if (body.status === 'completed' || body.status === 'failed') return body;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`job ${jobId} did not finish`);
  };

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
  });

  it('one bad item (duplicate orderId) fails alone; the others succeed and earn points', async () => {
    await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c0', paymentId: 'pay-1', paymentDate: T, totalPaid: 10 }).expect(200);
    await h.seed('c1', 0);
    const jobId = await submit([
      order('new-1', 'o1', 120.5),
      order('c1', 'o2', 40),
      order('c1', 'o1', 99), // twice in this batch
      order('c1', 'pay-1', 5), // an existing paymentId
      order('guest-1', 'o3', 500, { guest: true }),
    ]);
    const done = await finished(jobId);
    expect(done).toMatchObject({ batchId: String(jobId), status: 'completed', progress: 100, totalItems: 5, processedItems: 5, failedItems: 2 });
    expect(done.results).toEqual([
      { index: 0, orderId: 'o1', customerId: 'new-1', rewardedPoints: 120 },
      { index: 1, orderId: 'o2', customerId: 'c1', rewardedPoints: 40 },
      { index: 4, orderId: 'o3', customerId: 'guest-1', rewardedPoints: 0 },
    ]);
    expect(done.errors).toEqual([
      { index: 2, orderId: 'o1', customerId: 'c1', code: 9004, message: expect.stringContaining('"o1"') },
      { index: 3, orderId: 'pay-1', customerId: 'c1', code: 9004, message: expect.stringContaining('"pay-1"') },
    ]);
    expect(await h.balance('new-1')).toMatchObject({ availablePointsBalance: 120, totalEarnedPoints: 120 });
    expect(await h.balance('c1')).toMatchObject({ availablePointsBalance: 40 });

    // An order already in a finished batch is a duplicate in the next one, and as a payment.
    const again = await finished(await submit([order('c1', 'o2', 40)]));
    expect(again).toMatchObject({ failedItems: 1, results: [], errors: [{ code: 9004 }] });
    expectLoyaltyError(await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'o2', paymentDate: T, totalPaid: 1 }), 422, 9004);
    expect(await h.balance('c1')).toMatchObject({ availablePointsBalance: 40 });
  });

  it('an order redeems the hold it names; a bad hold or a missing channel field fails only that order', async () => {
    await h.seed('c1', 500);
    const hold = await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 200 }).expect(200);
    const ref = hold.body.holdReference;
    const done = await finished(
      await submit([order('c1', 'o1', 30, { redemption: { pointsHoldReference: ref } }), order('c1', 'o2', 30, { redemption: { pointsHoldReference: ref } })]),
    );
    expect(done.results.map((r) => r.orderId)).toEqual(['o1']);
    expect(done.errors.map((e) => [e.orderId, e.code])).toEqual([['o2', 9006]]);
    expect((await h.http.get(`${API}/transactions/hold/${ref}`).set(h.keys)).body.state).toBe('used');
    expect(await h.balance('c1')).toMatchObject({ availablePointsBalance: 500 - 200 + 30, heldPoints: 0 });

    await h.setAccount({ channelMerging: 'email' });
    const merged = await finished(await submit([order('c2', 'o3', 10), order('c2', 'o4', 10, { email: 'c2@example.com' })]));
    expect(merged.results.map((r) => r.orderId)).toEqual(['o4']);
    expect(merged.errors.map((e) => [e.orderId, e.code])).toEqual([['o3', 3000]]);
    expect(merged.errors[0].message).toContain('email');
  });

  it('finishes the job even if nobody polls', async () => {
    const orders = Array.from({ length: 300 }, (_, i) => order(`bulk-${i % 7}`, `bulk-o${i}`, 10));
    const jobId = await submit(orders);
    // Only the balance is read: the job must get there on its own.
    let total = 0;
    for (let i = 0; i < 500 && total < 300; i++) {
      total = 0;
      for (let k = 0; k < 7; k++) {
        const res = await h.http.get(`${API}/customers/bulk-${k}/balance`).set(h.keys);
        total += res.status === 200 ? res.body.totalEarnedPoints / 10 : 0;
      }
    }
    expect(total).toBe(300);
    expect(await finished(jobId)).toMatchObject({ status: 'completed', progress: 100, processedItems: 300, failedItems: 0 });
  });

  it('queues without processing anything in the request itself', async () => {
    // In-process on purpose: over HTTP the background steps may already have run when the answer arrives.
    const ctx = h.sandbox.context;
    const orders = Array.from({ length: 1000 }, (_, i) => order('c1', `q-o${i}`, 1));
    const { jobId } = submitBatch(ctx, ctx.store.account(h.keys.apikey)!, { body: orders });
    expect(ctx.batchJobs.get(jobId)).toMatchObject({ status: 'pending', total: 1000, processed: 0, results: [] });
    const pending = await status(jobId);
    expect(pending.body).toMatchObject({ status: expect.stringMatching(/^(pending|processing)$/), totalItems: 1000 });
    expect((await finished(jobId)).results).toHaveLength(1000);
  });

  it('numbers jobs, and shows a job only to its own account', async () => {
    const first = await submit([order('c1', 'o1', 1)]);
    const second = await submit([order('c1', 'o2', 1)]);
    expect(second).toBeGreaterThan(first);
    await finished(second);
    expectLoyaltyError(await status(first, other), 404, 4004);
    expectLoyaltyError(await status(999_999), 404, 4004);
    // batchId is a string in the reference: one that is no job number is simply unknown.
    expectLoyaltyError(await status('abc'), 404, 4004);
    expectLoyaltyError(await h.http.get(`${API}/batches/${first}/status`).set({ apikey: h.keys.apikey }), 401, 1001);
  });

  it('a reset forgets the jobs', async () => {
    const jobId = await submit([order('c1', 'o1', 1)]);
    await finished(jobId);
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    expectLoyaltyError(await status(jobId), 404, 4004);
  });

  it('accepts the published order fields (totalPrice, lineItems, extra, cartId, ...) and nulls for optional ones', async () => {
    await h.seed('c1', 0);
    const full = order('c1', 'full-1', 80, {
      email: null,
      totalPrice: 100,
      totalDiscount: 20,
      totalShipping: 5,
      totalTax: 7,
      lineItems: [
        {
          productId: 'p1',
          quantity: 2,
          price: 50,
          sku: 'SKU1',
          tags: ['a'],
          category: ['electronics'],
          discount: 20,
          extra: { subClass: 'X', nested: { a: 1 } },
        },
      ],
      extra: { paymentMethod: 'CREDIT CARD', meta: { till: 4 } },
      merchant: { uniqueId: 'm1', name: 'Shop', branch: { uniqueId: 'b1', name: 'Main' } },
      guest: false,
      channel: 'pos',
      cartId: 'CART1',
      cashbackConfigurations: { returnWindow: 0 },
    });
    const done = await finished(await submit([full]));
    expect(done.errors).toEqual([]);
    // On its totals (docs/DESIGN.md): the electronics line would have earned 160 at its rate of 2.
    expect(done.results).toEqual([{ index: 0, orderId: 'full-1', customerId: 'c1', rewardedPoints: 80 }]);
    expect(await h.balance('c1')).toMatchObject({ availablePointsBalance: 80 });
  });

  it('validates the whole request with the contract before queueing anything', async () => {
    expectLoyaltyError(await h.http.post(`${API}/batch/orders`).set(h.keys).send({}), 400, 3000);
    expectLoyaltyError(await h.http.post(`${API}/batch/orders`).set(h.keys).send({ body: [] }), 422, 3003);
    const bad = expectLoyaltyError(
      await h.http
        .post(`${API}/batch/orders`)
        .set(h.keys)
        .send({ body: [order('c1', 'o1', 1), order('c1', 'o2', -5)] }),
      422,
      3003,
    );
    expect(bad.message).toContain('body.1.totalPaid');
    expectLoyaltyError(
      await h.http
        .post(`${API}/batch/orders`)
        .set(h.keys)
        .send([order('c1', 'o1', 1)]),
      400,
      3016,
    );
    // Nothing was processed: o1 is still free.
    expect((await finished(await submit([order('c1', 'o1', 1)]))).results).toHaveLength(1);
  });
});

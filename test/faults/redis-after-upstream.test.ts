import { freePort } from '../support/ports';
import { BffProcess, eventually, ProcessStack, startProcessStack } from './process-stack';
import { ThrowawayRedis } from './throwaway-redis';

/**
 * Redis stops after the upstream took a payment with a hold and before the
 * BFF recorded it (the upstream is slowed so the stop lands in that window).
 * The till must not be told "nothing was done": it is told to send the same
 * request again, the key is not freed, and the record is repaired from the
 * upstream once Redis is back.
 */
describe('Redis stopped while an upstream write is in flight', () => {
  let redis: ThrowawayRedis;
  let stack: ProcessStack;
  let bff: BffProcess;
  beforeAll(async () => {
    redis = new ThrowawayRedis(await freePort());
    await redis.start();
    stack = await startProcessStack({ redisUrl: redis.url });
    bff = await stack.spawnBff({ IDEMPOTENCY_LEASE_MS: '1000' });
  }, 30_000);
  afterAll(async () => {
    await stack?.close();
    await redis?.cleanup();
  });

  const payments = async (customerId: string) => (await stack.activity(customerId)).filter((a) => a.type === 'Payment Processed');

  it('answers 503 retry_same_request, keeps the key, repairs the redemption from the upstream, and the retry answers recorded', async () => {
    const till = bff.pos(stack.tokens.cashier);
    await stack.seed('fay', 1000);
    const held = await till.post('/redemptions', { customerId: 'fay', hash: await stack.hash('fay'), points: 200 }).expect(201);

    await stack.faults([{ operation: 'payment', latencyMs: 1500 }]);
    const sale = { customerId: 'fay', paymentId: 'sale-fay-1', totalPaid: 40, redemptionId: held.body.id };
    const answer = till.post('/payments', sale).set('Idempotency-Key', 'sale-fay-1');
    const pending = answer.then((r) => r);
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'payment reached the sandbox');
    await redis.kill();
    const first = await pending;
    await stack.faults([]);

    expect(first.status).toBe(503);
    expect(first.body.code).toBe('retry_same_request');
    expect(first.headers['retry-after']).toBe('1');
    expect(first.body.detail).toMatch(/send the same request again/);
    // It was applied upstream: exactly once.
    expect(await payments('fay')).toHaveLength(1);

    // While Redis is away, a retry does nothing and says so; the till keeps retrying the same request.
    const during = await till.post('/payments', sale).set('Idempotency-Key', 'sale-fay-1');
    expect([during.status, during.body.code]).toEqual([503, 'redis_unavailable']);

    await redis.start();
    // Repaired from the upstream (the hold is used) without any till asking.
    const repaired = await eventually(
      async () => {
        const r = await till.get(`/redemptions/${held.body.id}`);
        return r.status === 200 && !['held', 'paying', 'voiding'].includes(r.body.state) ? r.body : undefined;
      },
      10_000,
      'the redemption to be repaired',
    );
    expect(repaired).toMatchObject({ state: 'redeemed', paymentId: 'sale-fay-1' });
    // The log line may reach us through the child's stdout just after the record changed.
    await eventually(async () => bff.logs.join('\n').includes('outcome settled from the upstream') || undefined, 5000, 'the repair to be logged');

    // The same request again: the key was not freed for a new sale, and the answer says recorded.
    const retry = await eventually(
      async () => {
        const r = await till.post('/payments', sale).set('Idempotency-Key', 'sale-fay-1');
        return r.body.code === 'idempotency_request_in_progress' ? undefined : r;
      },
      5000,
      'the key lease to lapse',
    );
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ status: 'already_recorded', redemption: { id: held.body.id, state: 'redeemed' } });
    // A new sale on the same redemption is refused: it was used.
    const other = await till.post('/payments', { ...sale, paymentId: 'sale-fay-2' }).expect(409);
    expect(other.body).toMatchObject({ code: 'redemption_not_held', state: 'redeemed' });
    expect(await payments('fay')).toHaveLength(1);
    expect((await stack.balance('fay')).availablePointsBalance).toBe(1000 - 200 + 40);
  });

  it('a void: answers 503 retry_same_request once the hold is released, repairs the redemption to voided, and the retry names that outcome', async () => {
    const till = bff.pos(stack.tokens.cashier);
    await stack.seed('vic', 1000);
    const held = await till.post('/redemptions', { customerId: 'vic', hash: await stack.hash('vic'), points: 300 }).expect(201);
    expect((await stack.balance('vic')).availablePointsBalance).toBe(700);

    await stack.faults([{ operation: 'holdCancel', latencyMs: 1500 }]);
    const pending = till
      .post(`/redemptions/${held.body.id}/void`)
      .set('Idempotency-Key', 'void-vic-1')
      .then((r) => r);
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'the release to reach the sandbox');
    await redis.kill();
    const first = await pending;
    await stack.faults([]);

    expect([first.status, first.body.code, first.headers['retry-after']]).toEqual([503, 'retry_same_request', '1']);
    // Released upstream: the points are the customer's again.
    expect((await stack.balance('vic')).availablePointsBalance).toBe(1000);

    await redis.start();
    const repaired = await eventually(
      async () => {
        const r = await till.get(`/redemptions/${held.body.id}`);
        return r.status === 200 && !['held', 'paying', 'voiding'].includes(r.body.state) ? r.body : undefined;
      },
      10_000,
      'the redemption to be repaired',
    );
    expect(repaired.state).toBe('voided');

    // The same void again: it names the outcome, and a payment cannot take the released points.
    const retry = await eventually(
      async () => {
        const r = await till.post(`/redemptions/${held.body.id}/void`).set('Idempotency-Key', 'void-vic-1');
        return r.body.code === 'idempotency_request_in_progress' ? undefined : r;
      },
      5000,
      'the key lease to lapse',
    );
    expect([retry.status, retry.body.code, retry.body.state]).toEqual([409, 'redemption_not_held', 'voided']);
    const sale = await till.post('/payments', { customerId: 'vic', paymentId: 'sale-vic-1', totalPaid: 30, redemptionId: held.body.id }).expect(409);
    expect(sale.body).toMatchObject({ code: 'redemption_not_held', state: 'voided' });
    expect((await stack.balance('vic')).availablePointsBalance).toBe(1000);
  });

  it('a coupon lock release: answers 503 retry_same_request once the coupons are released upstream, and settles the lock released', async () => {
    const till = bff.pos(stack.tokens.cashier);
    await stack.seed('cora', 0);
    const lock = (await till.post('/coupon-locks', { customerId: 'cora', codes: ['WELCOME10'], basketTotal: 50 }).expect(201)).body;
    await stack.faults([{ operation: 'couponRelease', latencyMs: 1500 }]);
    const pending = till
      .post(`/coupon-locks/${lock.id}/release`)
      .set('Idempotency-Key', 'release-cora-1')
      .then((r) => r);
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'the release to reach the sandbox');
    await redis.kill();
    const first = await pending;
    await stack.faults([]);
    // Never "nothing was done": the coupons are free upstream, so the till may not start over as if they were still locked.
    expect([first.status, first.body.code]).toEqual([503, 'retry_same_request']);

    await redis.start();
    const settled = await eventually(
      async () => {
        const r = await till.get(`/coupon-locks/${lock.id}`);
        return r.status === 200 && r.body.state !== 'releasing' ? r.body : undefined;
      },
      10_000,
      'the coupon lock to be settled',
    );
    expect(settled.state).toBe('released');
    // The coupon is the customer's again: it can be locked for another sale.
    await till.post('/coupon-locks', { customerId: 'cora', codes: ['WELCOME10'], basketTotal: 50 }).expect(201);
  });

  it("a hold placed while Redis stopped is released, not left holding the customer's points", async () => {
    const till = bff.pos(stack.tokens.cashier);
    await stack.seed('hal', 1000);
    await stack.faults([{ operation: 'hold', latencyMs: 1500 }]);
    const pending = till
      .post('/redemptions', { customerId: 'hal', hash: await stack.hash('hal'), points: 300 })
      .set('Idempotency-Key', 'hold-hal-1')
      .then((r) => r);
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'the hold to reach the sandbox');
    await redis.kill();
    const first = await pending;
    await stack.faults([]);
    expect(first.status).toBe(503);
    // The hold the upstream placed could not be recorded here: released at once, the points are the customer's.
    await eventually(async () => ((await stack.balance('hal')).availablePointsBalance === 1000 ? true : undefined), 5000, 'the hold to be released');
    await redis.start();
  });

  /** Sends `request` with `operation` slowed upstream, stops Redis while it is there, and returns the till's answer once Redis is back. */
  async function redisStopsDuring(operation: string, request: () => Promise<{ status: number; body: Record<string, unknown> }>) {
    await redisBack();
    await stack.faults([{ operation, latencyMs: 1500 }]);
    const pending = request();
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, `the ${operation} to reach the sandbox`);
    await redis.kill();
    const answer = await pending;
    await stack.faults([]);
    await redis.start();
    return answer;
  }

  /** The BFF has its Redis connection back (a test before may have just restarted it). */
  const redisBack = () => eventually(async () => ((await fetch(`${bff.url}/readyz`)).status === 200 ? true : undefined), 10_000, 'Redis to be back');

  it("a payment with a coupon lock: 503 retry_same_request, and the lock is settled used from the upstream's record", async () => {
    await redisBack();
    const till = bff.pos(stack.tokens.cashier);
    await stack.seed('lou', 0);
    const lock = (await till.post('/coupon-locks', { customerId: 'lou', codes: ['WELCOME10'], basketTotal: 50 }).expect(201)).body;
    const sale = { customerId: 'lou', paymentId: 'sale-lou-1', totalPaid: 40, totalAmount: 50, couponLockId: lock.id };
    const first = await redisStopsDuring('payment', () =>
      till
        .post('/payments', sale)
        .set('Idempotency-Key', 'sale-lou-1')
        .then((r) => r),
    );
    expect([first.status, first.body.code]).toEqual([503, 'retry_same_request']);
    const settled = await eventually(
      async () => {
        const r = await till.get(`/coupon-locks/${lock.id}`);
        return r.status === 200 && r.body.state !== 'paying' ? r.body : undefined;
      },
      10_000,
      'the lock to be settled',
    );
    expect(settled).toMatchObject({ state: 'used', paymentId: 'sale-lou-1' });
    expect(await payments('lou')).toHaveLength(1);
  });

  it("a plain sale and a refund: 503 retry_same_request, and each id is settled as this store's from the upstream's record", async () => {
    const till = bff.pos(stack.tokens.cashier);
    const manager = bff.pos(stack.tokens.manager);
    await stack.seed('pam', 0);
    const sale = await redisStopsDuring('payment', () =>
      till
        .post('/payments', { customerId: 'pam', paymentId: 'sale-pam-1', totalPaid: 60 })
        .set('Idempotency-Key', 'sale-pam-1')
        .then((r) => r),
    );
    expect([sale.status, sale.body.code]).toEqual([503, 'retry_same_request']);
    await eventually(
      async () => ((await till.get('/payments/sale-pam-1')).status === 200 ? true : undefined),
      10_000,
      "the sale to be settled as this store's",
    );
    // Settled `recorded` (not merely claimed): another sale under its id is refused outright, not answered "may have been applied".
    await eventually(
      async () =>
        (await till.post('/payments', { customerId: 'pam', paymentId: 'sale-pam-1', totalPaid: 61 })).body.code === 'payment_id_taken' ? true : undefined,
      10_000,
      'the sale id to be recorded',
    );
    const refund = await redisStopsDuring('refund', () =>
      manager
        .post('/refunds', { customerId: 'pam', refundId: 'ref-pam-1', paymentId: 'sale-pam-1', amount: 20 })
        .set('Idempotency-Key', 'ref-pam-1')
        .then((r) => r),
    );
    expect([refund.status, refund.body.code]).toEqual([503, 'retry_same_request']);
    await eventually(
      async () => ((await till.get('/refunds/ref-pam-1')).status === 200 ? true : undefined),
      10_000,
      "the refund to be settled as this store's",
    );
    await eventually(
      async () =>
        (await manager.post('/refunds', { customerId: 'pam', refundId: 'ref-pam-1', paymentId: 'sale-pam-1', amount: 5 })).body.code === 'refund_id_taken'
          ? true
          : undefined,
      10_000,
      'the refund id to be recorded',
    );
    expect((await stack.balance('pam')).availablePointsBalance).toBe(40);
  });

  it("a sale void: 503 retry_same_request, and the sale is settled voided from the refund's record", async () => {
    const till = bff.pos(stack.tokens.cashier);
    const manager = bff.pos(stack.tokens.manager);
    await stack.seed('val', 0);
    await till.post('/payments', { customerId: 'val', paymentId: 'sale-val-1', totalPaid: 70 }).expect(201);
    const voided = await redisStopsDuring('refund', () =>
      manager
        .post('/payments/sale-val-1/void', { customerId: 'val' })
        .set('Idempotency-Key', 'void-val-1')
        .then((r) => r),
    );
    expect([voided.status, voided.body.code]).toEqual([503, 'retry_same_request']);
    // Settled from the upstream: the sale is voided, so a second void is refused from its record, and nothing is refunded twice.
    const again = await eventually(
      async () => {
        const r = await manager.post('/payments/sale-val-1/void', { customerId: 'val' });
        return r.status === 409 && r.body.code === 'sale_already_voided' ? r : undefined;
      },
      10_000,
      'the void to be settled',
    );
    expect(again.body.code).toBe('sale_already_voided');
    expect((await stack.balance('val')).availablePointsBalance).toBe(0);
  });
});

import Redis from 'ioredis';
import { isSaleSend, SALE_OPERATION, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { setFaults } from '../pos/outbox/stack-helpers';
import { waitFor } from './helpers';
import { NotOnRecordYet, settleSaleId } from '../../src/pos/sales/claims';

/**
 * After a duplicate answer, the earlier write under the id is this very write
 * only when everything this write asserted matches: the upstream's record for
 * what it shows, the BFF's own record of the earlier write for the rest.
 * Another write is refused (409 `*_taken`); one that cannot be shown either
 * way is never answered as done.
 */
const coupons = [
  { code: 'WELCOME10', name: 'Welcome 10 EGP', value: 10, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z', limitPerCustomer: 1 },
];
const env = { LOYALTY_TIMEOUT_MS: '2000', LOYALTY_RETRIES: '0', BREAKER_FAILURE_THRESHOLD: '10000' };
/** The next write is applied upstream, then its answer is lost. */
const landsAnswerLost = (operation: string) => [{ operation, after: true, drop: true, times: 1 }];

describe('the earlier write under an id is this one only when its whole identity matches (redis store)', () => {
  let s: Stack;
  let redis: Redis;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', account: { coupons }, env });
    redis = new Redis(process.env.TEST_REDIS_URL!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await s?.close();
  });
  afterEach(() => setFaults(s, []));

  const couponOf = async (customerId: string, code: string) =>
    (
      (await s.sandboxAdmin.get(`/api/v4.0/integrations/customers/${customerId}/coupons`).set(SANDBOX_KEYS).expect(200)).body.coupons as {
        code: string;
        customerUsedCount: number;
      }[]
    ).find((c) => c.code === code);

  // Another total as well as the lock: the next case differs in the lock alone.
  it('a recorded plain sale sent again with another total and a coupon lock is another write: 409, the lock stays locked, the coupon not burned', async () => {
    await s.seed('sw-1', 0);
    const sale = { customerId: 'sw-1', paymentId: 'sw-sale-1', totalAmount: 50, totalPaid: 50 };
    await s.pos('cashier').post('/payments', sale).expect(201);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId: 'sw-1', codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    const again = await s.pos('cashier').post('/payments', { ...sale, totalPaid: 40, totalDiscount: 10, couponLockId: lock.id });
    expect([again.status, again.body.code]).toEqual([409, 'payment_id_taken']);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('locked');
    expect(await couponOf('sw-1', 'WELCOME10')).toMatchObject({ customerUsedCount: 0 });
  });

  it('the same sale with the same totals, differing in the coupon lock alone, is refused too, before anything is sent', async () => {
    await s.seed('sw-2', 0);
    const sale = { customerId: 'sw-2', paymentId: 'sw-sale-2', totalAmount: 50, totalPaid: 40, totalDiscount: 10 };
    await s.pos('cashier').post('/payments', sale).expect(201);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId: 'sw-2', codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    const sent = s.sentUpstream().length;
    const again = await s.pos('cashier').post('/payments', { ...sale, couponLockId: lock.id });
    expect([again.status, again.body.code]).toEqual([409, 'payment_id_taken']);
    expect(s.sentUpstream().slice(sent).filter(isSaleSend)).toEqual([]);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('locked');
    expect(await couponOf('sw-2', 'WELCOME10')).toMatchObject({ customerUsedCount: 0 });
  });

  it('a whole refund or a void under a partial refund id is another write: refused, the sale not voided, the points unchanged', async () => {
    await s.seed('sw-3', 0);
    await s.pos('cashier').post('/payments', { customerId: 'sw-3', paymentId: 'sw-sale-3', totalPaid: 80 }).expect(201);
    await s.pos('manager').post('/refunds', { customerId: 'sw-3', paymentId: 'sw-sale-3', refundId: 'sw-r-3', amount: 30 }).expect(201);
    const points = await s.balance('sw-3');

    const whole = await s.pos('manager').post('/refunds', { customerId: 'sw-3', paymentId: 'sw-sale-3', refundId: 'sw-r-3' });
    expect([whole.status, whole.body.code]).toEqual([409, 'refund_id_taken']);
    const voided = await s.pos('manager').post('/payments/sw-sale-3/void', { customerId: 'sw-3', refundId: 'sw-r-3' });
    expect(voided.status).toBe(409);
    expect(voided.body.code).toBe('refund_id_taken');
    expect((await s.bff.deps.sales.get('payment', 'sw-sale-3'))?.state).toBe('recorded');
    expect(await s.balance('sw-3')).toEqual(points);
  });

  it('a true retry of a sale whose answer was lost is still already_recorded', async () => {
    await s.seed('sw-4', 0);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId: 'sw-4', codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    const sale = { customerId: 'sw-4', paymentId: 'sw-sale-4', totalAmount: 50, totalPaid: 40, totalDiscount: 10, couponLockId: lock.id };
    await setFaults(s, landsAnswerLost(SALE_OPERATION));
    expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
    await setFaults(s, []);
    const retry = await s.pos('cashier').post('/payments', sale);
    expect([retry.status, retry.body.status]).toEqual([201, 'already_recorded']);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('used');
  });

  it('a true retry of a partial refund whose answer was lost is still already_refunded', async () => {
    await s.seed('sw-5', 0);
    await s.pos('cashier').post('/payments', { customerId: 'sw-5', paymentId: 'sw-sale-5', totalPaid: 80 }).expect(201);
    const refund = { customerId: 'sw-5', paymentId: 'sw-sale-5', refundId: 'sw-r-5', amount: 30 };
    await setFaults(s, landsAnswerLost('refund'));
    // A refund whose send may have landed is queued (its id makes a second delivery a duplicate); the
    // outbox's delivery is answered "duplicate" and the record shows this very refund: delivered.
    expect((await s.pos('manager').post('/refunds', refund)).body).toMatchObject({ queued: true });
    await setFaults(s, []);
    await waitFor('the queued refund to be delivered', async () => (await s.bff.deps.sales.get('refund', 'sw-r-5'))?.state === 'recorded', 15_000);
    const retry = await s.pos('manager').post('/refunds', refund);
    expect([retry.status, retry.body.status]).toEqual([201, 'already_refunded']);
  });

  it("a sale recorded by the previous release (an entry without the write's identity) is unknown: a final write_unconfirmed, never done", async () => {
    await s.seed('sw-6', 0);
    const sale = { customerId: 'sw-6', paymentId: 'sw-sale-6', totalPaid: 50 };
    await s.pos('cashier').post('/payments', sale).expect(201);
    // The shape the previous release wrote: its total, none of the identity fields.
    const key = `${s.redisPrefix}sale:payment:sw-sale-6`;
    const entry = JSON.parse((await redis.get(key)) as string) as Record<string, unknown>;
    await redis.set(
      key,
      JSON.stringify({
        kind: 'payment',
        id: 'sw-sale-6',
        storeId: entry.storeId,
        state: 'recorded',
        customerId: 'sw-6',
        paymentId: 'sw-sale-6',
        totalPaid: 50,
      }),
      'KEEPTTL',
    );
    // No later look can show what the entry lacks: the till gets a final answer, not an endless "send the same request again".
    const retry = await s.pos('cashier').post('/payments', sale);
    expect([retry.status, retry.body.code]).toEqual([409, 'write_unconfirmed']);
    expect(retry.headers['retry-after']).toBeUndefined();
    expect(JSON.parse((await redis.get(key)) as string)).toMatchObject({ state: 'recorded', totalPaid: 50 });
    // Nor is a claim of that shape still `recording` settled from the record: it cannot be shown to be this sale.
    const old = {
      kind: 'payment' as const,
      id: 'sw-sale-6',
      storeId: entry.storeId as string,
      state: 'recording' as const,
      customerId: 'sw-6',
      paymentId: 'sw-sale-6',
      totalPaid: 50,
    };
    await redis.set(key, JSON.stringify(old), 'KEEPTTL');
    await expect(settleSaleId(s.bff.deps, old)).rejects.toBeInstanceOf(NotOnRecordYet);
    expect((await s.bff.deps.sales.get('payment', 'sw-sale-6'))?.state).toBe('recording');
    await redis.set(key, JSON.stringify({ ...old, state: 'recorded' }), 'KEEPTTL');
    // A whole refund under a refund id the previous release recorded as 30 is another write, from its amount alone.
    await s.pos('manager').post('/refunds', { customerId: 'sw-6', paymentId: 'sw-sale-6', refundId: 'sw-r-6', amount: 20 }).expect(201);
    await redis.set(
      `${s.redisPrefix}sale:refund:sw-r-6`,
      JSON.stringify({ kind: 'refund', id: 'sw-r-6', storeId: entry.storeId, state: 'recorded', customerId: 'sw-6', paymentId: 'sw-sale-6', refundAmount: 20 }),
      'KEEPTTL',
    );
    const sameRefund = await s.pos('manager').post('/refunds', { customerId: 'sw-6', paymentId: 'sw-sale-6', refundId: 'sw-r-6', amount: 20 });
    expect([sameRefund.status, sameRefund.body.code]).toEqual([409, 'write_unconfirmed']);
    const whole = await s.pos('manager').post('/refunds', { customerId: 'sw-6', paymentId: 'sw-sale-6', refundId: 'sw-r-6' });
    expect([whole.status, whole.body.code]).toEqual([409, 'refund_id_taken']);
  });

  it('a sale whose entry was lost, sent again with a coupon lock or by another customer, is never already_recorded: write_unconfirmed, nothing burned', async () => {
    await s.seed('sw-7', 0);
    await s.seed('sw-7b', 0);
    const sale = { customerId: 'sw-7', paymentId: 'sw-sale-7', totalAmount: 50, totalPaid: 40, totalDiscount: 10 };
    await s.pos('cashier').post('/payments', sale).expect(201);
    // Redis lost the sale's entry (emptied, or past SALE_RECORD_DAYS).
    const key = `${s.redisPrefix}sale:payment:sw-sale-7`;
    expect(await redis.del(key)).toBe(1);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId: 'sw-7', codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    const withLock = await s.pos('cashier').post('/payments', { ...sale, couponLockId: lock.id });
    expect([withLock.status, withLock.body.code]).toEqual([409, 'write_unconfirmed']);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('locked');
    expect(await couponOf('sw-7', 'WELCOME10')).toMatchObject({ customerUsedCount: 0 });
    // Nothing of this request is left claimed: the id is not this store's on its word.
    expect(await redis.get(key)).toBeNull();
    const otherCustomer = await s.pos('cashier').post('/payments', { ...sale, customerId: 'sw-7b' });
    expect([otherCustomer.status, otherCustomer.body.code]).toEqual([409, 'write_unconfirmed']);
  });

  it("a retry whose first attempt's outcome is unknown, answered by another write on the record, is final: 409 payment_id_taken, the lock freed", async () => {
    await s.seed('sw-8', 0);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId: 'sw-8', codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    const sale = { customerId: 'sw-8', paymentId: 'sw-sale-8', totalAmount: 50, totalPaid: 40, totalDiscount: 10, couponLockId: lock.id };
    // The first attempt never arrives, and its answer never comes: unknown, every claim kept.
    await setFaults(s, [{ operation: SALE_OPERATION, drop: true, times: 1 }]);
    expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
    await setFaults(s, []);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('paying');
    // Another system of the retailer's records a sale of 99 under the same id.
    await s.sandboxAdmin
      .post('/api/v4.0/integrations/payments')
      .set(SANDBOX_KEYS)
      .send({ customerId: 'sw-8', paymentId: 'sw-sale-8', paymentDate: new Date().toISOString(), totalPaid: 99 })
      .expect(200);
    const retry = await s.pos('cashier').post('/payments', sale);
    expect([retry.status, retry.body.code]).toEqual([409, 'payment_id_taken']);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('locked');
    expect(await s.bff.deps.sales.get('payment', 'sw-sale-8')).toBeNull();
    expect(await couponOf('sw-8', 'WELCOME10')).toMatchObject({ customerUsedCount: 0 });
  });

  it("a lock this release's own first attempt left paying does not vouch for an older entry: write_unconfirmed, the lock not used", async () => {
    await s.seed('sw-9', 0);
    const sale = { customerId: 'sw-9', paymentId: 'sw-sale-9', totalAmount: 50, totalPaid: 40, totalDiscount: 10 };
    await s.pos('cashier').post('/payments', sale).expect(201);
    // The previous release's entry of the plain sale: no identity fields.
    const key = `${s.redisPrefix}sale:payment:sw-sale-9`;
    const entry = JSON.parse((await redis.get(key)) as string) as Record<string, unknown>;
    // (Its way of recording is kept: in the order-mode run the sale went out as a tracked order.)
    const old = {
      kind: 'payment',
      id: 'sw-sale-9',
      storeId: entry.storeId,
      state: 'recorded',
      customerId: 'sw-9',
      paymentId: 'sw-sale-9',
      totalPaid: 40,
      ...(entry.recordedAs ? { recordedAs: entry.recordedAs } : {}),
    };
    await redis.set(key, JSON.stringify(old), 'KEEPTTL');
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId: 'sw-9', codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    const withLock = { ...sale, couponLockId: lock.id };
    // The first lock-carrying attempt's answer is lost: unknown, and the lock is left `paying` for this payment by this attempt.
    await setFaults(s, [{ operation: SALE_OPERATION, drop: true, times: 1 }]);
    expect((await s.pos('cashier').post('/payments', withLock)).body.code).toBe('retry_same_request');
    await setFaults(s, []);
    const retry = await s.pos('cashier').post('/payments', withLock);
    expect([retry.status, retry.body.code]).toEqual([409, 'write_unconfirmed']);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('paying');
    expect(await couponOf('sw-9', 'WELCOME10')).toMatchObject({ customerUsedCount: 0 });
  });
});

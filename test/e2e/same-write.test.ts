import Redis from 'ioredis';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
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
    expect(
      s
        .sentUpstream()
        .slice(sent)
        .filter((e) => e.method === 'POST' && e.path.includes('payments')),
    ).toEqual([]);
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
    await setFaults(s, landsAnswerLost('payment'));
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

  it("a sale recorded by the previous release (an entry without the write's identity) is unknown: retry_same_request, never done", async () => {
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
    const retry = await s.pos('cashier').post('/payments', sale);
    expect([retry.status, retry.body.code]).toEqual([503, 'retry_same_request']);
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
    expect([sameRefund.status, sameRefund.body.code]).toEqual([503, 'retry_same_request']);
    const whole = await s.pos('manager').post('/refunds', { customerId: 'sw-6', paymentId: 'sw-sale-6', refundId: 'sw-r-6' });
    expect([whole.status, whole.body.code]).toEqual([409, 'refund_id_taken']);
  });
});

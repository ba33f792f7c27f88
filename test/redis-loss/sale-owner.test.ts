import Redis from 'ioredis';
import { SANDBOX_KEYS, startStack, type Stack } from '../support/e2e';
import { RedisServer } from './redis-server';
import { eventually, setFaults } from '../pos/outbox/stack-helpers';

/**
 * A sale's owner does not live only in Redis. After the BFF's Redis comes
 * back empty (FLUSHALL), a refund or void of a sale it no longer knows is
 * decided by the loyalty service's record of it (the branch the payment
 * carried): another store's manager is refused as for another store's sale,
 * the sale's own store refunds it once, and a sale whose store cannot be told
 * is refused with sale_owner_unknown, unless returns are allowed at any branch;
 * one the loyalty service has no record of is not found.
 */
describe.each(['false', 'true'] as const)('a sale the BFF lost with its Redis (RETURNS_AT_ANY_BRANCH=%s)', (anyBranch) => {
  let server: RedisServer;
  let admin: Redis;
  let s: Stack;

  beforeAll(async () => {
    server = await RedisServer.start({ persist: false });
    admin = new Redis(server.url);
    s = await startStack({ store: 'memory', instances: 2, env: { REDIS_URL: server.url, RETURNS_AT_ANY_BRANCH: anyBranch } });
  });
  afterAll(async () => {
    await s?.close();
    admin?.disconnect();
    await server?.cleanup();
  });

  /** A payment sent straight to the loyalty service (not through the BFF), with the merchant given, or none. */
  async function paidElsewhere(customerId: string, paymentId: string, merchant?: object) {
    const res = await fetch(`${s.sandbox.url}/api/v4.0/integrations/payments`, {
      method: 'POST',
      headers: { ...SANDBOX_KEYS, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId, paymentId, paymentDate: new Date().toISOString(), totalPaid: 60, ...(merchant ? { merchant } : {}) }),
    });
    expect(res.status).toBe(200);
  }

  it("after FLUSHALL, the sale's store is found from the upstream's record", async () => {
    await s.seed('own-ana', 0);
    await s.pos('cashier').post('/payments', { customerId: 'own-ana', paymentId: 'own-sale-1', totalPaid: 100 }).expect(201);
    await s.pos('cashier').post('/payments', { customerId: 'own-ana', paymentId: 'own-sale-2', totalPaid: 80 }).expect(201);
    await s.pos('cashier').post('/payments', { customerId: 'own-ana', paymentId: 'own-sale-3', totalPaid: 20 }).expect(201);
    expect((await s.balance('own-ana')).availablePointsBalance).toBe(200);
    await admin.flushall();

    // Read back with its customer: its store reads it, the other store does not.
    expect((await s.pos('otherCashier').get('/payments/own-sale-3?customerId=own-ana')).status).toBe(404);
    const read = await s.pos('cashier', 1).get('/payments/own-sale-3?customerId=own-ana').expect(200);
    expect(read.body).toMatchObject({ paymentId: 'own-sale-3', customerId: 'own-ana', amountPaid: 20 });

    const otherRefund = await s.pos('otherManager').post('/refunds', { customerId: 'own-ana', refundId: 'own-ref-B', paymentId: 'own-sale-1', amount: 40 });
    const otherVoid = await s.pos('otherManager', 1).post('/payments/own-sale-2/void', { customerId: 'own-ana' });
    if (anyBranch === 'true') {
      expect(otherRefund.status).toBe(201);
      expect(otherVoid.status).toBe(200);
      expect((await s.balance('own-ana')).availablePointsBalance).toBe(200 - 40 - 80);
      return;
    }
    expect([otherRefund.status, otherRefund.body.code]).toEqual([404, 'sale_not_found']);
    expect([otherVoid.status, otherVoid.body.code]).toEqual([404, 'sale_not_found']);
    expect((await s.balance('own-ana')).availablePointsBalance).toBe(200);

    // The owner's refund works, on the other instance too; the points move once.
    const mine = await s.pos('manager', 1).post('/refunds', { customerId: 'own-ana', refundId: 'own-ref-A', paymentId: 'own-sale-1', amount: 40 });
    expect(mine.status).toBe(201);
    expect(mine.body).toMatchObject({ status: 'refunded', amountRefunded: 40 });
    expect((await s.balance('own-ana')).availablePointsBalance).toBe(160);
    // The sale is recorded again for its store: read back, and voided by its store, never by the other.
    const sale = await s.bff.deps.sales.get('payment', 'own-sale-1');
    expect(sale).toMatchObject({ storeId: 'store-001', state: 'recorded', customerId: 'own-ana' });
    await s.pos('cashier').get('/payments/own-sale-1').expect(200);
    const voided = await s.pos('manager').post('/payments/own-sale-2/void', { customerId: 'own-ana' }).expect(200);
    // Which coupons the sale burned went with the lost data: not known (null), never [].
    expect(voided.body.couponsNotReturned).toBeNull();
    // The look-ups were sent as the published reference describes them.
    expect(
      s
        .sentUpstream()
        .filter((x) => x.path.endsWith('/transactions'))
        .map((x) => x.query?.customerId),
    ).toContain('own-ana');
    expect(s.upstreamViolations()).toEqual([]);
    expect((await s.balance('own-ana')).availablePointsBalance).toBe(80);
  });

  it('a sale whose store cannot be told is refused (sale_owner_unknown), nothing refunded', async () => {
    await s.seed('own-bo', 0);
    await paidElsewhere('own-bo', 'own-nobranch');
    await paidElsewhere('own-bo', 'own-farbranch', { uniqueId: 'm-1', name: 'Test Retail', branch: { uniqueId: 'b-9', name: 'Branch 9' } });
    const before = (await s.balance('own-bo')).availablePointsBalance;
    const tries = [
      await s.pos('manager').post('/refunds', { customerId: 'own-bo', refundId: 'own-bo-r1', paymentId: 'own-nobranch', amount: 10 }),
      await s.pos('manager').post('/payments/own-farbranch/void', { customerId: 'own-bo' }),
      await s.pos('manager').post('/refunds', { customerId: 'own-bo', refundId: 'own-bo-r2', paymentId: 'own-never-sold', amount: 10 }),
    ];
    if (anyBranch === 'true') {
      // Any store may: the upstream's rules decide (a sale it never saw is refused by it).
      expect(tries.map((t) => t.status)).toEqual([201, 200, 404]);
      return;
    }
    // No branch, a branch of no store: not known. No such sale upstream: nothing to refund, as the upstream answers.
    expect(tries.map((t) => [t.status, t.body.code])).toEqual([
      [409, 'sale_owner_unknown'],
      [409, 'sale_owner_unknown'],
      [404, 'original_transaction_not_found'],
    ]);
    // The branch a sale carried is never told a till that may be another store's.
    expect(tries[1].body.detail).not.toMatch(/Branch 9/);
    expect((await s.balance('own-bo')).availablePointsBalance).toBe(before);
  });

  it("a failed read of the upstream's record is transient: 503 sale_owner_unreadable with Retry-After, then the same request works", async () => {
    await s.seed('own-cy', 0);
    await s.pos('cashier').post('/payments', { customerId: 'own-cy', paymentId: 'own-cy-sale', totalPaid: 50 }).expect(201);
    await admin.flushall();
    await setFaults(s, [{ operation: 'transactions', status: 500 }]);
    const body = { customerId: 'own-cy', refundId: 'own-cy-r1', paymentId: 'own-cy-sale', amount: 10 };
    const failed = await s.pos('manager').post('/refunds', body).set('Idempotency-Key', 'own-cy-k1');
    await setFaults(s, []);
    if (anyBranch === 'true') return expect(failed.status).toBe(201);
    expect([failed.status, failed.body.code]).toEqual([503, 'sale_owner_unreadable']);
    expect(Number(failed.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await s.balance('own-cy')).availablePointsBalance).toBe(50);
    // The till sends the same request again after Retry-After (the breaker may still be open a moment): it is done once.
    let again = failed;
    await eventually(
      'the same request accepted',
      async () => {
        again = await s.pos('manager').post('/refunds', body).set('Idempotency-Key', 'own-cy-k1');
        return again.status !== 503;
      },
      20_000,
    );
    expect([again.status, again.body.status]).toEqual([201, 'refunded']);
    expect((await s.balance('own-cy')).availablePointsBalance).toBe(40);
  });
});

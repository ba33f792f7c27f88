import Redis from 'ioredis';
import { decodeRedemption, encodeRedemption } from '../../src/pos/redemptions/redis-codec';
import { BffProcess, eventually, ProcessStack, startProcessStack } from './process-stack';

/**
 * A BFF killed (SIGKILL) after it sent a payment with a redemption and before
 * it recorded it; the till never sends the sale again. A new process settles
 * both claims once their lease is over, long before the hold would be due:
 * the redemption `redeemed`, the sale id `recorded`, an audit entry naming the
 * terminal, cashier and shift that took them, and the day's reconciliation
 * lists the sale with the loyalty service's figures, `unknown_then_settled`.
 */
const coupons = [
  { code: 'WELCOME10', name: 'Welcome 10 EGP', value: 10, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z', limitPerCustomer: 1 },
];

/** Polls of a route are spaced out: each terminal's requests are rate limited. */
const paced = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('claims a crash left behind are settled once their lease is over', () => {
  let stack: ProcessStack;
  let redis: Redis;
  // Longer than the payment the sandbox holds back (3 s), as a lease must outlast any call: an instance still
  // running may look at a claim as soon as its lease is over. Start-up refuses a lease shorter than three calls
  // with their retries, so the calls are short (4 s, no retry) to keep the lease short.
  const LEASE = { CLAIM_LEASE_SECONDS: '12', LOYALTY_TIMEOUT_MS: '4000', LOYALTY_RETRIES: '0' };
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL!, account: { coupons } });
    redis = new Redis(process.env.TEST_REDIS_URL!);
  }, 30_000);
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
  });

  const saleEntry = async (paymentId: string) => {
    const raw = await redis.get(`${stack.redisPrefix}sale:payment:${paymentId}`);
    return raw ? (JSON.parse(raw) as { state?: string; lease?: Record<string, unknown> }) : null;
  };

  const till = (b: BffProcess) => (p: 'get' | 'post', path: string, body?: object) =>
    (p === 'get' ? b.pos(stack.tokens.cashier).get(path) : b.pos(stack.tokens.cashier).post(path, body))
      .set('X-Cashier-Id', 'anna-07')
      .set('X-Shift-Id', 'shift-42');

  /** A hold of 150 points, then a payment with it held back by the sandbox while the BFF that sent it is killed; it lands upstream. */
  async function crashMidPayment(customerId: string, paymentId: string) {
    await stack.seed(customerId, 1000);
    const first: BffProcess = await stack.spawnBff(LEASE);
    const held = await till(first)('post', '/redemptions', { customerId, hash: await stack.hash(customerId), points: 150 }).expect(201);
    const expiresAt = Date.parse(held.body.expiresAt);
    expect(expiresAt).toBeGreaterThan(Date.now() + 5 * 60_000);
    await stack.faults([{ operation: 'payment', latencyMs: 3000 }]);
    const inFlight = till(first)('post', '/payments', { customerId, paymentId, totalPaid: 40, redemptionId: held.body.id }).then(
      (r) => r.status,
      () => 'connection lost',
    );
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 10_000, 'payment reached the sandbox');
    // The claims carry their lease: who took them and until when.
    expect(await saleEntry(paymentId)).toMatchObject({
      state: 'recording',
      lease: { terminalId: stack.terminalIds.cashier, cashierId: 'anna-07', shiftId: 'shift-42' },
    });
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await inFlight).toBe('connection lost');
    await stack.faults([]);
    await eventually(async () => (await stack.activity(customerId)).some((a) => a.type === 'Payment Processed'), 10_000, 'the payment to land upstream');
    return { redemptionId: held.body.id as string, expiresAt };
  }

  /** Both claims settled: watched in Redis (polling a till's route would meet its rate limit), then read through a BFF. */
  async function settledClaims(bff: BffProcess, redemptionId: string, paymentId: string) {
    const sale = await eventually(
      async () => {
        const r = decodeRedemption(redemptionId, (await redis.get(`${stack.redisPrefix}{rdm}:r:${redemptionId}`))!);
        const e = await saleEntry(paymentId);
        return r.state !== 'paying' && e?.state !== 'recording' ? e : undefined;
      },
      40_000,
      'both claims to be settled',
    );
    return { redemption: (await till(bff)('get', `/redemptions/${redemptionId}`).expect(200)).body, sale };
  }

  it('settles the sale and its redemption from the upstream, audits them as the till that took them, and reconciles the sale', async () => {
    const { redemptionId, expiresAt } = await crashMidPayment('fern', 'sale-fern-1');
    // A new process: nobody retries the sale.
    const second = await stack.spawnBff(LEASE);
    const settled = await settledClaims(second, redemptionId, 'sale-fern-1');
    // Settled from the lease, not at the hold's end.
    expect(Date.now()).toBeLessThan(expiresAt);
    expect(settled.redemption).toMatchObject({ state: 'redeemed', paymentId: 'sale-fern-1' });
    expect(settled.sale).toMatchObject({ state: 'recorded' });
    expect(settled.sale).not.toHaveProperty('lease');

    const manager = second.pos(stack.tokens.manager);
    const entries = await eventually(
      async () => {
        await paced();
        const got = (await manager.get('/audit?customerId=fern&action=payment').expect(200)).body.entries as Record<string, unknown>[];
        return got.length >= 2 ? got : undefined;
      },
      10_000,
      'the settlements to be audited',
    );
    for (const repair of [`redemption:${redemptionId}`, 'sale:payment:sale-fern-1'])
      expect(entries).toContainEqual(
        expect.objectContaining({
          action: 'payment',
          outcome: 'settled',
          afterCrash: true,
          repair,
          paymentId: 'sale-fern-1',
          terminalId: stack.terminalIds.cashier,
          cashierId: 'anna-07',
          shiftId: 'shift-42',
        }),
      );

    const day = new Date().toISOString().slice(0, 10);
    const report = (await manager.get(`/reconciliation?date=${day}`).expect(200)).body;
    const row = report.rows.find((r: { kind: string; id: string }) => r.kind === 'sale' && r.id === 'sale-fern-1');
    expect(row).toMatchObject({ status: 'matched', flags: ['unknown_then_settled'], upstream: { paid: 40, redeemed: 150 } });
    // The hold is this store's sale's, and the day's totals count the sale on the loyalty service's side.
    const hold = report.rows.find((r: { id: string }) => r.id === redemptionId);
    expect(hold).toMatchObject({ status: 'used', note: expect.stringContaining('used by sale sale-fern-1') });
    expect(report.totals.upstream).toMatchObject({ paid: 40, redeemed: 150 });
  }, 90_000);

  it("settles claims in the previous release's shape (no lease) once a lease from their claim is over", async () => {
    const { redemptionId, expiresAt } = await crashMidPayment('gil', 'sale-gil-1');
    // The records as the previous release wrote them: no lease, the redemption due at its hold's end, the id in no lease index.
    const p = stack.redisPrefix;
    const sale = JSON.parse((await redis.get(`${p}sale:payment:sale-gil-1`))!);
    delete sale.lease;
    await redis.set(`${p}sale:payment:sale-gil-1`, JSON.stringify(sale), 'KEEPTTL');
    await redis.zrem(`${p}sale-leases`, 'payment:sale-gil-1');
    const rdmKey = `${p}{rdm}:r:${redemptionId}`;
    const { lease, ...old } = decodeRedemption(redemptionId, (await redis.get(rdmKey))!);
    expect(lease).toBeDefined();
    await redis.set(rdmKey, encodeRedemption(old), 'KEEPTTL');
    await redis.zadd(`${p}{rdm}:open`, old.expiresAt!, redemptionId);
    // The first instance of this release to start looks for them.
    await redis.del(`${p}leases:adopted:v1`);

    const next = await stack.spawnBff(LEASE);
    const settled = await settledClaims(next, redemptionId, 'sale-gil-1');
    expect(Date.now()).toBeLessThan(expiresAt);
    expect(settled.redemption).toMatchObject({ state: 'redeemed', paymentId: 'sale-gil-1' });
    expect(settled.sale).toMatchObject({ state: 'recorded' });
    // Who took them is not known for a claim without a lease: the redemption's own terminal is named.
    const audited = expect.objectContaining({
      outcome: 'settled',
      afterCrash: true,
      repair: `redemption:${redemptionId}`,
      terminalId: stack.terminalIds.cashier,
    });
    await eventually(
      async () => {
        await paced();
        const entries = (await next.pos(stack.tokens.manager).get('/audit?customerId=gil&action=payment').expect(200)).body.entries;
        return (entries as unknown[]).some((e) => audited.asymmetricMatch(e));
      },
      10_000,
      'the settlement to be audited',
    );
  }, 90_000);

  it('settles a coupon lock a crashed payment held as used, before its release time, and audits it as the till that took it', async () => {
    await stack.seed('ivo', 0);
    const first = await stack.spawnBff(LEASE);
    const lock = (await till(first)('post', '/coupon-locks', { customerId: 'ivo', codes: ['WELCOME10'], basketTotal: 50 }).expect(201)).body;
    const releaseAt = Date.parse(lock.releaseAt ?? lock.expiresAt);
    expect(releaseAt).toBeGreaterThan(Date.now() + 5 * 60_000);
    await stack.faults([{ operation: 'payment', latencyMs: 3000 }]);
    const inFlight = till(first)('post', '/payments', { customerId: 'ivo', paymentId: 'sale-ivo-1', totalPaid: 40, couponLockId: lock.id }).then(
      (r) => r.status,
      () => 'connection lost',
    );
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 10_000, 'payment reached the sandbox');
    first.child.kill('SIGKILL');
    expect(await inFlight).toBe('connection lost');
    await stack.faults([]);
    await eventually(async () => (await stack.activity('ivo')).some((a) => a.type === 'Payment Processed'), 10_000, 'the payment to land upstream');

    const next = await stack.spawnBff(LEASE);
    await eventually(async () => JSON.parse((await redis.get(`${stack.redisPrefix}{cpl}:r:${lock.id}`))!).state !== 'paying', 40_000, 'the lock to be settled');
    expect((await till(next)('get', `/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('used');
    expect(Date.now()).toBeLessThan(releaseAt);
    const audited = expect.objectContaining({
      action: 'payment',
      outcome: 'settled',
      code: 'used',
      afterCrash: true,
      repair: `coupon-lock:${lock.id}`,
      couponLockId: lock.id,
      cashierId: 'anna-07',
      shiftId: 'shift-42',
    });
    await eventually(
      async () => {
        await paced();
        const entries = (await next.pos(stack.tokens.manager).get('/audit?customerId=ivo&action=payment').expect(200)).body.entries;
        return (entries as unknown[]).some((e) => audited.asymmetricMatch(e));
      },
      10_000,
      'the settlement to be audited',
    );
  }, 90_000);
});

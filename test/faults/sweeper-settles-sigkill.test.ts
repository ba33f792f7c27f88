import Redis from 'ioredis';
import request from 'supertest';
import { SANDBOX_KEYS } from '../support/e2e';
import { BffProcess, eventually, ProcessStack, startProcessStack } from './process-stack';

/**
 * A BFF killed (SIGKILL) after the upstream took a payment with a hold and
 * before it recorded it; nobody retries until the hold period is over. The
 * sweeper of another instance asks the upstream before expiring the hold,
 * learns it was used, and records the redemption as that sale's, so the
 * till's later retry of the same sale is answered as recorded.
 */
describe('a claimed hold found due after a crash', () => {
  let stack: ProcessStack;
  let first: BffProcess;
  let second: BffProcess;
  let redis: Redis;
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
    const env = { IDEMPOTENCY_LEASE_MS: '1000' };
    [first, second] = await Promise.all([stack.spawnBff(env), stack.spawnBff(env)]);
    redis = new Redis(process.env.TEST_REDIS_URL!);
  }, 30_000);
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
  });

  /** A process's clock cannot be moved: the hold's place in the shared expiry index is moved to now instead. */
  async function hostClockPastExpiry(redemptionId: string) {
    expect(await redis.zadd(`${stack.redisPrefix}{rdm}:open`, 'XX', 'CH', Date.now() - 1, redemptionId)).toBe(1);
  }

  async function payments(customerId: string) {
    return (await stack.activity(customerId)).filter((a) => a.type === 'Payment Processed');
  }

  it('records the redemption as the sale the upstream says used it, and the retry of that sale answers recorded', async () => {
    await stack.seed('dana', 1000);
    const till = (b: BffProcess) => b.pos(stack.tokens.cashier);
    const held = await till(first)
      .post('/redemptions', { customerId: 'dana', hash: await stack.hash('dana'), points: 300 })
      .set('Idempotency-Key', 'rdm-dana')
      .expect(201);

    await stack.faults([{ operation: 'payment', latencyMs: 1500 }]);
    const sale = { customerId: 'dana', paymentId: 'sale-dana-1', totalPaid: 50, redemptionId: held.body.id };
    const inFlight = till(first)
      .post('/payments', sale)
      .set('Idempotency-Key', 'sale-dana-1')
      .then(
        (r) => r.status,
        () => 'connection lost',
      );
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'payment reached the sandbox');
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await inFlight).toBe('connection lost');
    await stack.faults([]);
    // The sandbox finishes the payment it was holding back: the hold is used upstream.
    await eventually(async () => (await payments('dana')).length === 1, 5000, 'the payment to land upstream');
    expect((await till(second).get(`/redemptions/${held.body.id}`).expect(200)).body).toMatchObject({ state: 'paying', paymentId: 'sale-dana-1' });

    // The hold period ends on both sides.
    await request(stack.sandbox.url)
      .post('/_sandbox/clock/advance')
      .set(SANDBOX_KEYS)
      .send({ ms: 11 * 60_000 })
      .expect(200);
    await hostClockPastExpiry(held.body.id);

    const settled = await eventually(
      async () => {
        const r = await till(second).get(`/redemptions/${held.body.id}`).expect(200);
        return !['held', 'paying', 'voiding'].includes(r.body.state) ? r.body : undefined;
      },
      5000,
      'the sweeper to settle the hold',
    );
    expect(settled).toMatchObject({ state: 'redeemed', paymentId: 'sale-dana-1' });
    // The log line may reach us through the child's stdout just after the record changed.
    await eventually(async () => second.logs.join('\n').includes('hold outcome settled from the upstream') || undefined, 5000, 'the settlement to be logged');
    expect(second.logs.join('\n')).not.toMatch(/"msg":"hold expired"/);

    // The till finally retries the same sale with the same key: answered as recorded, applied once.
    const retry = await eventually(
      async () => {
        const r = await till(second).post('/payments', sale).set('Idempotency-Key', 'sale-dana-1');
        return r.body.code === 'idempotency_request_in_progress' ? undefined : r;
      },
      5000,
      'the crashed key to lapse',
    );
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ paymentId: 'sale-dana-1', status: 'already_recorded', redemption: { id: held.body.id, state: 'redeemed' } });
    expect(await payments('dana')).toHaveLength(1);
    expect((await stack.balance('dana')).availablePointsBalance).toBe(1000 - 300 + 50);
  });

  it('expires a claimed hold the upstream says expired, and then refuses the retry of its sale', async () => {
    await stack.seed('eli', 1000);
    const till = second.pos(stack.tokens.cashier);
    const held = await till.post('/redemptions', { customerId: 'eli', hash: await stack.hash('eli'), points: 200 }).expect(201);
    // The payment's call fails with an unknown outcome (5xx): the claim stays, the hold is not used.
    await stack.faults([{ operation: 'payment', status: 500 }]);
    const sale = { customerId: 'eli', paymentId: 'sale-eli-1', totalPaid: 20, redemptionId: held.body.id };
    expect((await till.post('/payments', sale)).status).toBeGreaterThanOrEqual(500);
    await stack.faults([]);

    await request(stack.sandbox.url)
      .post('/_sandbox/clock/advance')
      .set(SANDBOX_KEYS)
      .send({ ms: 11 * 60_000 })
      .expect(200);
    await hostClockPastExpiry(held.body.id);
    const settled = await eventually(
      async () => {
        const r = await till.get(`/redemptions/${held.body.id}`).expect(200);
        return !['held', 'paying', 'voiding'].includes(r.body.state) ? r.body : undefined;
      },
      5000,
      'the sweeper to settle the hold',
    );
    expect(settled.state).toBe('expired');
    expect((await till.post('/payments', sale).expect(409)).body).toMatchObject({ code: 'redemption_not_held', state: 'expired' });
    expect(await payments('eli')).toHaveLength(0);
    expect((await stack.balance('eli')).availablePointsBalance).toBe(1000);
  });
});

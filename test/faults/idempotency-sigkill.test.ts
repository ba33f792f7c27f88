import Redis from 'ioredis';
import { BffProcess, eventually, ProcessStack, startProcessStack } from './process-stack';

/**
 * A BFF killed with SIGKILL in the middle of a checkout: the held redemption,
 * the stored answers and the in-flight key are in Redis, so a second instance
 * carries the checkout on.
 */
describe('a BFF killed with SIGKILL mid-checkout', () => {
  const LEASE_MS = 3000;
  let stack: ProcessStack;
  let first: BffProcess;
  let second: BffProcess;
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
    [first, second] = await Promise.all([
      stack.spawnBff({ IDEMPOTENCY_LEASE_MS: String(LEASE_MS) }),
      stack.spawnBff({ IDEMPOTENCY_LEASE_MS: String(LEASE_MS) }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('leaves a hold, stored answers and a lapsing in-flight key that the other instance carries on', async () => {
    await stack.seed('bo', 1000);
    const till = (bff: BffProcess) => bff.pos(stack.tokens.cashier);

    // On instance 1: a redemption and a first sale, both with keys.
    const rdmBody = { customerId: 'bo', hash: await stack.hash('bo'), points: 200 };
    const held = await till(first).post('/redemptions', rdmBody).set('Idempotency-Key', 'rdm-bo-1').expect(201);
    expect(held.body.state).toBe('held');
    const sale0Body = { customerId: 'bo', paymentId: 'pay-bo-0', totalPaid: 10 };
    const sale0 = await till(first).post('/payments', sale0Body).set('Idempotency-Key', 'pay-bo-0').expect(201);

    // A payment in flight (the upstream takes 2 s) when instance 1 is killed.
    await stack.faults([{ operation: 'payment', latencyMs: 2000 }]);
    const sale1Body = { customerId: 'bo', paymentId: 'pay-bo-1', totalPaid: 40 };
    const inFlight = till(first)
      .post('/payments', sale1Body)
      .set('Idempotency-Key', 'pay-bo-1')
      .then(
        (r) => r.status,
        () => 'connection lost',
      );
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'payment reached the sandbox');
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await inFlight).toBe('connection lost');
    await stack.faults([]);

    // Instance 2: the running key is still held (409) until its lease lapses, then usable again.
    const busy = await till(second).post('/payments', sale1Body).set('Idempotency-Key', 'pay-bo-1').expect(409);
    expect(busy.body.code).toBe('idempotency_request_in_progress');
    const retried = await eventually(
      async () => {
        const r = await till(second).post('/payments', sale1Body).set('Idempotency-Key', 'pay-bo-1');
        return r.body.code === 'idempotency_request_in_progress' ? undefined : r;
      },
      LEASE_MS + 5000,
      'the crashed key to free',
    );
    const freedAfterMs = Date.now() - killedAt;
    // The upstream got the first attempt after all (its 2 s ended before the lease did): the retry's
    // duplicate answer is checked against the upstream's record of that id, and answered as recorded, not applied twice.
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ status: 'already_recorded', paymentId: 'pay-bo-1' });
    expect(freedAfterMs).toBeLessThan(LEASE_MS + 1500);

    // The answers stored by instance 1 are replayed by instance 2.
    const rdmAgain = await till(second).post('/redemptions', rdmBody).set('Idempotency-Key', 'rdm-bo-1').expect(201);
    expect(rdmAgain.headers['idempotent-replayed']).toBe('true');
    expect(rdmAgain.text).toBe(held.text);
    const sale0Again = await till(second).post('/payments', sale0Body).set('Idempotency-Key', 'pay-bo-0').expect(201);
    expect(sale0Again.headers['idempotent-replayed']).toBe('true');
    expect(sale0Again.text).toBe(sale0.text);

    // The hold made on instance 1 is paid on instance 2.
    expect((await till(second).get(`/redemptions/${held.body.id}`).expect(200)).body.state).toBe('held');
    const pay = await till(second)
      .post('/payments', { customerId: 'bo', paymentId: 'pay-bo-2', totalPaid: 80, totalAmount: 100, redemptionId: held.body.id })
      .set('Idempotency-Key', 'pay-bo-2')
      .expect(201);
    expect(pay.body).toMatchObject({ status: 'recorded', pointsRedeemed: 200, redemption: { id: held.body.id, state: 'redeemed' } });

    // Every sale is in the ledger exactly once; points: 1000 - 200 + 10 + 40 + 80.
    const activity = await stack.activity('bo');
    for (const id of ['pay-bo-0', 'pay-bo-1', 'pay-bo-2']) {
      expect(activity.filter((x) => x.type === 'Payment Processed' && JSON.stringify(x.properties ?? {}).includes(id))).toHaveLength(1);
    }
    expect((await stack.balance('bo')).availablePointsBalance).toBe(930);
    console.log(
      `SIGKILL: crashed key usable again on the other instance after ${freedAfterMs} ms (lease ${LEASE_MS} ms); retry answered ${retried.status} ${retried.body.code}`,
    );
  });

  it('keeps the records in Redis with their TTLs (the proof that nothing lived only in the dead process)', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      const keys = await redis.keys(`${stack.redisPrefix}idem:*`);
      expect(keys.length).toBeGreaterThanOrEqual(4);
      for (const k of keys) expect(await redis.pttl(k)).toBeGreaterThan(23 * 3_600_000);
    } finally {
      redis.disconnect();
    }
  });
});

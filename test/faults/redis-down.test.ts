import { freePort } from '../support/ports';
import { BffProcess, eventually, ProcessStack, startProcessStack } from './process-stack';
import { ThrowawayRedis } from './throwaway-redis';

describe('Redis stopped and restarted under a running BFF process', () => {
  let redis: ThrowawayRedis;
  let stack: ProcessStack;
  let bff: BffProcess;
  beforeAll(async () => {
    redis = new ThrowawayRedis(await freePort());
    await redis.start();
    stack = await startProcessStack({ redisUrl: redis.url });
    bff = await stack.spawnBff();
  }, 30_000);
  afterAll(async () => {
    await stack?.close();
    await redis?.cleanup();
  });

  it('answers 503 redis_unavailable quickly while Redis is down, accepts nothing it cannot record, and recovers by itself', async () => {
    const till = bff.pos(stack.tokens.cashier);
    await stack.seed('cy', 1000);
    const ready = await fetch(`${bff.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { redis: 'ok', upstream: 'ok', sweeper: 'ok', worker: 'ok', terminals: 'ok', loyaltyKey: 'ok', process: 'ok' },
    });
    const held = await till.post('/redemptions', { customerId: 'cy', hash: await stack.hash('cy'), points: 100 }).expect(201);

    await redis.kill();
    const down = await eventually(
      async () => {
        const r = await fetch(`${bff.url}/readyz`);
        return r.status === 503 ? ((await r.json()) as { status: string; checks: Record<string, string> }) : undefined;
      },
      5000,
      '/readyz to report Redis down',
    );
    expect(down).toEqual({
      status: 'not_ready',
      checks: { redis: 'down', upstream: 'ok', sweeper: 'ok', worker: 'ok', terminals: 'ok', loyaltyKey: 'ok', process: 'ok' },
    });
    expect((await fetch(`${bff.url}/healthz`)).status).toBe(200);

    const statuses: number[] = [];
    const timed = async (t: PromiseLike<{ status: number; body: { code?: string }; headers: Record<string, string> }>) => {
      const started = Date.now();
      const r = await t;
      statuses.push(r.status);
      return { status: r.status, body: r.body, headers: r.headers, ms: Date.now() - started };
    };
    // A redemption: refused before any hold is placed upstream.
    const rdm = await timed(till.post('/redemptions', { customerId: 'cy', hash: await stack.hash('cy'), points: 50 }));
    expect(rdm.status).toBe(503);
    expect(rdm.body.code).toBe('redis_unavailable');
    expect(rdm.headers['retry-after']).toBe('1');
    expect(rdm.ms).toBeLessThan(1500); // below the 2 s Redis command timeout: refused at once, not after waiting
    expect((await stack.balance('cy')).availablePointsBalance).toBe(900);
    // Reading or paying the held redemption, and any keyed POST: 503, nothing sent upstream.
    const read = await timed(till.get(`/redemptions/${held.body.id}`));
    expect([read.status, read.body.code]).toEqual([503, 'redis_unavailable']);
    const payHeld = await timed(till.post('/payments', { customerId: 'cy', paymentId: 'pay-cy-1', totalPaid: 40, redemptionId: held.body.id }));
    expect([payHeld.status, payHeld.body.code]).toEqual([503, 'redis_unavailable']);
    const keyed = await timed(till.post('/payments', { customerId: 'cy', paymentId: 'pay-cy-2', totalPaid: 20 }).set('Idempotency-Key', 'cy-2'));
    expect([keyed.status, keyed.body.code]).toEqual([503, 'redis_unavailable']);
    expect(Math.max(read.ms, payHeld.ms, keyed.ms)).toBeLessThan(1500);
    expect((await stack.activity('cy')).filter((x) => x.type === 'Payment Processed')).toHaveLength(0);
    // A plain payment with no key is refused too: the store that rang the sale up could not be recorded (refunds are store-scoped).
    const plain = await timed(till.post('/payments', { customerId: 'cy', paymentId: 'pay-cy-3', totalPaid: 30 }));
    expect([plain.status, plain.body.code]).toEqual([503, 'redis_unavailable']);
    expect((await stack.activity('cy')).filter((x) => x.type === 'Payment Processed')).toHaveLength(0);
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);

    // Redis comes back on the same port: the BFF reconnects by itself.
    const restartedAt = Date.now();
    await redis.start();
    await eventually(async () => (await fetch(`${bff.url}/readyz`)).status === 200, 10_000, '/readyz back to 200');
    const recoveredMs = Date.now() - restartedAt;
    // The hold survived in Redis (append-only file) and is paid now; the keyed payment goes through.
    expect((await till.get(`/redemptions/${held.body.id}`).expect(200)).body.state).toBe('held');
    await till.post('/payments', { customerId: 'cy', paymentId: 'pay-cy-1', totalPaid: 40, redemptionId: held.body.id }).expect(201);
    await till.post('/payments', { customerId: 'cy', paymentId: 'pay-cy-3', totalPaid: 30 }).expect(201);
    await till.post('/payments', { customerId: 'cy', paymentId: 'pay-cy-2', totalPaid: 20 }).set('Idempotency-Key', 'cy-2').expect(201);
    const replay = await till.post('/payments', { customerId: 'cy', paymentId: 'pay-cy-2', totalPaid: 20 }).set('Idempotency-Key', 'cy-2').expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await till.post('/redemptions', { customerId: 'cy', hash: await stack.hash('cy'), points: 50 }).expect(201);
    // 1000 - 100 redeemed + 30 + 40 + 20 earned - 50 held.
    expect((await stack.balance('cy')).availablePointsBalance).toBe(940);

    const logs = bff.logs.join('\n');
    expect(logs).toContain('redis reconnected');
    expect(logs).not.toMatch(/"statusCode":500/);
    console.log(
      `Redis down: redemption 503 in ${rdm.ms} ms, read ${read.ms} ms, keyed POST ${keyed.ms} ms; ready again ${recoveredMs} ms after Redis restarted`,
    );
  });
});

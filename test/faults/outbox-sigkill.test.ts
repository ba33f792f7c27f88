import Redis from 'ioredis';
import { eventually, ProcessStack, startProcessStack } from './process-stack';

/**
 * A BFF process killed with SIGKILL while it holds queued payments (some of
 * them in flight to the upstream at that moment): a second instance, started
 * afterwards on the same Redis, claims them (XAUTOCLAIM after the idle time)
 * and delivers every one exactly once.
 */
const ENV = {
  LOG_LEVEL: 'info',
  LOYALTY_RETRIES: '0',
  LOYALTY_TIMEOUT_MS: '3000',
  OUTBOX_CLAIM_IDLE_MS: '1000',
  OUTBOX_POLL_INTERVAL_MS: '50',
  OUTBOX_BACKOFF_BASE_MS: '100',
  OUTBOX_BACKOFF_MAX_MS: '300',
  BREAKER_FAILURE_THRESHOLD: '10000',
};

describe('outbox entries of a killed instance', () => {
  let stack: ProcessStack;
  let redis: Redis;
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
    redis = new Redis(process.env.TEST_REDIS_URL!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
  });

  it('SIGKILL with 40 payments queued (some in flight): a second instance delivers them all, once each', async () => {
    const a = await stack.spawnBff(ENV);
    const customers = Array.from({ length: 8 }, (_, i) => `sk-c${i}`);
    for (const c of customers) await stack.seed(c, 0);
    const sales = Array.from({ length: 40 }, (_, i) => ({ customerId: customers[i % 8], paymentId: `sk-sale-${i}`, totalPaid: 10 + (i % 5) }));

    await stack.faults([{ operation: 'payment', status: 503 }]);
    const answers = await Promise.all(sales.map((x) => a.pos(stack.tokens.cashier).post('/payments', x)));
    expect(answers.map((r) => r.status)).toEqual(sales.map(() => 202));
    const ids = answers.map((r) => r.body.outboxId as string);

    // A's worker holds them all (its pending list in the consumer group)...
    const stream = `${stack.redisPrefix}{obx}:stream`;
    const owners = async () => ((await redis.xpending(stream, 'delivery', '-', '+', 100)) as [string, string][]).map((x) => x[1]);
    await eventually(async () => (await owners()).length === 40, 15_000, 'A to take the entries');
    const aConsumer = (await owners())[0];
    expect(new Set(await owners())).toEqual(new Set([aConsumer]));

    // ...and is sending some when it dies: the sandbox holds them 1.5 s and then applies them.
    await stack.faults([{ operation: 'payment', latencyMs: 1500 }]);
    await eventually(async () => (await stack.faultsApplied())[0] >= 6, 15_000, 'deliveries in flight');
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    const inFlight = (await stack.faultsApplied())[0];
    // What A had sent lands in the sandbox after its latency, A being dead or not.
    const recordedCount = async () => {
      let n = 0;
      for (const c of customers) n += (await stack.activity(c)).filter((x) => x.type === 'Payment Processed').length;
      return n;
    };
    await eventually(async () => (await recordedCount()) === inFlight, 15_000, 'the in-flight payments to land');
    await stack.faults([]);

    const b = await stack.spawnBff(ENV);
    await eventually(async () => (await redis.xlen(stream)) === 0, 30_000, 'B to deliver everything');

    // Every payment once in the sandbox, its points once.
    for (const c of customers) {
      const mine = sales.filter((x) => x.customerId === c);
      const recorded = (await stack.activity(c)).filter((x) => x.type === 'Payment Processed').map((x) => String(x.properties?.paymentId));
      expect(recorded.sort()).toEqual(mine.map((x) => x.paymentId).sort());
      expect((await stack.balance(c)).availablePointsBalance).toBe(mine.reduce((n, x) => n + x.totalPaid, 0));
    }
    const states = await Promise.all(ids.map(async (id) => (await b.pos(stack.tokens.cashier).get(`/outbox/${id}`).expect(200)).body));
    expect(states.map((x) => x.state)).toEqual(ids.map(() => 'delivered'));
    // B claimed A's entries and delivered them; the ones A had in flight were found already recorded.
    const delivered = b.logs.filter((l) => l.includes('"msg":"outbox entry delivered"'));
    expect(delivered).toHaveLength(40);
    expect(states.filter((x) => x.result?.alreadyRecorded).length).toBe(inFlight);
    expect(await redis.xpending(stream, 'delivery')).toEqual([0, null, null, null]);
    console.log(`SIGKILL: ${inFlight} deliveries were in flight; B delivered 40 (${states.filter((x) => x.result?.alreadyRecorded).length} already recorded)`);
    b.child.kill('SIGTERM');
    expect((await b.exited).code).toBe(0);
  }, 60_000);

  it('SIGTERM: the instance stops cleanly (exit 0) and hands its entries back, so another delivers them at once, not after the claim idle time', async () => {
    const env = { ...ENV, OUTBOX_CLAIM_IDLE_MS: '60000' };
    const a = await stack.spawnBff(env);
    await stack.seed('st-ana', 0);
    await stack.faults([{ operation: 'payment', status: 503 }]);
    const sales = Array.from({ length: 5 }, (_, i) => ({ customerId: 'st-ana', paymentId: `st-sale-${i}`, totalPaid: 10 }));
    for (const x of sales) await a.pos(stack.tokens.cashier).post('/payments', x).expect(202);
    const stream = `${stack.redisPrefix}{obx}:stream`;
    await eventually(async () => ((await redis.xpending(stream, 'delivery')) as [number])[0] === 5, 15_000, 'A to take the entries');

    a.child.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);
    await stack.faults([]);
    const b = await stack.spawnBff(env);
    const started = Date.now();
    await eventually(async () => (await redis.xlen(stream)) === 0, 30_000, 'B to deliver');
    // Well inside the 60 s claim idle time: A marked them idle when it stopped.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect((await stack.activity('st-ana')).filter((x) => x.type === 'Payment Processed')).toHaveLength(5);
    expect((await stack.balance('st-ana')).availablePointsBalance).toBe(50);
    // The last line may reach us through B's stdout just after its entry left the stream.
    const delivered = () => b.logs.filter((l) => l.includes('"msg":"outbox entry delivered"')).length;
    await eventually(async () => delivered() >= 5 || undefined, 5000, 'B to log its deliveries');
    expect(delivered()).toBe(5);
  }, 60_000);
});

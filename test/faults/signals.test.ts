import http from 'node:http';
import Redis from 'ioredis';
import { eventually, ProcessStack, startProcessStack } from './process-stack';

/** SIGTERM on a real BFF process: in-flight requests finish, then a clean exit within SHUTDOWN_TIMEOUT_MS. */
describe('SIGTERM', () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
  });
  afterAll(async () => {
    await stack?.close();
  });
  const afterCleanup: (() => void)[] = [];
  afterEach(async () => {
    for (const f of afterCleanup.splice(0)) f();
    await stack.faults([]);
  });

  /** A POST over a plain keep-alive agent, so the connection stays open as a till's would. */
  function post(url: string, token: string, path: string, body: object, headers: Record<string, string>, agent: http.Agent) {
    return new Promise<{ status: number; body: Record<string, unknown>; connection?: string }>((resolve, reject) => {
      const req = http.request(
        `${url}/pos/v1${path}`,
        { method: 'POST', agent, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}'), connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  it('finishes a slow payment in flight (2xx, recorded for replay), refuses new connections, exits 0 within the bound', async () => {
    const bff = await stack.spawnBff({ SHUTDOWN_TIMEOUT_MS: '5000' });
    await stack.seed('sig', 0);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    afterCleanup.push(() => agent.destroy());
    // An idle keep-alive connection must not hold the shutdown up.
    expect((await post(bff.url, stack.tokens.cashier, '/payments', { customerId: 'sig', paymentId: 'pay-sig-0', totalPaid: 10 }, {}, agent)).status).toBe(201);

    await stack.faults([{ operation: 'payment', latencyMs: 1500 }]);
    const slow = post(
      bff.url,
      stack.tokens.cashier,
      '/payments',
      { customerId: 'sig', paymentId: 'pay-sig-1', totalPaid: 25 },
      { 'Idempotency-Key': 'sig-1' },
      agent,
    );
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'payment reached the sandbox');
    const signalledAt = Date.now();
    bff.child.kill('SIGTERM');

    // New connections are refused at once, while the slow one is still running.
    await eventually(
      async () =>
        await fetch(`${bff.url}/healthz`).then(
          () => false,
          () => true,
        ),
      2000,
      'listener closed',
    );
    const answer = await slow;
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ paymentId: 'pay-sig-1', status: 'recorded', pointsEarned: 25 });
    // It began before the signal, so it may say keep-alive: the connection is closed once it goes idle (the exit below proves it).

    const exit = await bff.exited;
    const exitMs = Date.now() - signalledAt;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeGreaterThanOrEqual(1000);
    expect(exitMs).toBeLessThan(5000);
    expect(bff.logs.join('\n')).toContain('shutdown complete');

    // The answer was stored before it was sent: a retry on another instance replays it.
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      const record = JSON.parse((await redis.get(`${stack.redisPrefix}idem:{${stack.terminalIds.cashier}}:sig-1`)) ?? '{}');
      expect(record).toMatchObject({ s: 'd', r: { status: 201 } });
    } finally {
      redis.disconnect();
    }
    expect((await stack.balance('sig')).totalPointsBalance).toBe(35);
    console.log(`SIGTERM with a 1.5 s request in flight: answered 201, exit 0 after ${exitMs} ms`);
  });

  it('exits 0 at once when idle', async () => {
    const bff = await stack.spawnBff();
    const signalledAt = Date.now();
    bff.child.kill('SIGTERM');
    expect(await bff.exited).toEqual({ code: 0, signal: null });
    const exitMs = Date.now() - signalledAt;
    expect(exitMs).toBeLessThan(3000);
    console.log(`SIGTERM idle: exit 0 after ${exitMs} ms`);
  });

  it('gives up with exit 1 when a request outlives SHUTDOWN_TIMEOUT_MS', async () => {
    const bff = await stack.spawnBff({ SHUTDOWN_TIMEOUT_MS: '800' });
    await stack.seed('late', 0);
    await stack.faults([{ operation: 'payment', latencyMs: 4000 }]);
    const stuck = bff
      .pos(stack.tokens.cashier)
      .post('/payments', { customerId: 'late', paymentId: 'pay-late-1', totalPaid: 5 })
      .then(
        (r) => r.status,
        () => 'cut off',
      );
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 5000, 'payment reached the sandbox');
    const signalledAt = Date.now();
    bff.child.kill('SIGTERM');
    expect(await bff.exited).toEqual({ code: 1, signal: null });
    const exitMs = Date.now() - signalledAt;
    expect(exitMs).toBeGreaterThanOrEqual(700);
    // Cut off at the bound, long before the 4 s request would have ended.
    expect(exitMs).toBeLessThan(3000);
    expect(await stuck).toBe('cut off');
    expect(bff.logs.join('\n')).toContain('shutdown took too long');
  });
});

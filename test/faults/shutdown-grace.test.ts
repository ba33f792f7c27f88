import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { eventually, ProcessStack, startProcessStack } from './process-stack';
import { freePort } from '../support/ports';

/**
 * SIGTERM on a real BFF process (sandbox upstream, real Redis) while tills sell:
 * readiness turns 503 at once on both listeners, the till port keeps accepting
 * for SHUTDOWN_GRACE_SECONDS, then drains the sales in flight and exits.
 */
const GRACE_S = 3;
const DRAIN_MS = 6000;
const TILLS = 8;

interface Sent {
  paymentId: string;
  customerId: string;
  startedAt: number;
  status?: number;
  connection?: string;
  error?: string;
}

/** One sale over real HTTP: a keep-alive till reuses its connection, another opens a new one per sale. */
function sell(url: string, token: string, body: { customerId: string; paymentId: string; totalPaid: number }, agent: http.Agent | false): Promise<Sent> {
  const sent: Sent = { paymentId: body.paymentId, customerId: body.customerId, startedAt: Date.now() };
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/pos/v1/payments`,
      {
        method: 'POST',
        agent,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': randomUUID(),
          ...(agent ? {} : { Connection: 'close' }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ ...sent, status: res.statusCode, connection: res.headers.connection }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ ...sent, error: err.code ?? err.message }));
    req.end(JSON.stringify(body));
  });
}

/** A new connection to `url`: 'refused' once nothing listens there. */
const probe = (url: string) =>
  fetch(url, { headers: { Connection: 'close' } }).then(
    async (res) => ({ status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } }),
    (err: { cause?: { code?: string } }) => ({ status: 0, refused: err.cause?.code === 'ECONNREFUSED' }),
  );

describe('SIGTERM under a load of sales', () => {
  let stack: ProcessStack;
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('answers 503 on /readyz at once, keeps selling through the grace, drains what is in flight and exits within grace + drain', async () => {
    const opsPort = await freePort();
    const bff = await stack.spawnBff({ SHUTDOWN_GRACE_SECONDS: String(GRACE_S), SHUTDOWN_TIMEOUT_MS: String(DRAIN_MS), OPS_PORT: String(opsPort) });
    const opsUrl = `http://127.0.0.1:${opsPort}`;
    await eventually(async () => (await probe(`${bff.url}/readyz`)).status === 200, 15_000, 'ready');
    // Every sale takes a second upstream, so some are still in flight when the grace ends.
    await stack.faults([{ operation: 'payment', latencyMs: 1000 }]);

    const results: Sent[] = [];
    let stopAt = Infinity;
    const agents: http.Agent[] = [];
    const tills = Array.from({ length: TILLS }, async (_, i) => {
      const customerId = `grace-${i}`;
      await stack.seed(customerId, 0);
      // Half keep their connection open, as a till's HTTP client does; half open one per sale.
      const agent = i % 2 === 0 ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false;
      if (agent) agents.push(agent);
      for (let n = 0; Date.now() < stopAt; n++) {
        results.push(await sell(bff.url, stack.tokens.cashier, { customerId, paymentId: `pay-grace-${i}-${n}`, totalPaid: 1 }, agent));
      }
    });
    try {
      await eventually(async () => new Set(results.filter((r) => r.status === 201).map((r) => r.customerId)).size === TILLS, 20_000, 'every till sold once');

      const signalledAt = Date.now();
      // The tills stop starting sales just before the grace ends (it starts when the process gets the signal, later than this).
      stopAt = signalledAt + GRACE_S * 1000 - 500;
      bff.child.kill('SIGTERM');

      // Readiness says so at once, on the till port and the ops listener alike, while the till port still accepts.
      const notReady = await eventually(
        async () => {
          const [tillPort, ops] = await Promise.all([probe(`${bff.url}/readyz`), probe(`${opsUrl}/readyz`)]);
          return tillPort.status === 503 && ops.status === 503 ? { tillPort, ops, at: Date.now() } : undefined;
        },
        GRACE_S * 1000,
        '/readyz 503 during the grace',
      );
      expect(notReady.tillPort).toMatchObject({ body: { status: 'not_ready', checks: { process: 'shutting_down' } } });
      expect(notReady.ops).toMatchObject({ body: { checks: { process: 'shutting_down' } } });

      // Once the grace is over the port stops accepting (the drain); not before.
      const refusedAt = await eventually(
        async () => ((await probe(`${bff.url}/healthz`)) as { refused?: boolean }).refused && Date.now(),
        GRACE_S * 1000 + DRAIN_MS,
        'the till port closed after the grace',
      );
      expect(refusedAt - signalledAt).toBeGreaterThanOrEqual(GRACE_S * 1000);
      const exit = await bff.exited;
      const exitMs = Date.now() - signalledAt;
      await Promise.all(tills);

      // No sale met a refused or reset connection; each got an answer, and a sale answered 2xx is on record upstream.
      const duringGrace = results.filter((r) => r.startedAt >= signalledAt);
      expect(duringGrace.length).toBeGreaterThanOrEqual(TILLS);
      expect(results.filter((r) => r.error)).toEqual([]);
      expect(results.filter((r) => r.status !== 201 && r.status !== 202)).toEqual([]);
      // In flight when the drain began (started less than the upstream's second before it), answered all the same.
      expect(results.filter((r) => r.startedAt > signalledAt + GRACE_S * 1000 - 1000).length).toBeGreaterThan(0);
      for (let i = 0; i < TILLS; i++) {
        const recorded = new Set(
          (await stack.activity(`grace-${i}`)).filter((a) => a.type === 'Payment Processed').map((a) => JSON.stringify(a.properties ?? {})),
        );
        for (const r of results.filter((x) => x.customerId === `grace-${i}`)) expect([...recorded].some((p) => p.includes(`"${r.paymentId}"`))).toBe(true);
      }
      // Keep-alive tills were told to move on: every answer sent after readiness turned 503 closed its connection.
      const afterNotReady = results.filter((r) => r.startedAt >= notReady.at);
      expect(afterNotReady.length).toBeGreaterThan(0);
      expect(afterNotReady.filter((r) => r.connection !== 'close')).toEqual([]);

      expect(exit).toEqual({ code: 0, signal: null });
      // Generous slack over grace + drain for a busy machine; the drain itself took about the upstream's second.
      expect(exitMs).toBeLessThan(GRACE_S * 1000 + DRAIN_MS + 5000);

      // Each phase logged once; readiness logged on change (ready once, not ready once), never a line per probe.
      const lines = bff.logs.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const count = (prefix: string) => lines.filter((l) => String(l.msg).startsWith(prefix)).length;
      expect([count('shutdown: grace period'), count('shutdown: draining'), count('shutdown complete')]).toEqual([1, 1, 1]);
      const shuttingDown = lines.filter((l) => l.readiness === 'not_ready' && (l.failing as Record<string, string>).process === 'shutting_down');
      expect(shuttingDown).toEqual([expect.objectContaining({ level: 40, failing: { process: 'shutting_down' } })]);
      expect(shuttingDown[0]).not.toHaveProperty('err');
      expect(lines.filter((l) => (l.req as { url?: string } | undefined)?.url === '/readyz')).toEqual([]);
      console.log(
        `SIGTERM under load: ${results.length} sales answered (${duringGrace.length} started in the grace), 503 seen after ` +
          `${notReady.at - signalledAt} ms, port closed after ${refusedAt - signalledAt} ms, exit 0 after ${exitMs} ms`,
      );
    } finally {
      stopAt = 0;
      await Promise.all(tills).catch(() => undefined);
      for (const a of agents) a.destroy();
      await stack.faults([]);
    }
  }, 90_000);

  it('a second signal ends the grace at once', async () => {
    const bff = await stack.spawnBff({ SHUTDOWN_GRACE_SECONDS: '120' });
    bff.child.kill('SIGTERM');
    await eventually(async () => bff.logs.some((l) => l.includes('shutdown: grace period')), 10_000, 'the grace to begin');
    const secondAt = Date.now();
    bff.child.kill('SIGINT');
    expect(await bff.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - secondAt).toBeLessThan(10_000);
    expect(bff.logs.filter((l) => l.includes('shutdown: second signal'))).toHaveLength(1);
  }, 30_000);
});

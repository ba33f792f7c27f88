import { startStack, Stack } from '../support/e2e';
import { eventually, faultsApplied, paymentsOf, pending, setFaults } from '../pos/outbox/stack-helpers';

/**
 * The circuit breaker around the loyalty service, end to end: it opens after
 * N consecutive failures, then fails fast without calling the upstream (the
 * sandbox's fault counters prove nothing was sent), half-opens after the delay
 * (on the BFF's injected clock), and closes when the probe succeeds. While it is
 * open, reads answer 503 and writes are queued.
 */
describe('circuit breaker', () => {
  let s: Stack;
  const HALF_OPEN_MS = 5000;
  beforeAll(async () => {
    s = await startStack({
      store: 'memory',
      env: {
        LOYALTY_RETRIES: '0',
        BREAKER_FAILURE_THRESHOLD: '3',
        BREAKER_HALF_OPEN_AFTER_MS: String(HALF_OPEN_MS),
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_BASE_MS: '50',
        OUTBOX_BACKOFF_MAX_MS: '200',
      },
    });
    await s.seed('br-ana', 0);
  });
  afterAll(async () => {
    await s?.close();
  });

  const hash = () => s.pos('kiosk').get('/customers/br-ana/hash');
  // Rule 1 fails hash calls; rule 2 (a no-op) counts every call that reaches the sandbox.
  const failing = [
    { operation: 'hash', status: 503 },
    { operation: '*', latencyMs: 0 },
  ];
  const sent = async () => (await faultsApplied(s))[1];

  it('opens after 3 failures, fails fast without sending, half-opens, re-opens on a failed probe, closes on a good one', async () => {
    await setFaults(s, failing);
    for (let i = 0; i < 3; i++) expect((await hash().expect(503)).body.code).toBe('upstream_unavailable');
    expect(s.bff.breaker.state).toBe('open');
    expect(await sent()).toBe(3);

    // Open: every call fails at once, reads with 503 and Retry-After, and none reaches the sandbox.
    for (let i = 0; i < 10; i++) {
      const started = Date.now();
      const res = await hash().expect(503);
      expect(res.body.code).toBe('upstream_circuit_open');
      expect(res.headers['retry-after']).toBe(String(HALF_OPEN_MS / 1000));
      expect(Date.now() - started).toBeLessThan(1000); // a sent call would wait out the upstream; this bound only leaves room for a busy CI machine
    }
    expect((await s.pos('cashier').get('/customers/br-ana').expect(503)).body.code).toBe('upstream_circuit_open');
    expect(await sent()).toBe(3);

    // Half-open after the delay: one probe goes out; it fails, so the circuit opens for another full delay.
    expect(s.bff.breaker.state).toBe('open');
    await s.advance(HALF_OPEN_MS);
    expect(s.bff.breaker.state).toBe('half_open');
    expect((await hash().expect(503)).body.code).toBe('upstream_unavailable');
    expect(await sent()).toBe(4);
    expect(s.bff.breaker.state).toBe('open');
    expect((await hash().expect(503)).body.code).toBe('upstream_circuit_open');
    expect(await sent()).toBe(4);

    // While open, a write is queued instead, without a call.
    const queued = await s.pos('cashier').post('/payments', { customerId: 'br-ana', paymentId: 'br-sale-1', totalPaid: 25 }).expect(202);
    expect(queued.body.reason).toBe('upstream_circuit_open');
    expect(await sent()).toBe(4);
    expect(await pending(s)).toBe(1);

    // The upstream recovers: after the delay the probe succeeds and the circuit closes; the queued payment goes out.
    await setFaults(s, [{ operation: '*', latencyMs: 0 }]);
    await s.advance(HALF_OPEN_MS);
    await eventually('the circuit to close', async () => {
      await hash();
      return s.bff.breaker.state === 'closed';
    });
    await hash().expect(200);
    await eventually('the queued payment', async () => (await pending(s)) === 0);
    expect(await paymentsOf(s, 'br-ana')).toEqual(['br-sale-1']);
    expect((await s.pos('cashier').get(`/outbox/${queued.body.outboxId}`).expect(200)).body).toMatchObject({
      state: 'delivered',
      result: { pointsEarned: 25 },
    });

    const logs = s.logs.join('\n');
    expect(logs).toContain('circuit to the loyalty service opened');
    expect(logs).toContain('circuit to the loyalty service half-open: probing');
    expect(logs).toContain('circuit to the loyalty service closed');
  });
});

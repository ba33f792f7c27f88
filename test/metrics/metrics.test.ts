import request from 'supertest';
import { createMetrics } from '../../src/platform/metrics';
import { heldRedemption, PAST_HOLD_MS, waitFor } from '../e2e/helpers';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { total } from './prometheus';

describe('createMetrics', () => {
  it('gives each app its own registry, so several can live in one process', async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.holdsExpired.inc({ via: 'sweep' });
    expect(total(await a.render(), 'pos_holds_expired_total')).toBe(1);
    expect(total(await b.render(), 'pos_holds_expired_total')).toBeUndefined();
  });

  it('reads sampled gauges at scrape time, and reports NaN (unknown) while a source fails', async () => {
    const m = createMetrics({ defaultMetrics: false });
    let open = 3;
    m.sample('holdsOpen', () => open);
    expect(total(await m.render(), 'pos_holds_open')).toBe(3);
    open = 5;
    expect(total(await m.render(), 'pos_holds_open')).toBe(5);
    m.sample('holdsOpen', () => Promise.reject(new Error('redis down')));
    expect(total(await m.render(), 'pos_holds_open')).toBeNaN();
    expect(await m.render()).toMatch(/^pos_holds_open nan$/im);
    m.setCircuitState('open');
    expect(total(await m.render(), 'loyalty_upstream_circuit_state')).toBe(2);
  });
});

describe('GET /metrics after a checkout (redis store)', () => {
  let s: Stack;
  let text: () => Promise<string>;
  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
    text = async () =>
      (
        await request(s.bff.url)
          .get('/metrics')
          .expect(200)
          .expect('Content-Type', /^text\/plain; version=0\.0\.4/)
      ).text;
  });
  afterAll(async () => {
    await s?.close();
  });

  it('counts requests by route pattern, status and terminal role, with latency', async () => {
    await s.seed('m-alice', 1000);
    await s.pos('cashier').get('/customers/m-alice').expect(200);
    await s.pos('cashier').get('/customers/m-alice').expect(200);
    await s.pos('kiosk').get('/customers/m-alice').expect(403);
    await request(s.bff.url).get('/pos/v1/customers/m-alice').expect(401);
    await request(s.bff.url).get('/no/such/route/123').expect(404);
    const t = await text();
    expect(total(t, 'http_requests_total', { method: 'GET', route: '/pos/v1/customers/:id', status: '200', role: 'cashier' })).toBe(2);
    expect(total(t, 'http_requests_total', { route: '/pos/v1/customers/:id', status: '403', role: 'kiosk' })).toBe(1);
    // Refused before routing: the router's prefix, never the raw URL.
    expect(total(t, 'http_requests_total', { route: '/pos/v1/*', status: '401', role: 'none' })).toBe(1);
    expect(total(t, 'http_requests_total', { route: '(unmatched)', status: '404' })).toBe(1);
    expect(t).not.toContain('m-alice');
    expect(t).not.toContain('/no/such/route');
    expect(total(t, 'http_request_duration_seconds_count', { route: '/pos/v1/customers/:id', status: '200' })).toBe(2);
    // Balance, tier progress and coupons per summary.
    expect(total(t, 'loyalty_upstream_requests_total', { operation: 'balance', outcome: 'ok' })).toBe(2);
    expect(total(t, 'loyalty_upstream_request_duration_seconds_count', { operation: 'coupons', outcome: 'ok' })).toBe(2);
    expect(total(t, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('follows redemptions through their states, and the open holds', async () => {
    const before = await text();
    const created = total(before, 'pos_redemption_transitions_total', { from: 'none', to: 'held' }) ?? 0;
    const r = await heldRedemption(s, 'm-bob', 100, { seed: 500 });
    let t = await text();
    expect(total(t, 'pos_redemption_transitions_total', { from: 'none', to: 'held' })).toBe(created + 1);
    expect(total(t, 'pos_holds_open')).toBe(1);
    await s.pos('cashier').post('/payments', { customerId: 'm-bob', paymentId: 'm-pay-1', totalPaid: 40, redemptionId: r.id }).expect(201);
    t = await text();
    expect(total(t, 'pos_redemption_transitions_total', { from: 'held', to: 'paying' })).toBe(1);
    expect(total(t, 'pos_redemption_transitions_total', { from: 'paying', to: 'redeemed' })).toBe(1);
    expect(total(t, 'pos_holds_open')).toBe(0);
    const v = await heldRedemption(s, 'm-bob', 50);
    await s.pos('cashier').post(`/redemptions/${v.id}/void`).expect(200);
    expect(total(await text(), 'pos_redemption_transitions_total', { from: 'voiding', to: 'voided' })).toBe(1);
  });

  it('counts holds the sweeper expires', async () => {
    await heldRedemption(s, 'm-carol', 100, { seed: 500 });
    await s.advance(PAST_HOLD_MS);
    let t = '';
    await waitFor('the sweeper to expire the hold', async () => {
      t = await text();
      return (total(t, 'pos_holds_expired_total') ?? 0) >= 1;
    });
    expect(total(t, 'pos_holds_expired_total', { via: 'sweep' })).toBe(1);
    expect(total(t, 'pos_redemption_transitions_total', { from: 'held', to: 'expired' })).toBe(1);
    expect(total(t, 'pos_holds_open')).toBe(0);
  });

  it('counts idempotent replays', async () => {
    const body = { customerId: 'm-alice', events: { store_visit: { floor: 1 } } };
    const send = () => s.pos('cashier').post('/events', body).set('Idempotency-Key', 'metrics-replay-1');
    const first = await send();
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(total(await text(), 'pos_idempotent_replays_total')).toBe(1);
  });

  it('reports Redis up, and the circuit breaker closed', async () => {
    const t = await text();
    expect(total(t, 'redis_up')).toBe(1);
    expect(total(t, 'redis_errors_total')).toBe(0);
    expect(total(t, 'loyalty_upstream_circuit_state')).toBe(0);
  });
});

/** A stack with fast outbox delivery, and sandbox faults to make the loyalty service fail. */
function faultyStack(env: Record<string, string>) {
  const ctx = {
    s: undefined as unknown as Stack,
    scrape: async () => (await request(ctx.s.bff.url).get('/metrics').expect(200)).text,
    faults: (rules: object[]) => ctx.s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200),
    clearFaults: () => ctx.s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200),
  };
  beforeAll(async () => {
    ctx.s = await startStack({ store: 'memory', env: { LOYALTY_RETRIES: '0', OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_BACKOFF_BASE_MS: '50', ...env } });
  });
  afterAll(async () => {
    await ctx.s?.close();
  });
  return ctx;
}

describe('outbox metrics', () => {
  // Returns at any branch: a refund of a sale no store rang up (one that dies) is then sent, for the upstream to refuse.
  const f = faultyStack({ BREAKER_FAILURE_THRESHOLD: '1000', RETURNS_AT_ANY_BRANCH: 'true' });

  it('shows the outbox filling while the loyalty service is away, then its deliveries and dead letters', async () => {
    const { s } = f;
    await s.seed('mo-alice', 100);
    await f.faults([
      { operation: 'payment', status: 503 },
      { operation: 'refund', status: 503 },
    ]);
    await s.pos('cashier').post('/payments', { customerId: 'mo-alice', paymentId: 'mo-sale-1', totalPaid: 30 }).expect(202);
    await s.pos('manager').post('/refunds', { customerId: 'mo-bob', refundId: 'mo-ref-1', paymentId: 'mo-no-such-sale' }).expect(202);
    let t = await f.scrape();
    expect(total(t, 'pos_outbox_depth')).toBe(2);
    await f.clearFaults();
    await waitFor(
      'the outbox to drain',
      async () => {
        t = await f.scrape();
        return total(t, 'pos_outbox_depth') === 0 && total(t, 'pos_outbox_dead_letters_total') === 1;
      },
      5_000,
    );
    expect(total(t, 'pos_outbox_deliveries_total', { operation: 'payment', outcome: 'delivered' })).toBe(1);
    expect(total(t, 'pos_outbox_deliveries_total', { operation: 'refund', outcome: 'dead' })).toBe(1);
    expect(total(t, 'pos_outbox_dead_letters_total', { operation: 'refund' })).toBe(1);
    expect(total(t, 'loyalty_upstream_requests_total', { operation: 'payment', outcome: 'unavailable' })).toBeGreaterThanOrEqual(1);
    expect(total(t, 'loyalty_upstream_requests_total', { operation: 'payment', outcome: 'ok' })).toBe(1);
  });
});

describe('circuit breaker metric', () => {
  const f = faultyStack({ BREAKER_FAILURE_THRESHOLD: '3', BREAKER_HALF_OPEN_AFTER_MS: '60000' });

  it('shows the circuit open after repeated failures, and closed again after a good probe', async () => {
    const { s } = f;
    await s.seed('mo-carol', 100);
    expect(total(await f.scrape(), 'loyalty_upstream_circuit_state')).toBe(0);
    await f.faults([{ operation: '*', status: 503 }]);
    for (let i = 0; i < 3; i++) await s.pos('cashier').get('/customers/mo-carol').expect(503);
    expect(total(await f.scrape(), 'loyalty_upstream_circuit_state')).toBe(2);
    await f.clearFaults();
    await s.advance(61_000);
    await s.pos('cashier').get('/customers/mo-carol').expect(200);
    expect(total(await f.scrape(), 'loyalty_upstream_circuit_state')).toBe(0);
  });
});

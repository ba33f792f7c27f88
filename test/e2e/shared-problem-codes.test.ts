import { startStack, Stack } from '../support/e2e';
import { setFaults } from '../pos/outbox/stack-helpers';

/**
 * The codes every route that calls the loyalty service can answer, and the
 * key-in-use answer every POST can give, each produced over real HTTP (the
 * sandbox's faults), so each is listed in the document because a till can
 * really meet it (test/support/problem-codes.ts checks both ways).
 */
describe('shared problem codes, produced for real', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { LOYALTY_RETRIES: '0', LOYALTY_TIMEOUT_MS: '300', BREAKER_FAILURE_THRESHOLD: '10000' } });
    await s.seed('shared-1', 100);
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });

  it('no answer in LOYALTY_TIMEOUT_MS: 503 upstream_timeout', async () => {
    await setFaults(s, [{ operation: '*', latencyMs: 3000 }]);
    const res = await s.pos('cashier').get('/customers/shared-1');
    expect([res.status, res.body.code]).toEqual([503, 'upstream_timeout']);
  });

  it('an answer cut short: 502 upstream_invalid_response', async () => {
    await setFaults(s, [{ operation: '*', brokenBody: true }]);
    const res = await s.pos('cashier').get('/customers/shared-1');
    expect([res.status, res.body.code]).toEqual([502, 'upstream_invalid_response']);
  });

  it('the same Idempotency-Key while the first is still running: 409 idempotency_request_in_progress', async () => {
    await setFaults(s, [{ operation: '*', latencyMs: 250 }]);
    const send = () =>
      s
        .pos('cashier')
        .post('/events', { customerId: 'shared-1', events: { store_visit: {} } })
        .set('Idempotency-Key', 'shared-key-1');
    const first = send();
    // The second leaves once the first holds its key: the first is still waiting on the sandbox.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const [a, b] = await Promise.all([first, send()]);
    expect([a.status, b.status, b.body.code]).toEqual([200, 409, 'idempotency_request_in_progress']);
  });
});

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * Problem codes a till meets only when something goes wrong at the same time
 * as its request (a slow or refusing loyalty service, a second request on the
 * same redemption, an instance that died), each produced over real HTTP on
 * the operation that lists it (test/support/problem-codes.ts checks both ways).
 */
describe('rare problem codes, produced for real', () => {
  let s: Stack;
  const faults = (rules: object[]) => s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
  const metric = async (name: string) => (await s.bff.metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
  /** A redemption waiting for the code the customer was sent, and that code. */
  const awaitingOtp = async (customerId: string) => {
    await s.seed(customerId, 100);
    const started = await s
      .pos('cashier')
      .post('/redemptions', { customerId, hash: await s.hash(customerId), points: 50 })
      .expect(201);
    expect(started.body.state).toBe('otp_required');
    return { id: started.body.id as string, otp: await s.otp(customerId) };
  };

  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      account: { otpEnabled: true },
      env: { LOYALTY_RETRIES: '0', LOYALTY_TIMEOUT_MS: '15000', BREAKER_FAILURE_THRESHOLD: '10000' },
    });
  });
  afterAll(() => s?.close());
  afterEach(async () => {
    await s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  });

  it('a second code for a redemption whose first code is still placing the hold: 409 otp_in_progress, one hold placed', async () => {
    const { id, otp } = await awaitingOtp('rare-otp-busy');
    await faults([{ operation: 'hold', latencyMs: 2000 }]);
    // Sent now (a supertest request leaves when it is first awaited), answered once the slow hold lands.
    const firstDone = s
      .pos('cashier')
      .post(`/redemptions/${id}/otp`, { otp })
      .set('Idempotency-Key', randomUUID())
      .then((r) => r);
    await waitFor('the first code being checked', async () => (await s.bff.deps.redemptions.get(id, Date.now()))?.state === 'confirming', 10_000);
    const second = await s.pos('cashier').post(`/redemptions/${id}/otp`, { otp }).set('Idempotency-Key', randomUUID());
    expect([second.status, second.body.code]).toEqual([409, 'otp_in_progress']);
    const held = await firstDone;
    expect([held.status, held.body.state]).toEqual([200, 'held']);
    expect(await s.balance('rare-otp-busy')).toMatchObject({ availablePointsBalance: 50, heldPoints: 50 });
  }, 30_000);

  it('the code places its hold after the till stopped waiting, nobody comes back: released, the kept answer is 409 hold_released_late', async () => {
    const { id, otp } = await awaitingOtp('rare-otp-late');
    const released = await metric('pos_holds_released_late_total');
    await faults([{ operation: 'hold', latencyMs: 4000 }]);
    const res = await s
      .pos('cashier')
      .post(`/redemptions/${id}/otp`, { otp })
      .set('Idempotency-Key', randomUUID())
      .set('Prefer', 'wait=2')
      .set('X-Request-Id', 'rare-req-otp-late');
    expect(res.status).toBe(202);
    const answerId = String(res.body.requestId);
    await waitFor('the late hold released', async () => (await metric('pos_holds_released_late_total')) > released, 30_000);
    await waitFor('the answer kept', async () => (await s.bff.deps.tillAnswers.get(s.terminalIds.cashier, answerId))?.response !== undefined, 30_000);
    const back = await s.pos('cashier').get(`/answers/${answerId}`).expect(409);
    expect(back.body.code).toBe('hold_released_late');
    expect((await s.balance('rare-otp-late')).availablePointsBalance).toBe(100);
  }, 60_000);

  it('a 202 whose instance died before an outcome (as a crash leaves it): 503 answer_lost', async () => {
    const createdAt = Date.now() - 11 * 60_000;
    await s.bff.deps.tillAnswers.open({ terminalId: s.terminalIds.cashier, requestId: 'rare-req-lost', createdAt }, 24 * 3600_000);
    const res = await s.pos('cashier').get('/answers/rare-req-lost');
    expect([res.status, res.body.code]).toEqual([503, 'answer_lost']);
    // A request only just answered 202 is still running, not lost.
    await s.bff.deps.tillAnswers.open({ terminalId: s.terminalIds.cashier, requestId: 'rare-req-running', createdAt: Date.now() }, 24 * 3600_000);
    expect((await s.pos('cashier').get('/answers/rare-req-running')).status).toBe(202);
  });
});

describe('a proxy in front of the loyalty service refuses the middleware', () => {
  let proxy: http.Server;
  let s: Stack;
  beforeAll(async () => {
    // A gateway's own 403 page (HTML, no v4.0 error body): not taken for a key refusal, so no other key is tried.
    proxy = http.createServer((_req, res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>Access denied</body></html>'));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    s = await startStack({ store: 'memory', upstreamUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, env: { LOYALTY_RETRIES: '0' } });
  });
  afterAll(async () => {
    await s?.close();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it('502 upstream_auth_failed, the keys named in no answer', async () => {
    const res = await s.pos('cashier').get('/customers/rare-auth');
    expect([res.status, res.body.code]).toEqual([502, 'upstream_auth_failed']);
    expect(res.text).not.toContain(SANDBOX_KEYS.secretkey);
    expect(res.text).not.toContain('Access denied');
  });
});

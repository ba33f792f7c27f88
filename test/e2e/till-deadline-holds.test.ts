import { randomUUID } from 'node:crypto';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/** Redemption starts under the till's deadline: in time, late and released, late and kept, never answered. */
describe('points holds and the till deadline (Prefer: wait)', () => {
  let s: Stack;
  const faults = (rules: object[]) => s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
  const slow = (latencyMs: number) => faults([{ operation: '*', latencyMs }]);
  const fast = () => s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  const metric = async (name: string) => (await s.bff.metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
  /** The customer's hash is read before the sandbox is made slow: the timing is the start's alone. */
  const start = (customerId: string, hash: string, requestId: string, wait: number) =>
    s.pos('cashier').post('/redemptions', { customerId, hash, points: 50 }).set('Prefer', `wait=${wait}`).set('X-Request-Id', requestId);

  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { LOYALTY_TIMEOUT_MS: '15000' } });
  });
  afterAll(() => s.close());
  afterEach(() => fast());

  it('2 s slow: a start is 201 held within 3 s', async () => {
    await s.seed('dlh-fast', 100);
    const hash = await s.hash('dlh-fast');
    await slow(2000);
    const started = Date.now();
    const res = await start('dlh-fast', hash, 'dlh-req-fast', 3);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(201);
    expect(res.body.state).toBe('held');
  }, 30_000);

  it('4 s slow, nobody comes back: answered 202 within 3 s, the hold is released when it lands, the kept answer says so', async () => {
    await s.seed('dlh-gone', 100);
    const hash = await s.hash('dlh-gone');
    const released = await metric('pos_holds_released_late_total');
    await slow(4000);
    const started = Date.now();
    const res = await start('dlh-gone', hash, 'dlh-req-gone', 3);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(202);
    const answerId = String(res.body.requestId);
    await waitFor('the late hold released', async () => (await metric('pos_holds_released_late_total')) > released, 30_000);
    await fast();
    await waitFor('the points available again', async () => (await s.balance('dlh-gone')).availablePointsBalance === 100, 30_000);
    const kept = await s.bff.deps.tillAnswers.get(s.terminalIds.cashier, answerId);
    expect(kept?.fate).toBe('released');
    await waitFor('the answer kept', async () => (await s.bff.deps.tillAnswers.get(s.terminalIds.cashier, answerId))?.response !== undefined, 30_000);
    const back = await s.pos('cashier').get(`/answers/${answerId}`).expect(409);
    expect(back.body.code).toBe('hold_released_late');
    const audit = await s.pos('manager').get('/audit?action=redemption_start&customerId=dlh-gone').expect(200);
    expect(JSON.stringify(audit.body)).toContain('hold_released_late');
  }, 60_000);

  it('4 s slow, the till comes back (read-back long poll): the hold is kept, 201 held', async () => {
    await s.seed('dlh-back', 100);
    const hash = await s.hash('dlh-back');
    await slow(4000);
    const res = await start('dlh-back', hash, 'dlh-req-back', 3);
    expect(res.status).toBe(202);
    const back = await s.pos('cashier').get(String(res.headers.location).replace('/pos/v1', '')).set('Prefer', 'wait=20');
    expect(back.status).toBe(201);
    expect(back.body.state).toBe('held');
    expect(back.headers['answer-replayed']).toBe('true');
    await fast();
    expect((await s.balance('dlh-back')).availablePointsBalance).toBe(50);
  }, 60_000);

  it("a hold whose answer never comes is counted (pos_holds_unanswered_total) and flagged in the day's reconciliation", async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    await s.seed('dlh-lost', 100);
    const before = await metric('pos_holds_unanswered_total');
    await faults([{ operation: 'hold', drop: true, after: true }]);
    const res = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'dlh-lost', hash: await s.hash('dlh-lost'), points: 50 })
      .set('Idempotency-Key', randomUUID());
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(await metric('pos_holds_unanswered_total')).toBe(before + 1);
    const to = new Date(Date.now() + 60_000).toISOString();
    const report = (await s.pos('manager').get(`/reconciliation?from=${from}&to=${to}`).expect(200)).body;
    const rows = report.rows.filter((r: { flags: string[] }) => r.flags.includes('hold_unanswered'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'redemption', flags: expect.arrayContaining(['unknown_open', 'hold_unanswered']) });
    expect(rows[0].note).toContain('holds carry no id');
  }, 30_000);
});

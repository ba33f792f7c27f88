import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { isSaleSend, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * The till's deadline (`Prefer: wait`) over real HTTP, against the sandbox
 * made slow on every call. Bounds are asserted on the clock; "it happened" is
 * waited for with generous ceilings.
 */
describe('the till deadline (Prefer: wait) against a slow loyalty service', () => {
  let s: Stack;
  const slow = (latencyMs: number) =>
    s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: '*', latencyMs }] })
      .expect(200);
  const fast = () => s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  const payments = async (paymentId: string) => s.sentUpstream().filter((e) => isSaleSend(e) && JSON.stringify(e.body ?? '').includes(paymentId));

  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { LOYALTY_TIMEOUT_MS: '15000' } });
  });
  afterAll(() => s.close());
  afterEach(() => fast());

  async function timed<T>(run: () => PromiseLike<T>): Promise<{ value: T; ms: number }> {
    const started = Date.now();
    const value = await run();
    return { value, ms: Date.now() - started };
  }

  it('a sale with its receipt answers within 3 s (202 with a read-back), the same-key retry settles it once, the read-back shows it', async () => {
    await s.seed('dl-sale', 100);
    await slow(4000);
    const key = randomUUID();
    const body = { customerId: 'dl-sale', paymentId: 'dl-pay-1', totalPaid: 40 };
    const { value: res, ms } = await timed(() =>
      s.pos('cashier').post('/payments', body).set('Idempotency-Key', key).set('Prefer', 'wait=3').set('X-Request-Id', 'dl-req-sale-1'),
    );
    expect(ms).toBeLessThan(3000);
    expect(res.status).toBe(202);
    expect(res.headers['preference-applied']).toBe('wait=3');
    // The answer's id is made by the BFF (a UUID per 202), not the till's X-Request-Id, which a till may send again.
    const answerId = String(res.body.requestId);
    expect(answerId).toMatch(/^[0-9a-f-]{36}$/);
    const at = `/pos/v1/answers/${answerId}`;
    expect(res.headers.location).toBe(at);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ pending: true, location: at });

    // While it runs, the read-back says so.
    const pending = await s.pos('cashier').get(`/answers/${answerId}`);
    expect(pending.status).toBe(202);
    expect(pending.headers['retry-after']).toBe('1');

    // The same-key retry waits (its own deadline) and replays the final answer once it lands.
    let retry = await s.pos('cashier').post('/payments', body).set('Idempotency-Key', key).set('Prefer', 'wait=10');
    if (retry.status === 202) retry = await s.pos('cashier').post('/payments', body).set('Idempotency-Key', key).set('Prefer', 'wait=10');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({ paymentId: 'dl-pay-1', status: 'recorded' });

    const back = await s.pos('cashier').get(`/answers/${answerId}`).expect(201);
    expect(back.headers['answer-replayed']).toBe('true');
    expect(back.body).toEqual(retry.body);
    expect(await payments('dl-pay-1')).toHaveLength(1);
    // Another terminal cannot read it.
    await s.pos('manager').get(`/answers/${answerId}`).expect(404);
  }, 60_000);

  it('a customer lookup answers within 3 s with a refusal naming its code; Preference-Applied only when honoured', async () => {
    await s.seed('dl-look', 10);
    await slow(4000);
    const { value: res, ms } = await timed(() => s.pos('cashier').get('/customers/dl-look').set('Prefer', 'wait=3'));
    expect(ms).toBeLessThan(3000);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('till_deadline_reached');
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['preference-applied']).toBe('wait=3');

    await fast();
    for (const bad of ['wait=0', 'wait=121', 'wait=abc', 'wait=2.5', 'wait']) {
      const r = await s.pos('cashier').get('/customers/dl-look').set('Prefer', bad);
      expect([bad, r.status, r.headers['preference-applied']]).toEqual([bad, 200, undefined]);
    }
    const ok = await s.pos('cashier').get('/customers/dl-look').set('Prefer', 'respond-async, wait=5');
    expect(ok.status).toBe(200);
    expect(ok.headers['preference-applied']).toBe('wait=5');
  }, 60_000);

  it('an unknown answer is 404 answer_not_found', async () => {
    const res = await s.pos('cashier').get('/answers/no-such-request').expect(404);
    expect(res.body.code).toBe('answer_not_found');
  });

  it('without a deadline nothing changes: the till waits', async () => {
    await s.seed('dl-none', 10);
    await slow(1000);
    const { value: res, ms } = await timed(() => s.pos('cashier').get('/customers/dl-none'));
    expect(res.status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(res.headers['preference-applied']).toBeUndefined();
  }, 30_000);

  it('a sale whose receipt reads do not fit answers 201 with receipt null and where to read it', async () => {
    await s.seed('dl-rcpt', 100);
    await slow(2000);
    const started = Date.now();
    const res = await s.pos('cashier').post('/payments', { customerId: 'dl-rcpt', paymentId: 'dl-pay-rcpt', totalPaid: 40 }).set('Prefer', 'wait=3');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(201);
    expect(res.body.receipt).toBeNull();
    expect(res.body.receiptLocation).toBe('/pos/v1/payments/dl-pay-rcpt/receipt');
    await fast();
    const receipt = await s.pos('cashier').get('/payments/dl-pay-rcpt/receipt').expect(200);
    expect(receipt.body).toMatchObject({ pointsEarned: res.body.pointsEarned, balanceAfter: 100 + res.body.pointsEarned });
  }, 30_000);

  it("a store's TILL_WAIT_SECONDS is its tills' deadline without Prefer (no Preference-Applied); another store's tills wait", async () => {
    const file = JSON.parse(readFileSync(s.terminalsFile, 'utf8')) as { stores: { id: string; tillWaitSeconds?: number }[] };
    file.stores.find((st) => st.id === 'store-001')!.tillWaitSeconds = 2;
    writeFileSync(s.terminalsFile, JSON.stringify(file, null, 2));
    await waitFor('the store default loaded', () => s.bff.registry.stores().some((st) => st.id === 'store-001' && st.tillWaitSeconds === 2), 20_000);
    await s.seed('dl-store', 10);
    await slow(3000);
    let started = Date.now();
    const bounded = await s.pos('cashier').get('/customers/dl-store');
    // Answered at the store's 2 s, not after the loyalty service's 3 s (the 503 says the same); a busy machine adds a little to the 2 s.
    expect(Date.now() - started).toBeLessThan(2900);
    expect(bounded.status).toBe(503);
    expect(bounded.body.code).toBe('till_deadline_reached');
    expect(bounded.headers['preference-applied']).toBeUndefined();
    started = Date.now();
    const other = await s.pos('otherCashier').get('/customers/dl-store');
    expect(other.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  }, 60_000);
});

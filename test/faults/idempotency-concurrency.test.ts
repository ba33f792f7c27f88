import { BffProcess, ProcessStack, startProcessStack } from './process-stack';

/**
 * Idempotency-Key across two real BFF processes on one Redis, against the
 * sandbox: duplicates reach the upstream once, whichever instance they hit.
 */
describe('Idempotency-Key with two BFF processes on one Redis', () => {
  let stack: ProcessStack;
  let a: BffProcess;
  let b: BffProcess;
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
    [a, b] = await Promise.all([stack.spawnBff(), stack.spawnBff()]);
  }, 30_000);
  afterAll(async () => {
    await stack?.close();
  });
  afterEach(async () => {
    await stack.faults([]);
  });

  const paymentsProcessed = async (customerId: string, paymentId: string) =>
    (await stack.activity(customerId)).filter((x) => x.type === 'Payment Processed' && JSON.stringify(x.properties ?? {}).includes(paymentId)).length;

  it('sends the same payment 20 times at once with one key: one upstream payment, identical answers or 409s', async () => {
    await stack.seed('ana', 0);
    // The upstream takes 300 ms, so the duplicates arrive while the first is running.
    await stack.faults([{ operation: 'payment', latencyMs: 300 }]);
    const body = { customerId: 'ana', paymentId: 'pay-ana-1', totalPaid: 50, totalAmount: 50 };
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? b : a).pos(stack.tokens.cashier).post('/payments', body).set('Idempotency-Key', 'till-sale-0001')),
    );
    const tookMs = Date.now() - started;

    const ok = answers.filter((r) => r.status === 201);
    const busy = answers.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of ok) expect(r.text).toBe(ok[0].text);
    expect(ok[0].body).toMatchObject({ paymentId: 'pay-ana-1', status: 'recorded', pointsEarned: 50 });
    for (const r of busy) {
      expect(r.body.code).toBe('idempotency_request_in_progress');
      expect(r.headers['retry-after']).toBe('1');
    }
    // One call reached the upstream, one payment is in the ledger, the points were given once.
    expect(await stack.faultsApplied()).toEqual([1]);
    expect(await paymentsProcessed('ana', 'pay-ana-1')).toBe(1);
    expect((await stack.balance('ana')).totalPointsBalance).toBe(50);

    // Afterwards every retry, on either instance, is the first answer replayed.
    for (const bff of [a, b]) {
      const again = await bff.pos(stack.tokens.cashier).post('/payments', body).set('Idempotency-Key', 'till-sale-0001').expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(ok[0].text);
    }
    expect(await stack.faultsApplied()).toEqual([1]);
    console.log(`20 concurrent duplicates: ${ok.length} x 201, ${busy.length} x 409 in ${tookMs} ms; upstream payment calls: 1`);
  });

  it('with no upstream delay, late duplicates get the replay and early ones 409: still one payment', async () => {
    await stack.seed('eve', 0);
    const body = { customerId: 'eve', paymentId: 'pay-eve-1', totalPaid: 10 };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? b : a).pos(stack.tokens.cashier).post('/payments', body).set('Idempotency-Key', 'till-sale-0005')),
    );
    const ok = answers.filter((r) => r.status === 201);
    expect(ok.length + answers.filter((r) => r.status === 409).length).toBe(20);
    expect(new Set(ok.map((r) => r.text)).size).toBe(1);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(await paymentsProcessed('eve', 'pay-eve-1')).toBe(1);
    expect((await stack.balance('eve')).totalPointsBalance).toBe(10);
  });

  it('answers 422 to the same key with another body, on the other instance, and changes nothing', async () => {
    await stack.seed('ben', 0);
    const key = 'till-sale-0002';
    await a.pos(stack.tokens.cashier).post('/payments', { customerId: 'ben', paymentId: 'pay-ben-1', totalPaid: 20 }).set('Idempotency-Key', key).expect(201);
    const reused = await b
      .pos(stack.tokens.cashier)
      .post('/payments', { customerId: 'ben', paymentId: 'pay-ben-1', totalPaid: 99 })
      .set('Idempotency-Key', key)
      .expect(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(reused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await stack.balance('ben')).totalPointsBalance).toBe(20);
    expect(await paymentsProcessed('ben', 'pay-ben-1')).toBe(1);
  });

  it('does not keep a validation failure: the corrected request with the same key runs', async () => {
    await stack.seed('cat', 0);
    const key = 'till-sale-0003';
    const bad = await a.pos(stack.tokens.cashier).post('/payments', { customerId: 'cat', paymentId: 'pay-cat-1' }).set('Idempotency-Key', key).expect(400);
    expect(bad.body.code).toBe('validation_failed');
    const fixed = await b
      .pos(stack.tokens.cashier)
      .post('/payments', { customerId: 'cat', paymentId: 'pay-cat-1', totalPaid: 30 })
      .set('Idempotency-Key', key)
      .expect(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(fixed.body.status).toBe('recorded');
    expect((await stack.balance('cat')).totalPointsBalance).toBe(30);
  });

  it('keeps nothing for requests refused before the key is looked at (401 token, 415 body): the key stays free', async () => {
    await stack.seed('fay', 0);
    const key = 'till-sale-0004';
    const body = { customerId: 'fay', paymentId: 'pay-fay-1', totalPaid: 15 };
    await a.pos('tkn_not_a_real_token').post('/payments', body).set('Idempotency-Key', key).expect(401);
    const asText = await a.pos(stack.tokens.cashier).post('/payments').set('Idempotency-Key', key).set('Content-Type', 'text/plain').send('customerId=fay');
    expect(asText.status).toBe(415);
    const ok = await b.pos(stack.tokens.cashier).post('/payments', body).set('Idempotency-Key', key).expect(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
    expect((await stack.balance('fay')).totalPointsBalance).toBe(15);
  });

  it('replays a redemption (201, Location, body) without placing a second hold', async () => {
    await stack.seed('dan', 1000);
    const key = 'till-rdm-0001';
    const body = { customerId: 'dan', hash: await stack.hash('dan'), points: 200 };
    const first = await a.pos(stack.tokens.cashier).post('/redemptions', body).set('Idempotency-Key', key).expect(201);
    const again = await b.pos(stack.tokens.cashier).post('/redemptions', body).set('Idempotency-Key', key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.text).toBe(first.text);
    expect((await stack.balance('dan')).availablePointsBalance).toBe(800);
  });

  it('rejects a malformed key with 400 before anything runs', async () => {
    const res = await a
      .pos(stack.tokens.cashier)
      .post('/payments', { customerId: 'ana', paymentId: 'pay-x', totalPaid: 1 })
      .set('Idempotency-Key', 'has space')
      .expect(400);
    expect(res.body.code).toBe('idempotency_key_invalid');
    expect(await paymentsProcessed('ana', 'pay-x')).toBe(0);
  });

  it("keeps secrets out of both processes' logs", () => {
    const all = [...a.logs, ...b.logs].join('\n');
    expect(all).toContain('POS BFF listening');
    expect(all).not.toContain('e2e_secret_key_do_not_leak_7f3a');
    for (const t of Object.values(stack.tokens)) expect(all).not.toContain(t);
  });
});

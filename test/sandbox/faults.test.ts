import { API, API_KEY, expectLoyaltyError, harness } from './helpers';

const T = '2025-03-01T10:00:00Z';

describe('sandbox fault injection', () => {
  const h = harness();
  const setFaults = (rules: unknown[]) => h.http.put('/_sandbox/faults').set(h.keys).send({ rules });
  const pay = (paymentId: string) => h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId, paymentDate: T, totalPaid: 50 });

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    await h.seed('c1', 0);
  });

  it('is guarded by the account keys (apikey and its secretkey)', async () => {
    expectLoyaltyError(await h.http.get('/_sandbox/faults'), 401, 1000);
    expectLoyaltyError(await h.http.put('/_sandbox/faults').set({ apikey: API_KEY, secretkey: 'wrong_secret_123' }).send({ rules: [] }), 401, 1001);
    expectLoyaltyError(await h.http.delete('/_sandbox/faults'), 401, 1000);
  });

  it('refuses bad rules with a 400 naming what is wrong, and keeps the old rules', async () => {
    await setFaults([{ operation: 'hash', latencyMs: 1 }]).expect(200);
    const cases: [unknown, string][] = [
      [{ rules: [{ operation: 'paymnt', status: 503 }] }, 'unknown operation "paymnt"'],
      [{ rules: [{ operation: 'payment', status: 418 }] }, 'rules.0.status'],
      [{ rules: [{ operation: 'payment', status: 503, probability: 1.5 }] }, 'rules.0.probability'],
      [{ rules: [{ operation: 'payment' }] }, 'must do something'],
      [{ rules: [{ operation: 'payment', status: 503, drop: true }] }, 'not both'],
      [{ rules: [{ operation: 'payment', brokenBody: true, status: 500 }] }, 'not with drop or status'],
      [{ rules: [{ operation: 'payment', after: true }] }, 'must do something'],
      [{ rules: [{ operation: 'payment', drop: true, times: 0 }] }, 'rules.0.times'],
      [{ rules: [{ operation: 'payment', drop: true, color: 'red' }] }, 'color'],
      [{}, 'rules'],
    ];
    for (const [body, naming] of cases) {
      const err = expectLoyaltyError(
        await h.http
          .put('/_sandbox/faults')
          .set(h.keys)
          .send(body as object),
        400,
        3016,
      );
      expect(err.message).toContain(naming);
    }
    expect((await h.http.get('/_sandbox/faults').set(h.keys)).body.rules).toHaveLength(1);
  });

  it('shows the rules with their defaults and counters', async () => {
    const put = await setFaults([
      { operation: 'payment', status: 503, times: 2 },
      { operation: '*', latencyMs: 5, probability: 0 },
    ]);
    expect(put.status).toBe(200);
    const shown = await h.http.get('/_sandbox/faults').set(h.keys);
    expect(shown.body).toEqual({
      rules: [
        { operation: 'payment', status: 503, probability: 1, drop: false, after: false, brokenBody: false, times: 2, applied: 0, remaining: 2 },
        { operation: '*', latencyMs: 5, probability: 0, drop: false, after: false, brokenBody: false, applied: 0 },
      ],
    });
  });

  it('an injected 503 happens before the operation: nothing is recorded, and the same payment later succeeds', async () => {
    await setFaults([{ operation: 'payment', status: 503, times: 1 }]).expect(200);
    const failed = await pay('p1');
    const body = expectLoyaltyError(failed, 503, 5000);
    expect(body.reason).toBe('ServiceUnavailable');
    expect(failed.headers['x-sandbox-fault']).toBe('payment');
    expect(await h.balance('c1')).toMatchObject({ totalEarnedPoints: 0 });
    expect((await h.http.get('/_sandbox/customers/c1/activity').set(h.keys)).body.activity).toEqual([]);

    const retried = await pay('p1');
    expect(retried.status).toBe(200);
    expect(retried.body.rewardedPoints).toBe(50);
    expect(retried.headers['x-sandbox-fault']).toBeUndefined();
    expect((await h.http.get('/_sandbox/faults').set(h.keys)).body.rules[0]).toMatchObject({ applied: 1, remaining: 0 });
  });

  it('a rule with `after` lets the operation run first: the payment is recorded, then answered late, with an error, or not at all', async () => {
    await setFaults([{ operation: 'payment', after: true, latencyMs: 150, status: 503, times: 1 }]).expect(200);
    const started = Date.now();
    expectLoyaltyError(await pay('p1'), 503, 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(await h.balance('c1')).toMatchObject({ totalEarnedPoints: 50 });
    // The same payment again is a duplicate: the first was applied.
    expectLoyaltyError(await pay('p1'), 422, 9004);

    await setFaults([{ operation: 'payment', after: true, drop: true, times: 1 }]).expect(200);
    await expect(pay('p2')).rejects.toThrow();
    expect(await h.balance('c1')).toMatchObject({ totalEarnedPoints: 100 });
  });

  it("a broken body is the operation's own status with a body that is not JSON, after the write was applied", async () => {
    await setFaults([{ operation: 'payment', brokenBody: true, times: 1 }]).expect(200);
    const res = await pay('p3')
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    expect(() => JSON.parse(res.body as string)).toThrow();
    expect(res.body).toContain('"rewardedPoints":50');
    expect(await h.balance('c1')).toMatchObject({ totalEarnedPoints: 50 });
  });

  it('a 429 carries Retry-After: 1', async () => {
    await setFaults([{ operation: 'coupons', status: 429 }]).expect(200);
    const res = await h.http.get(`${API}/customers/c1/coupons`).set(h.keys);
    expect(expectLoyaltyError(res, 429, 429).reason).toBe('RateLimited');
    expect(res.headers['retry-after']).toBe('1');
  });

  it('honours times, and leaves other operations alone', async () => {
    await setFaults([{ operation: 'hash', status: 500, times: 2 }]).expect(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/hash`).set(h.keys), 500, 5000);
    expect((await h.http.get(`${API}/customers/c1/balance`).set(h.keys)).status).toBe(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/hash`).set(h.keys), 500, 5000);
    expect((await h.http.get(`${API}/customers/c1/hash`).set(h.keys)).status).toBe(200);
  });

  it('adds latency', async () => {
    await setFaults([{ operation: 'balance', latencyMs: 150 }]).expect(200);
    const started = process.hrtime.bigint();
    const res = await h.http.get(`${API}/customers/c1/balance`).set(h.keys);
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(res.status).toBe(200);
    expect(res.headers['x-sandbox-fault']).toBe('balance');
    expect(elapsedMs).toBeGreaterThanOrEqual(145);
  });

  it('drops the connection without answering, and the operation does not run', async () => {
    await setFaults([{ operation: '*', drop: true, times: 1 }]).expect(200);
    let error: (Error & { code?: string }) | undefined;
    try {
      await pay('p1');
    } catch (err) {
      error = err as Error;
    }
    expect(error).toBeDefined();
    expect(`${error?.code} ${error?.message}`).toMatch(/ECONNRESET|socket hang up/);
    expect((await pay('p1')).status).toBe(200);
  });

  it('checks the keys before any fault, and never fires with probability 0', async () => {
    await setFaults([{ operation: '*', status: 503, probability: 0 }]).expect(200);
    for (let i = 0; i < 5; i++) expect((await h.http.get(`${API}/customers/c1/hash`).set(h.keys)).status).toBe(200);
    await setFaults([{ operation: '*', status: 503 }]).expect(200);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/hash`).set({ apikey: h.keys.apikey }), 401, 1001);
    expectLoyaltyError(await h.http.get(`${API}/customers/c1/hash`).set(h.keys), 503, 5000);
  });

  it('DELETE clears the rules, and so does a reset', async () => {
    await setFaults([{ operation: '*', status: 503 }]).expect(200);
    expectLoyaltyError(await pay('p1'), 503, 5000);
    expect((await h.http.delete('/_sandbox/faults').set(h.keys)).body).toEqual({ rules: [] });
    expect((await pay('p1')).status).toBe(200);

    await setFaults([{ operation: '*', status: 503 }]).expect(200);
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    expect((await h.http.get('/_sandbox/faults').set(h.keys)).body).toEqual({ rules: [] });
    await h.seed('c1', 0);
    expect((await pay('p1')).status).toBe(200);
  });
});

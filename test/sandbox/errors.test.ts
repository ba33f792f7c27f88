import fc from 'fast-check';
import { createSandbox } from '../../src/sandbox';
import request from 'supertest';
import { API, API_KEY, expectLoyaltyError, harness, SECRET, testAccount } from './helpers';

const T = '2025-03-01T10:00:00Z';

describe('sandbox errors: v4.0 shape, bad input, request ids', () => {
  const h = harness();

  it('malformed JSON is 400/3016', async () => {
    const res = await h.http.post(`${API}/payments`).set(h.keys).set('Content-Type', 'application/json').send('{"customerId": "c1",');
    expectLoyaltyError(res, 400, 3016);
  });

  it('a body that is not a JSON object is 400/3016', async () => {
    expectLoyaltyError(await h.http.post(`${API}/payments`).set(h.keys).send([1, 2]), 400, 3016);
    expectLoyaltyError(await h.http.post(`${API}/payments`).set(h.keys).set('Content-Type', 'application/json').send('"text"'), 400, 3016);
    expectLoyaltyError(await h.http.post(`${API}/payments`).set(h.keys).set('Content-Type', 'application/json').send('null'), 400, 3016);
  });

  it('a body of another content type is 400/3016', async () => {
    const res = await h.http.post(`${API}/transactions/hold`).set(h.keys).set('Content-Type', 'text/plain').send('customerId=c1');
    const body = expectLoyaltyError(res, 400, 3016);
    expect(body.message).toContain('application/json');
    expectLoyaltyError(await h.http.post(`${API}/events`).set(h.keys).type('form').send({ customerId: 'c1' }), 400, 3016);
  });

  it('missing fields are 400/3000 naming them; wrong types and unknown fields 422/3003 naming them', async () => {
    const missing = expectLoyaltyError(await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1' }), 400, 3000);
    expect(missing.message).toMatch(/paymentId.*paymentDate.*totalPaid/);
    const wrong = expectLoyaltyError(
      await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 7, paymentDate: T, totalPaid: 1 }),
      422,
      3003,
    );
    expect(wrong.message).toContain('paymentId');
    const extra = expectLoyaltyError(
      await h.http.post(`${API}/payments`).set(h.keys).send({ customerId: 'c1', paymentId: 'p', paymentDate: T, totalPaid: 1, colour: 'red' }),
      422,
      3003,
    );
    expect(extra.message).toContain('colour');
  });

  it('an unknown route or method is 404/4004', async () => {
    expectLoyaltyError(await h.http.get(`${API}/nothing-here`).set(h.keys), 404, 4004);
    expectLoyaltyError(await h.http.get(`${API}/payments`).set(h.keys), 404, 4004);
    expectLoyaltyError(await h.http.get('/api/v3.0/integrations/payments'), 404, 4004);
  });

  it('an oversized body is 413 in the v4.0 shape', async () => {
    const small = createSandbox({ accounts: [testAccount()], bodyLimitBytes: 1024 });
    const big = { customerId: 'c1', events: { a: { blob: 'x'.repeat(2000) } } };
    const res = await request(small.app).post(`${API}/events`).set(h.keys).send(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      code: 3016,
      type: 'PAYLOAD_ERROR',
      message: expect.stringContaining('1024'),
      documentationUrl: expect.stringMatching(/^https:/),
      requestId: res.headers['x-request-id'],
      reason: 'PayloadTooLarge',
    });
    await small.close();
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const mine = await h.http.get(`${API}/customers/none/hash`).set(h.keys).set('X-Request-Id', 'till-42.req-7');
    expect(mine.headers['x-request-id']).toBe('till-42.req-7');
    expect(mine.body.requestId).toBe('till-42.req-7');
    const made = await h.http.get(`${API}/customers/none/hash`).set(h.keys).set('X-Request-Id', 'bad id with spaces');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const ok = await h.http
      .post(`${API}/events`)
      .set(h.keys)
      .send({ customerId: 'c1', events: { a: {} } });
    expect(ok.headers['x-request-id']).toBeTruthy();
  });

  it('never answers 500 to random bodies on any POST operation', async () => {
    const paths = ['/payments', '/transactions/hold', '/transactions/refund', '/transactions/otp', '/events', '/customers/c1/delete'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.jsonValue(), async (path, body) => {
        const res = await h.http.post(`${API}${path}`).set(h.keys).set('Content-Type', 'application/json').send(JSON.stringify(body));
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            customerId: fc.oneof(fc.string(), fc.integer()),
            paymentId: fc.string(),
            paymentDate: fc.oneof(fc.constant(T), fc.string()),
            totalPaid: fc.oneof(fc.double(), fc.integer(), fc.constant(0)),
            paymentDetails: fc.array(
              fc.record({ serviceId: fc.string(), amount: fc.double(), discount: fc.double(), category: fc.array(fc.string()) }, { requiredKeys: [] }),
            ),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const res = await h.http.post(`${API}/payments`).set(h.keys).send(body);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never shows the secret key in a response body', async () => {
    const bodies: string[] = [];
    const grab = (res: request.Response) => bodies.push(res.text);
    grab(await h.http.get(`/_sandbox/accounts/${API_KEY}`).set(h.keys));
    grab(
      await h.http
        .put(`/_sandbox/accounts/${API_KEY}`)
        .set(h.keys)
        .send({ ...testAccount(), secretKey: undefined }),
    );
    grab(await h.http.get(`${API}/customers/c1/hash`).set({ apikey: API_KEY, secretkey: 'wrong_secret_1' }));
    grab(await h.http.get(`${API}/customers/c1/hash`).set(h.keys));
    grab(
      await h.http
        .post(`${API}/payments`)
        .set(h.keys)
        .send({ customerId: 'c1', paymentId: 'sx', paymentDate: T, totalPaid: 5, extra: { k: 'v' } }),
    );
    grab(await h.http.get('/_sandbox/customers/c1/activity').set(h.keys));
    grab(await h.http.post('/_sandbox/reset').set(h.keys));
    grab(
      await h.http
        .put(`/_sandbox/accounts/${API_KEY}`)
        .set(h.keys)
        .send({ ...testAccount(), holdPeriodMinutes: 0 }),
    );
    expect(bodies.length).toBe(8);
    for (const b of bodies) expect(b).not.toContain(SECRET);
  });
});

import { LoyaltyClient } from '../../src/upstream';
import { batchRequest, bodies, reads, eventRequest, holdRequest, otpRequest, paymentRequest, refundRequest } from './fixtures';
import { API_KEY, failure, json, makeClient, SECRET_KEY, useTestUpstream } from './test-upstream';

const P = '/api/v4.0/integrations';

const upstream = useTestUpstream();
let client: LoyaltyClient;

beforeEach(() => {
  client = makeClient(upstream).client;
});
afterEach(() => client.close());

// Every row has all five entries: jest treats a missing one as a `done` callback.
type Case = [name: keyof typeof bodies, method: string, path: string, call: (c: LoyaltyClient) => Promise<unknown>, sentBody: unknown];

const cases: Case[] = [
  ['hold', 'POST', `${P}/transactions/hold`, (c) => c.hold(holdRequest, { requestId: 'rq-1' }), holdRequest],
  ['batchOrders', 'POST', `${P}/batch/orders`, (c) => c.batchOrders(batchRequest, { requestId: 'rq-1' }), batchRequest],
  ['payment', 'POST', `${P}/payments`, (c) => c.payment(paymentRequest, { requestId: 'rq-1' }), paymentRequest],
  ['coupons', 'GET', `${P}/customers/c-1/coupons`, (c) => c.coupons('c-1', { requestId: 'rq-1' }), undefined],
  ['refund', 'POST', `${P}/transactions/refund`, (c) => c.refund(refundRequest, { requestId: 'rq-1' }), refundRequest],
  ['tierProgress', 'GET', `${P}/customers/c-1/tier-progress`, (c) => c.tierProgress('c-1', {}, { requestId: 'rq-1' }), undefined],
  ['deleteCustomer', 'DELETE', `${P}/customers/c-1`, (c) => c.deleteCustomer('c-1', { requestId: 'rq-1' }), undefined],
  ['hash', 'GET', `${P}/customers/c-1/hash`, (c) => c.hash('c-1', { requestId: 'rq-1' }), undefined],
  ['events', 'POST', `${P}/events`, (c) => c.events(eventRequest, { requestId: 'rq-1' }), eventRequest],
  ['holdLookup', 'GET', `${P}/transactions/hold/h-1`, (c) => c.holdLookup('h-1', { requestId: 'rq-1' }), undefined],
  ['holdCancel', 'DELETE', `${P}/transactions/hold/h-1`, (c) => c.holdCancel('h-1', { requestId: 'rq-1' }), undefined],
  ['otp', 'POST', `${P}/transactions/otp`, (c) => c.otp(otpRequest, { requestId: 'rq-1' }), otpRequest],
  ['balance', 'GET', `${P}/customers/c-1/balance`, (c) => c.balance('c-1', { requestId: 'rq-1' }), undefined],
  ['batchStatus', 'GET', `${P}/batches/42/status`, (c) => c.batchStatus(42, { requestId: 'rq-1' }), undefined],
];

describe('each operation', () => {
  it.each(cases)(
    '%s: %s %s with keys, JSON and the request id, answer validated and returned as it is read (payment and refund too)',
    async (name, method, path, call, sentBody) => {
      upstream.script(json(200, { ...bodies[name], unexpectedField: 'dropped' }));
      const result = await call(client);
      expect(upstream.seen).toHaveLength(1);
      const seen = upstream.seen[0];
      expect(seen.method).toBe(method);
      expect(seen.url).toBe(path);
      expect(seen.headers.apikey).toBe(API_KEY);
      expect(seen.headers['x-request-id']).toBe('rq-1');
      expect(seen.headers.accept).toBe('application/json');
      // Events need only the API key (spec, Authentication); everything else both.
      expect(seen.headers.secretkey).toBe(name === 'events' ? undefined : SECRET_KEY);
      if (sentBody) {
        expect(seen.headers['content-type']).toMatch(/^application\/json/);
        expect(JSON.parse(seen.body)).toEqual(sentBody);
      } else {
        expect(seen.body).toBe('');
      }
      // Unknown fields of the answer are dropped; what the BFF uses is read (src/upstream/answers.ts).
      expect(result).toEqual(reads[name]);
    },
  );
});

it('sends the secret key on events too in High Security Mode', async () => {
  const hsm = makeClient(upstream, { highSecurityMode: true }).client;
  upstream.script(json(200, bodies.events));
  await hsm.events(eventRequest);
  hsm.close();
  expect(upstream.seen[0].headers.secretkey).toBe(SECRET_KEY);
});

it('makes up a request id when none (or a malformed one) is given', async () => {
  upstream.script(json(200, bodies.hash), json(200, bodies.hash));
  await client.hash('c-1');
  await client.hash('c-1', { requestId: 'bad id\twith spaces' });
  const [a, b] = upstream.seen.map((s) => String(s.headers['x-request-id']));
  expect(a).toMatch(/^[0-9a-f-]{36}$/);
  expect(b).toMatch(/^[0-9a-f-]{36}$/);
  expect(a).not.toBe(b);
});

it('URL-encodes path parameters', async () => {
  upstream.script(json(200, bodies.coupons), json(200, bodies.holdLookup));
  await client.coupons('a/b c?d#é%');
  await client.holdLookup('../x');
  expect(upstream.seen.map((s) => s.url)).toEqual([`${P}/customers/a%2Fb%20c%3Fd%23%C3%A9%25/coupons`, `${P}/transactions/hold/..%2Fx`]);
});

it.each([[''], ['.'], ['..'], ['x'.repeat(201)]])('refuses the path parameter %j with a 400 before sending', async (id) => {
  const err = await failure(() => client.balance(id));
  expect(err.status).toBe(400);
  expect(err.code).toBe('validation_failed');
  expect(err.errors[0].path).toBe('customerId');
  expect(upstream.seen).toHaveLength(0);
});

describe('tierProgress options', () => {
  it('sends lang as a header and expand as a comma-separated query', async () => {
    upstream.script(json(200, { ...bodies.tierProgress, tiers: [], referrals: { count: 2 } }), json(200, bodies.tierProgress));
    const r = await client.tierProgress('c-1', { lang: 'pt-BR', expand: ['tier', 'referrals', 'tier'] });
    await client.tierProgress('c-1', { expand: 'referrals' });
    expect(r).toEqual({ current: { name: 'Silver', order: 1, minProgress: 0 }, next: { name: 'Gold', order: 2, minProgress: 1000 }, progress: 300 });
    expect(upstream.seen[0].headers.lang).toBe('pt-BR');
    expect(upstream.seen[0].url).toBe(`${P}/customers/c-1/tier-progress?expand=tier,referrals`);
    expect(upstream.seen[1].headers.lang).toBeUndefined();
    expect(upstream.seen[1].url).toBe(`${P}/customers/c-1/tier-progress?expand=referrals`);
  });

  it.each([
    [{ lang: 'en\r\nx: y' }, 'lang'],
    [{ expand: 'tier,points' }, 'expand'],
    [{ expand: ['points'] as never }, '0'],
  ])('refuses %j with a 400 naming it', async (options, path) => {
    const err = await failure(() => client.tierProgress('c-1', options));
    expect(err.status).toBe(400);
    expect(err.errors[0].path).toBe(path);
    expect(upstream.seen).toHaveLength(0);
  });
});

it('checks a request against the contract before sending it', async () => {
  const err = await failure(() => client.hold({ customerId: 'c-1', transactionTime: 'yesterday', amountToHold: 5, pointsToHold: 50 }));
  expect(err.status).toBe(400);
  expect(err.code).toBe('validation_failed');
  expect(err.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['transactionTime', 'pointsToHold']));
  expect(upstream.seen).toHaveLength(0);
});

it('reuses one keep-alive connection across sequential calls', async () => {
  upstream.always(json(200, bodies.hash));
  const before = upstream.connections;
  for (let i = 0; i < 5; i += 1) await client.hash('c-1');
  expect(upstream.connections - before).toBe(1);
  expect(new Set(upstream.seen.map((s) => s.connection)).size).toBe(1);
  expect(upstream.seen[0].headers.connection).toBe('keep-alive');
});

it('bounds parallel connections by maxSockets', async () => {
  const narrow = makeClient(upstream, { maxSockets: 2 }).client;
  upstream.always(json(200, bodies.hash));
  const before = upstream.connections;
  await Promise.all(Array.from({ length: 10 }, () => narrow.hash('c-1')));
  narrow.close();
  expect(upstream.connections - before).toBeLessThanOrEqual(2);
  expect(upstream.seen).toHaveLength(10);
});

it('refuses to be built without keys', () => {
  expect(() => makeClient(upstream, { secretKey: '' })).toThrow(/apiKey and secretKey/);
});

it('reports a bad option as a rejected promise, never a synchronous throw', () => {
  let promise: Promise<unknown> | undefined;
  expect(() => {
    promise = client.tierProgress('c-1', { lang: '!!' });
  }).not.toThrow();
  return expect(promise).rejects.toMatchObject({ status: 400, code: 'validation_failed' });
});

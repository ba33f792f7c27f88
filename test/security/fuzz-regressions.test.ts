import { API_PREFIX } from '../../src/contract';
import { SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { rawClient, RawClient } from './support/raw-http';

/** The bugs the fuzzing found, pinned so they stay fixed whatever seed the fuzz run draws. */
let s: Stack;
let bff: RawClient;
let sandbox: RawClient;
beforeAll(async () => {
  s = await startStack({ store: 'memory' });
  await s.seed('rg-alice', 100);
  bff = rawClient(s.bff.url);
  sandbox = rawClient(s.sandbox.url);
});
afterAll(async () => {
  bff?.close();
  sandbox?.close();
  await s?.close();
});

const cashier = () => ({ Authorization: `Bearer ${s.tokens.cashier}` });

describe('path parameters that are not valid percent-encoding', () => {
  it.each(['%zz', '%', '%E0%A4%A', '%C0%AE%C0%AE'])('BFF: %s is 400 malformed_path, not a 500', async (param) => {
    const res = await bff.send({ method: 'GET', path: `/pos/v1/customers/${param}`, headers: cashier() });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'malformed_path', status: 400 });
  });

  it.each(['%zz', '%'])('sandbox: %s is 422/3003, not a 500', async (param) => {
    const res = await sandbox.send({ method: 'GET', path: `${API_PREFIX}/customers/${param}/balance`, headers: SANDBOX_KEYS });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ code: 3003, type: 'PAYLOAD_ERROR', reason: 'InvalidValue', message: 'The request path has invalid percent-encoding' });
  });
});

describe('bodies that are not what their Content-Encoding says', () => {
  it.each(['gzip', 'deflate', 'br'])('BFF: %s is 400 malformed_body_encoding naming the encoding', async (encoding) => {
    const res = await bff.send({
      method: 'POST',
      path: '/pos/v1/payments',
      headers: { ...cashier(), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      body: '{"customerId":"rg-alice"}',
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'malformed_body_encoding', detail: `The request body is not valid ${encoding} data` });
  });

  it('sandbox: 400/3016 naming the encoding', async () => {
    const res = await sandbox.send({
      method: 'POST',
      path: `${API_PREFIX}/events`,
      headers: { ...SANDBOX_KEYS, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 3016, message: 'The request body is not valid gzip data' });
  });
});

describe('event names that are Object.prototype properties', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'])(
    'an event named %s rewards nothing and leaves the balance a number',
    async (name) => {
      const before = await s.balance('rg-alice');
      const res = await bff.send({
        method: 'POST',
        path: '/pos/v1/events',
        // A till: a kiosk may send only its store's allowed events, and these are none of them.
        headers: { Authorization: `Bearer ${s.tokens.cashier}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ customerId: 'rg-alice', events: { [name]: { note: 'x' } } }),
      });
      expect(res.status).toBe(200);
      expect(await s.balance('rg-alice')).toEqual(before);
      // The summary still reads (it answered 502 once the balance had become NaN).
      expect((await bff.send({ method: 'GET', path: '/pos/v1/customers/rg-alice', headers: cashier() })).status).toBe(200);
    },
  );
});

describe('sales whose points cannot be counted', () => {
  const now = () => new Date(s.sandbox.context.clock.now()).toISOString();
  const line = { productId: 'sku-1', quantity: 1e308, price: 12.5 };
  it.each([
    [
      'a tracked order whose line price x quantity is past the largest number',
      '/orders',
      () => ({ orderId: `rg-o-${Date.now()}`, orderDate: now(), totalPaid: 20, lineItems: [line] }),
    ],
    ['a reward preview of that line', '/orders/reward-preview', () => ({ totalPaid: 20, lineItems: [line] })],
    [
      'a payment whose total earns more points than a balance counts',
      '/payments',
      () => ({ paymentId: `rg-p-${Date.now()}`, paymentDate: now(), totalPaid: 1e308 }),
    ],
  ])('%s is 422/3003 (it answered null points once, and left nulls in the balance)', async (_what, path, body) => {
    const before = await s.balance('rg-alice');
    const res = await sandbox.send({
      method: 'POST',
      path: `${API_PREFIX}${path}`,
      headers: { ...SANDBOX_KEYS, 'Content-Type': 'application/json' },
      body: JSON.stringify({ customerId: 'rg-alice', ...body() }),
    });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ code: 3003, type: 'PAYLOAD_ERROR', reason: 'InvalidValue' });
    const after = await s.balance('rg-alice');
    expect(after).toEqual(before);
    expect(Object.values(after).every((v) => typeof v !== 'object')).toBe(true);
  });
});

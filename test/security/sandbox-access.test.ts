import request from 'supertest';
import { API_PREFIX } from '../../src/contract';
import { startSandbox, StartedSandbox } from '../../src/sandbox';
import { e2eAccount, SANDBOX_KEYS } from '../support/e2e';

/**
 * Every sandbox route x {no key, API key only, secret key only, both keys,
 * wrong API key, wrong secret key} x {High Security Mode off, on}, with the
 * exact status and v4.0 code. Rules: "both" operations need both keys; events
 * need only the API key unless High Security Mode is on; a secret key that is
 * sent is always checked. Every admin route takes one rule: the apikey of an
 * account and that account's secretkey.
 */
type Keys = 'none' | 'apikey only' | 'secret only' | 'both' | 'wrong apikey' | 'wrong secret';
type Guard = 'both' | 'apikey' | 'admin' | 'open';

interface Call {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  body?: object;
}

interface SandboxRoute {
  name: string;
  guard: Guard;
  ok: number;
  call(): Promise<Call>;
}

const KEYS: Keys[] = ['none', 'apikey only', 'secret only', 'both', 'wrong apikey', 'wrong secret'];
const MODES = [false, true];
const { apikey, secretkey } = SANDBOX_KEYS;

let sb: StartedSandbox;
let n = 0;
const uniq = (p: string) => `${p}-${++n}`;
const admin = () => request(sb.url);
const now = () => new Date(sb.context.clock.now()).toISOString();
const both = { apikey, secretkey };

async function api(method: 'post' | 'get', path: string, body?: object) {
  const res = await admin()[method](`${API_PREFIX}${path}`).set(both).send(body);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** The customer exists and High Security Mode is as the case wants (a reset in an earlier case undoes both). */
async function prepare(hsm: boolean) {
  await admin()
    .post('/_sandbox/customers')
    .set(both)
    .send({ customerId: 'sa-alice', points: 1_000_000 })
    .expect((r) => expect([200, 201]).toContain(r.status));
  const account = (await admin().get(`/_sandbox/accounts/${apikey}`).set(both).expect(200)).body;
  if (account.highSecurityMode !== hsm)
    await admin()
      .put(`/_sandbox/accounts/${apikey}`)
      .set(both)
      .send({ ...account, highSecurityMode: hsm })
      .expect(200);
}

const hold = async () => (await api('post', '/transactions/hold', { customerId: 'sa-alice', transactionTime: now(), pointsToHold: 1 })).holdReference as string;
const sale = async () => {
  const paymentId = uniq('sa-sale');
  await api('post', '/payments', { customerId: 'sa-alice', paymentId, paymentDate: now(), totalPaid: 20 });
  return paymentId;
};
const freshCustomer = async () => {
  const id = uniq('sa-gone');
  await admin().post('/_sandbox/customers').set(both).send({ customerId: id, points: 1 }).expect(201);
  return id;
};

const ROUTES: SandboxRoute[] = [
  {
    name: 'POST /transactions/hold',
    guard: 'both',
    ok: 200,
    call: async () => ({ method: 'post', path: `${API_PREFIX}/transactions/hold`, body: { customerId: 'sa-alice', transactionTime: now(), pointsToHold: 1 } }),
  },
  {
    name: 'GET /transactions/hold/:ref',
    guard: 'both',
    ok: 200,
    call: async () => ({ method: 'get', path: `${API_PREFIX}/transactions/hold/${await hold()}` }),
  },
  {
    name: 'DELETE /transactions/hold/:ref',
    guard: 'both',
    ok: 200,
    call: async () => ({ method: 'delete', path: `${API_PREFIX}/transactions/hold/${await hold()}` }),
  },
  {
    name: 'POST /transactions/otp',
    guard: 'both',
    ok: 200,
    call: async () => ({ method: 'post', path: `${API_PREFIX}/transactions/otp`, body: { customerId: 'sa-alice', points: 10 } }),
  },
  {
    name: 'POST /payments',
    guard: 'both',
    ok: 200,
    call: async () => ({
      method: 'post',
      path: `${API_PREFIX}/payments`,
      body: { customerId: 'sa-alice', paymentId: uniq('sa-pay'), paymentDate: now(), totalPaid: 10 },
    }),
  },
  {
    name: 'POST /transactions/refund',
    guard: 'both',
    ok: 200,
    call: async () => ({
      method: 'post',
      path: `${API_PREFIX}/transactions/refund`,
      body: { customerId: 'sa-alice', refundTransactionId: uniq('sa-ref'), reverseTransactionId: await sale(), transactionTime: now() },
    }),
  },
  { name: 'GET /customers/:id/balance', guard: 'both', ok: 200, call: async () => ({ method: 'get', path: `${API_PREFIX}/customers/sa-alice/balance` }) },
  { name: 'GET /customers/:id/hash', guard: 'both', ok: 200, call: async () => ({ method: 'get', path: `${API_PREFIX}/customers/sa-alice/hash` }) },
  { name: 'GET /customers/:id/coupons', guard: 'both', ok: 200, call: async () => ({ method: 'get', path: `${API_PREFIX}/customers/sa-alice/coupons` }) },
  {
    name: 'GET /customers/:id/tier-progress',
    guard: 'both',
    ok: 200,
    call: async () => ({ method: 'get', path: `${API_PREFIX}/customers/sa-alice/tier-progress` }),
  },
  { name: 'DELETE /customers/:id', guard: 'both', ok: 200, call: async () => ({ method: 'delete', path: `${API_PREFIX}/customers/${await freshCustomer()}` }) },
  {
    name: 'POST /customers/:id/delete',
    guard: 'both',
    ok: 200,
    call: async () => ({ method: 'post', path: `${API_PREFIX}/customers/${await freshCustomer()}/delete` }),
  },
  {
    name: 'POST /events',
    guard: 'apikey',
    ok: 200,
    call: async () => ({ method: 'post', path: `${API_PREFIX}/events`, body: { customerId: 'sa-alice', events: { visited: { aisle: 'A4' } } } }),
  },
  {
    name: 'POST /batch/orders',
    guard: 'both',
    ok: 200,
    call: async () => ({
      method: 'post',
      path: `${API_PREFIX}/batch/orders`,
      body: { body: [{ customerId: 'sa-alice', orderId: uniq('sa-o'), orderDate: now(), totalPaid: 5 }] },
    }),
  },
  {
    name: 'GET /batches/:jobId/status',
    guard: 'both',
    ok: 200,
    call: async () => {
      const { jobId } = await api('post', '/batch/orders', { body: [{ customerId: 'sa-alice', orderId: uniq('sa-o'), orderDate: now(), totalPaid: 5 }] });
      return { method: 'get', path: `${API_PREFIX}/batches/${jobId}/status` };
    },
  },
  { name: 'POST /_sandbox/reset', guard: 'admin', ok: 200, call: async () => ({ method: 'post', path: '/_sandbox/reset' }) },
  {
    name: 'POST /_sandbox/customers',
    guard: 'admin',
    ok: 201,
    call: async () => ({ method: 'post', path: '/_sandbox/customers', body: { customerId: uniq('sa-new'), points: 5 } }),
  },
  {
    name: 'POST /_sandbox/customers/bulk',
    guard: 'admin',
    ok: 200,
    call: async () => ({ method: 'post', path: '/_sandbox/customers/bulk', body: { prefix: 'sa-bulk-', count: 2, points: 1 } }),
  },
  {
    name: 'GET /_sandbox/customers/:id/activity',
    guard: 'admin',
    ok: 200,
    call: async () => ({ method: 'get', path: '/_sandbox/customers/sa-alice/activity' }),
  },
  {
    name: 'GET /_sandbox/otp/:id',
    guard: 'admin',
    ok: 200,
    call: async () => {
      await api('post', '/transactions/otp', { customerId: 'sa-alice', points: 10 });
      return { method: 'get', path: '/_sandbox/otp/sa-alice' };
    },
  },
  { name: 'GET /_sandbox/accounts/:apikey', guard: 'admin', ok: 200, call: async () => ({ method: 'get', path: `/_sandbox/accounts/${apikey}` }) },
  {
    name: 'PUT /_sandbox/accounts/:apikey',
    guard: 'admin',
    ok: 200,
    call: async () => ({ method: 'put', path: `/_sandbox/accounts/${apikey}`, body: (await admin().get(`/_sandbox/accounts/${apikey}`).set(both)).body }),
  },
  {
    name: 'DELETE /_sandbox/transactions/:id',
    guard: 'admin',
    ok: 200,
    call: async () => ({ method: 'delete', path: `/_sandbox/transactions/${await sale()}` }),
  },
  { name: 'GET /_sandbox/clock', guard: 'admin', ok: 200, call: async () => ({ method: 'get', path: '/_sandbox/clock' }) },
  { name: 'POST /_sandbox/clock/advance', guard: 'admin', ok: 200, call: async () => ({ method: 'post', path: '/_sandbox/clock/advance', body: { ms: 1 } }) },
  { name: 'GET /_sandbox/faults', guard: 'admin', ok: 200, call: async () => ({ method: 'get', path: '/_sandbox/faults' }) },
  { name: 'PUT /_sandbox/faults', guard: 'admin', ok: 200, call: async () => ({ method: 'put', path: '/_sandbox/faults', body: { rules: [] } }) },
  { name: 'DELETE /_sandbox/faults', guard: 'admin', ok: 200, call: async () => ({ method: 'delete', path: '/_sandbox/faults' }) },
  { name: 'GET /_sandbox/health', guard: 'open', ok: 200, call: async () => ({ method: 'get', path: '/_sandbox/health' }) },
];

function headersFor(k: Keys): Record<string, string> {
  switch (k) {
    case 'none':
      return {};
    case 'apikey only':
      return { apikey };
    case 'secret only':
      return { secretkey };
    case 'both':
      return both;
    case 'wrong apikey':
      return { apikey: 'not_an_account_key', secretkey };
    case 'wrong secret':
      return { apikey, secretkey: 'not_the_secret' };
  }
}

const API_KEY_INVALID = { status: 401, code: 1000 };
const SECRET_REQUIRED = { status: 401, code: 1001 };

function expected(r: SandboxRoute, k: Keys, hsm: boolean): { status: number; code?: number } {
  const ok = { status: r.ok };
  switch (r.guard) {
    case 'open':
      return ok;
    case 'both':
    case 'admin':
      if (k === 'none' || k === 'secret only' || k === 'wrong apikey') return API_KEY_INVALID;
      return k === 'both' ? ok : SECRET_REQUIRED;
    case 'apikey':
      if (k === 'none' || k === 'secret only' || k === 'wrong apikey') return API_KEY_INVALID;
      if (k === 'wrong secret') return SECRET_REQUIRED;
      return k === 'apikey only' && hsm ? SECRET_REQUIRED : ok;
  }
}

beforeAll(async () => {
  sb = await startSandbox({ accounts: [e2eAccount()], port: 0 });
});
afterAll(async () => {
  await sb?.close();
});

const TABLE = ROUTES.flatMap((r) => MODES.flatMap((hsm) => KEYS.map((k) => [r.name, k, hsm ? 'on' : 'off'] as const)));

describe('access matrix of the sandbox', () => {
  it('has every route once', () => {
    expect(new Set(ROUTES.map((r) => r.name)).size).toBe(ROUTES.length);
  });

  it.each(TABLE)('%s with %s, High Security Mode %s', async (name, keys, mode) => {
    const hsm = mode === 'on';
    const route = ROUTES.find((r) => r.name === name)!;
    await prepare(hsm);
    const { method, path, body } = await route.call();
    const res = await admin()[method](path).set(headersFor(keys)).send(body);
    const want = expected(route, keys, hsm);
    expect({ status: res.status, code: res.status >= 400 ? res.body.code : undefined }).toEqual({ status: want.status, code: want.code });
    if (res.status >= 400)
      expect(res.body).toEqual({
        code: want.code,
        type: expect.any(String),
        message: expect.any(String),
        documentationUrl: expect.any(String),
        requestId: expect.any(String),
        reason: expect.any(String),
      });
    expect(res.text).not.toContain(secretkey);
  });
});

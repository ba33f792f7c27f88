import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { KEY_REQUIRED, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';

/**
 * Every /pos/v1 route x {no token, wrong token, revoked token, cashier,
 * manager, kiosk} x {own store, other store}, with the exact status. "Own
 * store" means the resource was made by store-001 and the caller is a
 * store-001 terminal; "other store" callers are store-002 terminals. Roles
 * come before stores: another store's kiosk is told 403, not 404.
 */
type Credential = 'none' | 'wrong' | 'revoked' | 'cashier' | 'manager' | 'kiosk';
type Side = 'own' | 'other';
type Role = 'cashier' | 'manager' | 'kiosk';

interface Call {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  body?: object;
}

interface RouteRule {
  name: string;
  roles: Role[];
  /** Store-scoped resource: another store's terminal is told 404. */
  scoped?: boolean;
  /** Status and code of an allowed call. */
  ok: number;
  okCode?: string;
  /** A valid call, with a fresh resource where the call would use it up (some are the caller's own: `credential`). */
  call(credential: Credential): Promise<Call>;
}

const CREDENTIALS: Credential[] = ['none', 'wrong', 'revoked', 'cashier', 'manager', 'kiosk'];
const SIDES: Side[] = ['own', 'other'];

let s: Stack;
let n = 0;
const uniq = (p: string) => `${p}-${++n}`;
let heldId: string;
let queuedId: string;
let deadIds: string[];
/** Where each terminal reads back the answer it stopped waiting for (the 202's Location, below /pos/v1). */
const answerAt: Record<'cashier' | 'manager', string> = { cashier: '', manager: '' };
let jobId: number;
let lockId: string;
let paidId: string;
let refundedId: string;

async function eventually<T>(what: string, fn: () => Promise<T | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const faults = async (rules: object[]) => s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
const held = async () => (await s.pos('cashier').post('/redemptions', { customerId: 'am-alice', points: 5 }).expect(201)).body.id as string;
const sale = async () => {
  const paymentId = uniq('am-sale');
  await s.pos('cashier').post('/payments', { customerId: 'am-alice', paymentId, totalPaid: 40 }).expect(201);
  return paymentId;
};
/** A coupon lock of store-001, for a customer of its own (a code stays locked for its customer until released). */
const couponLock = async () => {
  const customerId = uniq('am-cpn');
  await s.seed(customerId, 0);
  return (
    await s
      .pos('cashier')
      .post('/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 100 })
      .expect(201)
  ).body.id as string;
};

type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] }; rawPath?: string };
/** Every `METHOD /path` the running BFF routes under /pos/v1 (Express path syntax), walking mounted routers. */
function posRoutes(): string[] {
  const walk = (stack: Layer[], prefix: string): string[] =>
    stack.flatMap((l) => {
      if (l.route) return Object.keys(l.route.methods).map((m) => `${m.toUpperCase()} ${prefix}${l.route!.path}`);
      if (l.handle?.stack) return walk(l.handle.stack, prefix + (l.rawPath === '/' || l.rawPath === undefined ? '' : l.rawPath));
      return [];
    });
  const all = walk((s.bff.app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...new Set(all.filter((r) => r.includes(' /pos/v1/')).map((r) => r.replace(' /pos/v1/', ' /')))].sort();
}

beforeAll(async () => {
  s = await startStack({
    store: 'memory',
    env: {
      // Limits have their own tests; here they would only get in the way of 300 calls from one address.
      TERMINAL_RATE_LIMIT_PER_MINUTE: '0',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
      MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0',
      LOYALTY_RETRIES: '0',
      OUTBOX_POLL_INTERVAL_MS: '50',
      OUTBOX_BACKOFF_BASE_MS: '50',
      OUTBOX_BACKOFF_MAX_MS: '200',
    },
  });
  await s.seed('am-alice', 1_000_000);
  heldId = await held();
  paidId = await sale();
  refundedId = uniq('am-ref');
  await s.pos('manager').post('/refunds', { customerId: 'am-alice', refundId: refundedId, paymentId: paidId, amount: 5 }).expect(201);
  lockId = await couponLock();
  jobId = (
    await s
      .pos('cashier')
      .post('/orders/batch', { orders: [{ customerId: 'am-alice', orderId: 'am-o-1', orderDate: new Date().toISOString(), totalPaid: 5 }] })
      .expect(202)
  ).body.jobId;
  // A queued payment (store-001), and three dead letters: refunds of this store's sales queued during an outage, then refused (422).
  for (const i of [1, 2, 3])
    await s
      .pos('cashier')
      .post('/payments', { customerId: 'am-alice', paymentId: `am-sold-${i}`, totalPaid: 5 })
      .expect(201);
  await faults([
    { operation: 'payment', status: 503 },
    { operation: 'refund', status: 503 },
  ]);
  queuedId = (await s.pos('cashier').post('/payments', { customerId: 'am-alice', paymentId: 'am-queued', totalPaid: 5 }).expect(202)).body.outboxId;
  deadIds = [];
  for (const i of [1, 2, 3])
    deadIds.push(
      (
        await s
          .pos('manager')
          .post('/refunds', { customerId: 'am-alice', refundId: `am-dl-${i}`, paymentId: `am-sold-${i}`, amount: 1 })
          .expect(202)
      ).body.outboxId,
    );
  await faults([{ operation: 'refund', status: 422 }]);
  await eventually('three dead letters', async () => (await s.pos('manager').get('/outbox/dead').expect(200)).body.deadLetters.length === 3);
  await faults([]);
  await eventually('three dead letters', async () => (await s.pos('manager').get('/outbox/dead').expect(200)).body.deadLetters.length === 3);
  // An answer a terminal stopped waiting for (202 at Prefer: wait), for the cashier and the manager: each reads only its own.
  await faults([{ operation: '*', latencyMs: 2000 }]);
  for (const role of ['cashier', 'manager'] as const) {
    const pending = await s
      .pos(role)
      .post('/payments', { customerId: 'am-alice', paymentId: uniq('am-waited'), totalPaid: 5 })
      .set('Prefer', 'wait=1')
      .expect(202);
    answerAt[role] = pending.headers.location.replace('/pos/v1', '');
  }
  await faults([]);
  for (const role of ['cashier', 'manager'] as const)
    await eventually(`the ${role}'s kept answer`, async () => (await s.pos(role).get(answerAt[role])).status === 201);
}, 30_000);
afterAll(async () => {
  await s?.close();
});

const ROUTES: RouteRule[] = [
  { name: 'GET /customers/:id', roles: ['cashier', 'manager'], ok: 200, call: async () => ({ method: 'get', path: '/customers/am-alice' }) },
  {
    name: 'PUT /customers/:id',
    roles: ['cashier', 'manager'],
    ok: 200,
    call: async () => ({ method: 'put', path: `/customers/${uniq('am-signup')}`, body: { displayName: 'Am Signup' } }),
  },
  { name: 'GET /customers/:id/hash', roles: ['kiosk'], ok: 200, call: async () => ({ method: 'get', path: '/customers/am-alice/hash' }) },
  {
    name: 'DELETE /customers/:id',
    roles: ['manager'],
    ok: 200,
    call: async () => {
      const id = uniq('am-gone');
      await s.seed(id, 1);
      return { method: 'delete', path: `/customers/${id}` };
    },
  },
  {
    name: 'POST /customers/:id/delete',
    roles: ['manager'],
    ok: 200,
    call: async () => {
      const id = uniq('am-gone');
      await s.seed(id, 1);
      return { method: 'post', path: `/customers/${id}/delete` };
    },
  },
  {
    name: 'POST /redemptions',
    roles: ['cashier', 'manager'],
    ok: 201,
    call: async () => ({ method: 'post', path: '/redemptions', body: { customerId: 'am-alice', points: 1 } }),
  },
  {
    name: 'POST /redemptions/:id/otp',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 409,
    okCode: 'redemption_not_awaiting_otp',
    call: async () => ({ method: 'post', path: `/redemptions/${heldId}/otp`, body: { otp: '123456' } }),
  },
  // A manager's approval of a stand-in: allowed through (a held redemption has nothing to approve).
  {
    name: 'POST /redemptions/:id/approve',
    roles: ['manager'],
    scoped: true,
    ok: 409,
    okCode: 'stand_in_not_pending',
    call: async () => ({ method: 'post', path: `/redemptions/${heldId}/approve` }),
  },
  { name: 'GET /redemptions/:id', roles: ['cashier', 'manager'], scoped: true, ok: 200, call: async () => ({ method: 'get', path: `/redemptions/${heldId}` }) },
  {
    name: 'POST /redemptions/:id/void',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'post', path: `/redemptions/${await held()}/void` }),
  },
  {
    name: 'POST /payments',
    roles: ['cashier', 'manager'],
    ok: 201,
    call: async () => ({ method: 'post', path: '/payments', body: { customerId: 'am-alice', paymentId: uniq('am-pay'), totalPaid: 10 } }),
  },
  // A sale is voided, refunded and read back only by the store that made it: another store's sale answers 404.
  {
    name: 'POST /payments/:paymentId/void',
    roles: ['manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'post', path: `/payments/${await sale()}/void`, body: { customerId: 'am-alice' } }),
  },
  {
    name: 'POST /refunds',
    roles: ['manager'],
    scoped: true,
    ok: 201,
    call: async () => ({ method: 'post', path: '/refunds', body: { customerId: 'am-alice', refundId: uniq('am-ref'), paymentId: await sale(), amount: 5 } }),
  },
  {
    name: 'GET /payments/:paymentId',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'get', path: `/payments/${paidId}` }),
  },
  {
    name: 'GET /payments/:paymentId/receipt',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'get', path: `/payments/${paidId}/receipt` }),
  },
  // A kept answer is its terminal's own: another store's terminal (any other terminal) is told 404; the owner gets the sale's 201 again.
  {
    name: 'GET /answers/:requestId',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 201,
    call: async (credential) => ({ method: 'get', path: answerAt[credential === 'manager' ? 'manager' : 'cashier'] }),
  },
  {
    name: 'GET /refunds/:refundId',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'get', path: `/refunds/${refundedId}` }),
  },
  {
    name: 'POST /coupons/validate',
    roles: ['cashier', 'manager'],
    ok: 200,
    call: async () => ({ method: 'post', path: '/coupons/validate', body: { customerId: 'am-alice', codes: ['WELCOME10'], basketTotal: 100 } }),
  },
  {
    name: 'POST /coupon-locks',
    roles: ['cashier', 'manager'],
    ok: 201,
    call: async () => {
      const customerId = uniq('am-cpn');
      await s.seed(customerId, 0);
      return { method: 'post', path: '/coupon-locks', body: { customerId, codes: ['WELCOME10'], basketTotal: 100 } };
    },
  },
  {
    name: 'GET /coupon-locks/:id',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'get', path: `/coupon-locks/${lockId}` }),
  },
  {
    name: 'POST /coupon-locks/:id/release',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'post', path: `/coupon-locks/${await couponLock()}/release` }),
  },
  {
    name: 'POST /earn-preview',
    roles: ['cashier', 'manager'],
    ok: 200,
    call: async () => ({
      method: 'post',
      path: '/earn-preview',
      body: { customerId: 'am-alice', totalPaid: 10, lines: [{ serviceId: 'am-sku', amount: 10 }] },
    }),
  },
  { name: 'GET /redemption-options', roles: ['cashier', 'manager'], ok: 200, call: async () => ({ method: 'get', path: '/redemption-options' }) },
  {
    name: 'POST /events',
    roles: ['cashier', 'manager', 'kiosk'],
    ok: 200,
    call: async () => ({ method: 'post', path: '/events', body: { customerId: 'am-alice', events: { store_visit: { aisle: 'A4' } } } }),
  },
  {
    name: 'POST /orders/batch',
    roles: ['cashier', 'manager'],
    ok: 202,
    call: async () => ({
      method: 'post',
      path: '/orders/batch',
      body: { orders: [{ customerId: 'am-alice', orderId: uniq('am-o'), orderDate: new Date().toISOString(), totalPaid: 5 }] },
    }),
  },
  {
    name: 'GET /orders/batch/:jobId',
    roles: ['cashier', 'manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'get', path: `/orders/batch/${jobId}` }),
  },
  {
    name: 'GET /outbox/:id',
    roles: ['cashier', 'manager', 'kiosk'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'get', path: `/outbox/${queuedId}` }),
  },
  // Every store may list its own dead letters (store-002 has none): not a 404.
  { name: 'GET /outbox/dead', roles: ['manager'], ok: 200, call: async () => ({ method: 'get', path: '/outbox/dead' }) },
  // Store reports: each store's manager reads its own store's (the other store's cannot be named).
  { name: 'GET /audit', roles: ['manager'], ok: 200, call: async () => ({ method: 'get', path: '/audit' }) },
  { name: 'GET /audit/signals', roles: ['manager'], ok: 200, call: async () => ({ method: 'get', path: '/audit/signals' }) },
  { name: 'GET /reconciliation', roles: ['manager'], ok: 200, call: async () => ({ method: 'get', path: '/reconciliation' }) },
  {
    name: 'POST /outbox/dead/:id/retry',
    roles: ['manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'post', path: `/outbox/dead/${deadIds[0]}/retry` }),
  },
  {
    name: 'POST /outbox/dead/:id/discard',
    roles: ['manager'],
    scoped: true,
    ok: 200,
    call: async () => ({ method: 'post', path: `/outbox/dead/${deadIds[1]}/discard` }),
  },
  { name: 'DELETE /outbox/dead/:id', roles: ['manager'], scoped: true, ok: 200, call: async () => ({ method: 'delete', path: `/outbox/dead/${deadIds[2]}` }) },
];

function tokenFor(c: Credential, side: Side): string | undefined {
  if (c === 'none') return undefined;
  if (c === 'wrong') return `pt_${'x'.repeat(43)}`;
  if (c === 'revoked') return s.tokens.revoked;
  const key = side === 'own' ? c : (`other${c[0].toUpperCase()}${c.slice(1)}` as 'otherCashier' | 'otherManager' | 'otherKiosk');
  return s.tokens[key];
}

function expected(r: RouteRule, c: Credential, side: Side): { status: number; code?: string } {
  if (c === 'none') return { status: 401, code: 'missing_token' };
  if (c === 'wrong' || c === 'revoked') return { status: 401, code: 'invalid_token' };
  if (!r.roles.includes(c)) return { status: 403, code: 'role_not_allowed' };
  if (r.scoped && side === 'other') return { status: 404 };
  return { status: r.ok, code: r.okCode };
}

const TABLE = ROUTES.flatMap((r) => CREDENTIALS.flatMap((c) => SIDES.map((side) => [r.name, c, side] as const)));

describe('access matrix of /pos/v1', () => {
  it('lists every route of the cashier API once', () => {
    const served = posRoutes();
    expect(served.length).toBeGreaterThan(0);
    expect(ROUTES.map((r) => r.name).sort()).toEqual(served);
    expect(TABLE).toHaveLength(served.length * 12);
  });

  it.each(TABLE)('%s, %s token, %s store', async (name, credential, side) => {
    const rule = ROUTES.find((r) => r.name === name)!;
    const want = expected(rule, credential, side);
    const { method, path, body } = await rule.call(credential);
    let req = request(s.bff.url)[method](`/pos/v1${path}`);
    const token = tokenFor(credential, side);
    if (token) req = req.set('Authorization', `Bearer ${token}`);
    if (method === 'post' && KEY_REQUIRED.test(path)) req = req.set('Idempotency-Key', randomUUID());
    if (body) req = req.send(body);
    const res = await req;
    expect({ status: res.status, code: res.status >= 400 ? res.body.code : undefined }).toEqual({
      status: want.status,
      code: res.status >= 400 ? (want.code ?? expect.stringMatching(/_not_found$/)) : undefined,
    });
    if (res.status === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="pos"/);
  });
});

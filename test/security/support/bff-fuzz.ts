import { SANDBOX_KEYS, Stack, StackOptions, startStack } from '../../support/e2e';
import { balanceSnapshot } from './balances';
import { FUZZ_SEED, fuzzRoute, FuzzRoute, FuzzTarget, FuzzTally } from './fuzz';
import { rawClient, RawClient } from './raw-http';

/** Small on purpose: oversized bodies are cheap to send and must be a 413. */
export const FUZZ_BODY_LIMIT = 16 * 1024;
const CUSTOMER = 'fz-alice';

export interface BffFuzzStack {
  stack: Stack;
  target: FuzzTarget;
  routes: FuzzRoute[];
  tally: FuzzTally;
  close(): Promise<void>;
}

/**
 * The whole product (sandbox + BFF) with fuzzing-friendly limits, a customer
 * with plenty of points, and one of each thing a path names (a held
 * redemption, a recorded sale, a batch job), so valid requests reach the rules.
 */
export async function bffFuzzStack(store: StackOptions['store']): Promise<BffFuzzStack> {
  const stack = await startStack({
    store,
    env: {
      BODY_LIMIT_BYTES: String(FUZZ_BODY_LIMIT),
      // The limiters stay in the path (their code runs on every case) but never trip here.
      TERMINAL_RATE_LIMIT_PER_MINUTE: '100000000',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '100000000',
      MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '25',
      // A busy test machine must not turn into upstream timeouts (a 503 would read as a fuzz failure).
      LOYALTY_TIMEOUT_MS: '20000',
      OUTBOX_POLL_INTERVAL_MS: '50',
      OUTBOX_BACKOFF_BASE_MS: '50',
      OUTBOX_BACKOFF_MAX_MS: '200',
    },
  });
  await stack.seed(CUSTOMER, 10_000_000);
  await stack.seed('fz-delete-me', 10);
  const held = await stack.pos('cashier').post('/redemptions', { customerId: CUSTOMER, points: 10 }).expect(201);
  await stack.pos('cashier').post('/payments', { customerId: CUSTOMER, paymentId: 'fz-sale-void', totalPaid: 50 }).expect(201);
  await stack.pos('cashier').post('/payments', { customerId: CUSTOMER, paymentId: 'fz-sale-refund', totalPaid: 1_000_000 }).expect(201);
  // A payment queued while the loyalty service refuses payments: an outbox entry for the outbox routes.
  await stack.sandboxAdmin
    .put('/_sandbox/faults')
    .set(SANDBOX_KEYS)
    .send({ rules: [{ operation: 'payment', status: 503, times: 10 }] })
    .expect(200);
  const queued = await stack.pos('cashier').post('/payments', { customerId: CUSTOMER, paymentId: 'fz-sale-queued', totalPaid: 5 }).expect(202);
  await stack.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  // Delivered before the fuzzing starts: a background delivery would change the balance under a refused case.
  for (let until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 25))) {
    const entry = await stack.pos('cashier').get(`/outbox/${queued.body.outboxId}`).expect(200);
    if (entry.body.state === 'delivered') break;
    if (Date.now() > until) throw new Error(`the queued payment was not delivered: ${entry.text}`);
  }
  const job = await stack
    .pos('cashier')
    .post('/orders/batch', { orders: [{ customerId: CUSTOMER, orderId: 'fz-order-1', orderDate: new Date().toISOString(), totalPaid: 20 }] })
    .expect(202);

  const client: RawClient = rawClient(stack.bff.url);
  const auth = (role: keyof Stack['tokens']) => ({ Authorization: `Bearer ${stack.tokens[role]}` });
  const now = () => new Date().toISOString();

  const routes: FuzzRoute[] = [
    {
      name: 'GET /customers/:id',
      method: 'GET',
      path: '/pos/v1/customers/:id',
      params: { id: CUSTOMER },
      query: '?lang=en',
      headers: auth('cashier'),
      success: [200],
    },
    { name: 'GET /customers/:id/hash', method: 'GET', path: '/pos/v1/customers/:id/hash', params: { id: CUSTOMER }, headers: auth('kiosk'), success: [200] },
    {
      name: 'DELETE /customers/:id',
      method: 'DELETE',
      path: '/pos/v1/customers/:id',
      params: { id: 'fz-delete-me' },
      headers: auth('manager'),
      success: [200],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /customers/:id/delete',
      method: 'POST',
      path: '/pos/v1/customers/:id/delete',
      params: { id: 'fz-delete-me' },
      headers: auth('manager'),
      success: [200],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /redemptions',
      method: 'POST',
      path: '/pos/v1/redemptions',
      headers: auth('cashier'),
      body: () => ({ customerId: CUSTOMER, points: 1, email: 'alice@example.com' }),
      success: [201],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /redemptions/:id/otp',
      method: 'POST',
      path: '/pos/v1/redemptions/:id/otp',
      params: { id: held.body.id },
      headers: auth('cashier'),
      body: () => ({ otp: '123456' }),
      success: [200],
      watch: [CUSTOMER],
    },
    { name: 'GET /redemptions/:id', method: 'GET', path: '/pos/v1/redemptions/:id', params: { id: held.body.id }, headers: auth('cashier'), success: [200] },
    {
      name: 'POST /redemptions/:id/void',
      method: 'POST',
      path: '/pos/v1/redemptions/:id/void',
      params: { id: held.body.id },
      headers: auth('cashier'),
      success: [200],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /payments',
      method: 'POST',
      path: '/pos/v1/payments',
      headers: auth('cashier'),
      body: (uniq) => ({
        customerId: CUSTOMER,
        paymentId: `fz-${uniq}`,
        totalPaid: 12.5,
        totalAmount: 15,
        paymentDate: now(),
        lines: [{ serviceId: 'sku-1', name: 'Coffee', amount: 12.5, tax: 1, category: ['drinks'], tags: ['hot'], extra: { size: 'L' } }],
        extra: { till: '3' },
      }),
      success: [200, 201, 202],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /payments/:paymentId/void',
      method: 'POST',
      path: '/pos/v1/payments/:paymentId/void',
      params: { paymentId: 'fz-sale-void' },
      headers: auth('manager'),
      body: (uniq) => ({ customerId: CUSTOMER, refundId: `fz-v-${uniq}` }),
      success: [200, 201, 202],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /refunds',
      method: 'POST',
      path: '/pos/v1/refunds',
      headers: auth('manager'),
      body: (uniq) => ({ customerId: CUSTOMER, refundId: `fz-r-${uniq}`, paymentId: 'fz-sale-refund', amount: 1, transactionTime: now() }),
      success: [200, 201, 202],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /events',
      method: 'POST',
      path: '/pos/v1/events',
      headers: auth('kiosk'),
      body: () => ({ customerId: CUSTOMER, events: { store_visit: { aisle: 'A4', minutes: 3, member: true } } }),
      success: [200, 202],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /orders/batch',
      method: 'POST',
      path: '/pos/v1/orders/batch',
      headers: auth('manager'),
      body: (uniq) => ({ orders: [{ customerId: CUSTOMER, orderId: `fz-o-${uniq}`, orderDate: now(), totalPaid: 0 }] }),
      success: [202],
    },
    { name: 'GET /outbox/:id', method: 'GET', path: '/pos/v1/outbox/:id', params: { id: queued.body.outboxId }, headers: auth('cashier'), success: [200] },
    { name: 'GET /outbox/dead', method: 'GET', path: '/pos/v1/outbox/dead', query: '?limit=10', headers: auth('manager'), success: [200] },
    {
      name: 'POST /outbox/dead/:id/retry',
      method: 'POST',
      path: '/pos/v1/outbox/dead/:id/retry',
      params: { id: queued.body.outboxId },
      headers: auth('manager'),
      success: [200, 202],
      watch: [CUSTOMER],
    },
    {
      name: 'POST /outbox/dead/:id/discard',
      method: 'POST',
      path: '/pos/v1/outbox/dead/:id/discard',
      params: { id: queued.body.outboxId },
      headers: auth('manager'),
      success: [200],
      watch: [CUSTOMER],
    },
    {
      name: 'DELETE /outbox/dead/:id',
      method: 'DELETE',
      path: '/pos/v1/outbox/dead/:id',
      params: { id: queued.body.outboxId },
      headers: auth('manager'),
      success: [200],
      watch: [CUSTOMER],
    },
    {
      name: 'GET /orders/batch/:jobId',
      method: 'GET',
      path: '/pos/v1/orders/batch/:jobId',
      params: { jobId: String(job.body.jobId) },
      headers: auth('cashier'),
      success: [200],
    },
  ];

  const target: FuzzTarget = {
    program: 'bff',
    client,
    bodyLimitBytes: FUZZ_BODY_LIMIT,
    secrets: [SANDBOX_KEYS.secretkey, SANDBOX_KEYS.apikey, ...Object.values(stack.tokens)],
    balances: async (ids) => balanceSnapshot(stack.sandbox.context, SANDBOX_KEYS.apikey, ids),
    alive: () => client.send({ method: 'GET', path: `/pos/v1/customers/${CUSTOMER}`, headers: auth('cashier') }),
  };
  return {
    stack,
    target,
    routes,
    tally: { cases: 0, statuses: {} },
    async close() {
      client.close();
      await stack.close();
    },
  };
}

/** Every route in the table: the suite the memory and Redis runs share. */
export const BFF_ROUTE_NAMES = [
  'GET /customers/:id',
  'GET /customers/:id/hash',
  'DELETE /customers/:id',
  'POST /customers/:id/delete',
  'POST /redemptions',
  'POST /redemptions/:id/otp',
  'GET /redemptions/:id',
  'POST /redemptions/:id/void',
  'POST /payments',
  'POST /payments/:paymentId/void',
  'POST /refunds',
  'POST /events',
  'POST /orders/batch',
  'GET /orders/batch/:jobId',
  'GET /outbox/:id',
  'GET /outbox/dead',
  'POST /outbox/dead/:id/retry',
  'POST /outbox/dead/:id/discard',
  'DELETE /outbox/dead/:id',
];

/** Declares the fuzz suite over one store kind with `runsPerRoute` cases per route (of `names`, default all). */
export function describeBffFuzz(store: StackOptions['store'], runsPerRoute: number, names: readonly string[] = BFF_ROUTE_NAMES): void {
  let f: BffFuzzStack;
  beforeAll(async () => {
    f = await bffFuzzStack(store);
  }, 30_000);
  afterAll(async () => {
    console.log(
      `BFF fuzz (${store} store): ${f?.tally.cases} cases over ${names.length} routes, seed ${FUZZ_SEED ?? 'random'}\n${JSON.stringify(f?.tally.statuses, null, 1)}`,
    );
    await f?.close();
  });

  describe(`fuzzing /pos/v1 routes (${store} store)`, () => {
    it.each([...names])(
      '%s: only clear 4xx refusals or allowed successes',
      async (name) => {
        const route = f.routes.find((r) => r.name === name);
        expect(route).toBeDefined();
        const before = f.tally.cases;
        await fuzzRoute(f.target, route!, runsPerRoute, f.tally, FUZZ_SEED);
        expect(f.tally.cases - before).toBe(runsPerRoute);
      },
      Math.max(120_000, runsPerRoute * 100),
    );

    it('has a fuzz route for every route of the cashier API', () => {
      expect(f.routes.map((r) => r.name).sort()).toEqual([...BFF_ROUTE_NAMES].sort());
      for (const name of names) expect(BFF_ROUTE_NAMES).toContain(name);
    });

    it('left no secret in any log line', () => {
      const all = f.stack.logs.join('\n');
      for (const secret of f.target.secrets) expect(all).not.toContain(secret);
    });
  });
}

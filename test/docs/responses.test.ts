import type request from 'supertest';
import { POS_ROUTES, PosRoute } from '../../src/pos/openapi';
import { ProblemSchema } from '../../src/pos/answers';
import { waitFor } from '../e2e/helpers';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/**
 * The response schemas of the cashier document against real answers: every
 * documented route is called for real (BFF and sandbox over HTTP), and each
 * answer must have the documented status and parse with the documented
 * (strict) schema. Error answers must parse as problem details.
 */
const exercised = new Set<string>();

/** Checks one answer against the route's documented success response. */
function documented(method: PosRoute['method'], path: string, res: request.Response, answer: 'success' | 'queued' = 'success') {
  const route = POS_ROUTES.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`${method} ${path} is not documented`);
  exercised.add(`${method} ${path} ${answer}`);
  const expected = answer === 'success' ? route.success : { status: 202, schema: route.queued!.schema };
  expect({ route: route.operationId, status: res.status }).toEqual({ route: route.operationId, status: expected.status });
  const parsed = expected.schema.safeParse(res.body);
  expect({ route: route.operationId, issues: parsed.error?.issues ?? [] }).toEqual({ route: route.operationId, issues: [] });
  return res.body;
}
function problem(res: request.Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(ProblemSchema.safeParse(res.body).success).toBe(true);
}

describe('real cashier responses match the documented schemas', () => {
  let s: Stack;
  let otp: Stack;

  beforeAll(async () => {
    [s, otp] = await Promise.all([startStack({ store: 'memory' }), startStack({ store: 'memory', account: { otpEnabled: true } })]);
  });
  afterAll(async () => { await Promise.all([s?.close(), otp?.close()]); });

  it('customers: registration, summary, hash, deletion', async () => {
    const created = documented('put', '/customers/:id', await s.pos('cashier').put('/customers/doc-nour', { displayName: 'Nour Hassan', email: 'nour@example.com' }));
    expect(created.outcome).toBe('created');
    expect(documented('put', '/customers/:id', await s.pos('manager').put('/customers/doc-nour', { mobile: '+201001234567' })).outcome).toBe('updated');
    problem(await s.pos('cashier').put('/customers/doc-nour', { email: 'nope' }), 400);
    await s.seed('doc-alice', 1000);
    documented('get', '/customers/:id', await s.pos('cashier').get('/customers/doc-alice?lang=en'));
    documented('get', '/customers/:id/hash', await s.pos('kiosk').get('/customers/doc-alice/hash'));
    await s.seed('doc-gone-1', 10);
    await s.seed('doc-gone-2', 10);
    documented('delete', '/customers/:id', await s.pos('manager').delete('/customers/doc-gone-1'));
    documented('post', '/customers/:id/delete', await s.pos('manager').post('/customers/doc-gone-2/delete'));
    problem(await s.pos('cashier').get('/customers/doc-nobody'), 404);
  });

  it('redemptions and payments: start, read, void, pay with and without points', async () => {
    const hash = await s.hash('doc-alice');
    const r = documented('post', '/redemptions', await s.pos('cashier').post('/redemptions', { customerId: 'doc-alice', hash, points: 100 }));
    documented('get', '/redemptions/:id', await s.pos('cashier').get(`/redemptions/${r.id}`));
    documented('post', '/redemptions/:id/void', await s.pos('cashier').post(`/redemptions/${r.id}/void`));
    problem(await s.pos('cashier').post(`/redemptions/${r.id}/void`), 409);

    const held = documented('post', '/redemptions', await s.pos('cashier').post('/redemptions', { qr: `doc-alice:${await s.hash('doc-alice')}`, amount: 10 }));
    const paid = documented('post', '/payments', await s.pos('cashier').post('/payments', {
      customerId: 'doc-alice', paymentId: 'doc-sale-1', totalPaid: 90, totalAmount: 100, redemptionId: held.id,
      lines: [{ serviceId: 'sku-1', amount: 100, category: ['grocery'] }],
    }));
    expect(paid.redemption).toEqual({ id: held.id, state: 'redeemed' });
    documented('post', '/payments', await s.pos('cashier').post('/payments', { customerId: 'doc-alice', paymentId: 'doc-sale-2', totalPaid: 50 }));
    problem(await s.pos('cashier').post('/payments', { customerId: 'doc-alice', paymentId: 'doc-sale-3', totalPaid: -1 }), 400);
  });

  it('refunds and sale voids', async () => {
    documented('post', '/refunds', await s.pos('manager').post('/refunds', { customerId: 'doc-alice', refundId: 'doc-ref-1', paymentId: 'doc-sale-1', amount: 10 }));
    documented('post', '/payments/:paymentId/void', await s.pos('manager').post('/payments/doc-sale-2/void', { customerId: 'doc-alice' }));
    problem(await s.pos('cashier').post('/refunds', { customerId: 'doc-alice', refundId: 'doc-ref-2', paymentId: 'doc-sale-1' }), 403);
  });

  it('coupons, earn preview, redemption options, and reading a sale back', async () => {
    await s.seed('doc-carol', 500);
    const checks = documented('post', '/coupons/validate', await s.pos('cashier').post('/coupons/validate', { customerId: 'doc-carol', codes: ['WELCOME10', 'SUMMER20'], basketTotal: 50 }));
    expect(checks.coupons.map((c: { usable: boolean }) => c.usable)).toEqual([true, false]);
    const lock = documented('post', '/coupon-locks', await s.pos('cashier').post('/coupon-locks', { customerId: 'doc-carol', codes: ['WELCOME10'], basketTotal: 50 }));
    documented('get', '/coupon-locks/:id', await s.pos('cashier').get(`/coupon-locks/${lock.id}`));
    documented('post', '/coupon-locks/:id/release', await s.pos('cashier').post(`/coupon-locks/${lock.id}/release`));
    const again = documented('post', '/coupon-locks', await s.pos('cashier').post('/coupon-locks', { customerId: 'doc-carol', codes: ['WELCOME10'], basketTotal: 50 }));
    const paid = documented('post', '/payments', await s.pos('cashier').post('/payments', { customerId: 'doc-carol', paymentId: 'doc-sale-c', totalPaid: 40, couponLockId: again.id }));
    expect(paid.couponLock).toMatchObject({ id: again.id, state: 'used' });
    documented('post', '/earn-preview', await s.pos('cashier').post('/earn-preview', { customerId: 'doc-carol', totalPaid: 40, lines: [{ serviceId: 'sku-1', amount: 50 }] }));
    documented('get', '/redemption-options', await s.pos('cashier').get('/redemption-options'));
    documented('get', '/payments/:paymentId', await s.pos('cashier').get('/payments/doc-sale-1'));
    documented('get', '/payments/:paymentId/receipt', await s.pos('cashier').get('/payments/doc-sale-1/receipt'));
    // A write answered 202 at its till's deadline, still running (test/e2e/till-deadline.test.ts makes one for real).
    await s.bff.deps.tillAnswers.open({ terminalId: s.terminalIds.cashier, requestId: 'doc-pending-1', createdAt: Date.now() }, 60_000);
    documented('get', '/answers/:requestId', await s.pos('cashier').get('/answers/doc-pending-1'));
    documented('get', '/refunds/:refundId', await s.pos('cashier').get('/refunds/doc-ref-1'));
    problem(await s.pos('cashier').post('/earn-preview', { totalPaid: 40, lines: [] }), 400);
  });

  it('events and offline orders', async () => {
    documented('post', '/events', await s.pos('kiosk').post('/events', { customerId: 'doc-alice', events: { store_visit: { floor: 1 } } }));
    const job = documented('post', '/orders/batch', await s.pos('cashier').post('/orders/batch', {
      orders: [{ customerId: 'doc-alice', orderId: 'doc-off-1', orderDate: new Date().toISOString(), totalPaid: 30 }],
    }));
    documented('get', '/orders/batch/:jobId', await s.pos('manager').get(`/orders/batch/${job.jobId}`));
  });

  it('the OTP flow', async () => {
    await otp.seed('doc-otp', 500);
    const hash = await otp.hash('doc-otp');
    const r = documented('post', '/redemptions', await otp.pos('cashier').post('/redemptions', { customerId: 'doc-otp', hash, points: 50 }));
    expect(r.state).toBe('otp_required');
    problem(await otp.pos('cashier').post(`/redemptions/${r.id}/otp`, { otp: '000000' }), 422);
    const held = documented('post', '/redemptions/:id/otp', await otp.pos('cashier').post(`/redemptions/${r.id}/otp`, { otp: await otp.otp('doc-otp') }));
    expect(held.state).toBe('held');
  });

});

/**
 * The 202 answers of writes queued while the loyalty service is out of reach
 * (sandbox faults), and the outbox routes, with a dead letter retried and
 * discarded both ways.
 */
describe('real answers of queued writes and the outbox routes match the documented schemas', () => {
  let s: Stack;
  beforeAll(async () => {
    // Returns at any branch: a refund of a sale no store rang up (here, one that dies) is then the upstream's to refuse.
    s = await startStack({ store: 'memory', env: { RETURNS_AT_ANY_BRANCH: 'true', BREAKER_FAILURE_THRESHOLD: '1000', LOYALTY_RETRIES: '0', OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_BACKOFF_BASE_MS: '50' } });
  });
  afterAll(async () => { await s?.close(); });
  const faults = (rules: object[]) => s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
  const entry = async (id: string) => documented('get', '/outbox/:id', await s.pos('cashier').get(`/outbox/${id}`));
  const until = async (id: string, state: string) => {
    await waitFor(`${id} to be ${state}`, async () => (await s.pos('manager').get(`/outbox/${id}`)).body.state === state, 5_000);
  };

  it('payments, refunds, voids, events and uploads answer 202 queued, then are delivered or die', async () => {
    await s.seed('q-alice', 100);
    await faults([{ operation: 'payment', status: 503 }, { operation: 'refund', status: 503 }, { operation: 'batchOrders', status: 503 }]);
    const pay = documented('post', '/payments', await s.pos('cashier').post('/payments', { customerId: 'q-alice', paymentId: 'q-sale-1', totalPaid: 50 }), 'queued');
    const lost = documented('post', '/refunds', await s.pos('manager').post('/refunds', { customerId: 'q-alice', refundId: 'q-ref-1', paymentId: 'q-no-such-sale' }), 'queued');
    documented('post', '/events', await s.pos('kiosk').post('/events', { customerId: 'q-alice', events: { store_visit: { floor: 1 } } }), 'queued');
    documented('post', '/payments/:paymentId/void', await s.pos('manager').post('/payments/q-sale-1/void', { customerId: 'q-alice' }), 'queued');
    documented('post', '/orders/batch', await s.pos('cashier').post('/orders/batch', { orders: [{ customerId: 'q-alice', orderId: 'q-off-1', orderDate: new Date().toISOString(), totalPaid: 20 }] }), 'queued');
    await entry(pay.outboxId);
    await s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);

    await until(pay.outboxId, 'delivered');
    expect(await entry(pay.outboxId)).toMatchObject({ state: 'delivered', kind: 'payment' });
    await until(lost.outboxId, 'dead');
    const dead = documented('get', '/outbox/dead', await s.pos('manager').get('/outbox/dead?limit=10'));
    expect(dead.deadLetters.map((d: { outboxId: string }) => d.outboxId)).toContain(lost.outboxId);

    documented('post', '/outbox/dead/:id/retry', await s.pos('manager').post(`/outbox/dead/${lost.outboxId}/retry`));
    await until(lost.outboxId, 'dead');
    documented('post', '/outbox/dead/:id/discard', await s.pos('manager').post(`/outbox/dead/${lost.outboxId}/discard`));

    await faults([{ operation: 'refund', status: 503 }]);
    const lost2 = documented('post', '/refunds', await s.pos('manager').post('/refunds', { customerId: 'q-bob', refundId: 'q-ref-2', paymentId: 'q-no-such-sale' }), 'queued');
    await s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
    await until(lost2.outboxId, 'dead');
    documented('delete', '/outbox/dead/:id', await s.pos('manager').delete(`/outbox/dead/${lost2.outboxId}`));
  });
});

describe('stand-in answers match the documented schemas', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { STAND_IN: 'on', BREAKER_FAILURE_THRESHOLD: '2', BREAKER_HALF_OPEN_AFTER_MS: '60000' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a stand-in start, and a manager approving one above the floor limits', async () => {
    await s.seed('doc-si', 1000);
    const hash = await s.hash('doc-si');
    await s.pos('cashier').get('/customers/doc-si').expect(200);
    // The loyalty service out, and this instance's circuit open.
    await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules: [{ operation: '*', status: 503 }] }).expect(200);
    for (let n = 0; n < 3; n++) await s.pos('cashier').get('/customers/doc-nobody');
    const started = documented('post', '/redemptions', await s.pos('cashier').post('/redemptions', { customerId: 'doc-si', hash, points: 100 }));
    expect(started.state).toBe('stand_in');
    const over = await s.pos('cashier').post('/redemptions', { customerId: 'doc-si', hash, points: 800 });
    problem(over, 409);
    expect(over.body.code).toBe('stand_in_needs_approval');
    const approved = documented('post', '/redemptions/:id/approve', await s.pos('manager').post(`/redemptions/${over.body.redemptionId}/approve`));
    expect(approved.state).toBe('stand_in');
  });
});

describe('store reports match the documented schemas', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the audit trail and the reconciliation of the day so far', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    await s.seed('doc-report', 500);
    await s.pos('cashier').post('/payments', { customerId: 'doc-report', paymentId: 'doc-report-1', totalPaid: 30 }).set('X-Cashier-Id', 'c-1').expect(201);
    const audit = documented('get', '/audit', await s.pos('manager').get('/audit?customerId=doc-report'));
    expect(audit.entries).toHaveLength(1);
    const to = new Date(Date.now() + 60_000).toISOString();
    const report = documented('get', '/reconciliation', await s.pos('manager').get(`/reconciliation?from=${from}&to=${to}`));
    expect(report.rows.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([['doc-report-1', 'matched']]);
    problem(await s.pos('manager').get('/reconciliation?date=yesterday'), 400);
    const signals = documented('get', '/audit/signals', await s.pos('manager').get('/audit/signals'));
    expect(signals).toMatchObject({ storeId: 'store-001', signals: [] });
  });
});

describe('coverage', () => {
  it('every documented cashier answer was seen for real: each route, and each queued answer', () => {
    const documentedAnswers = POS_ROUTES.flatMap((r) => [`${r.method} ${r.path} success`, ...(r.queued ? [`${r.method} ${r.path} queued`] : [])]);
    expect([...exercised].sort()).toEqual(documentedAnswers.sort());
  });
});

import { startStack, Stack } from '../support/e2e';
import { heldRedemption } from './helpers';

/**
 * Go-live checklist items with no test elsewhere: a customer the loyalty service
 * has never seen is registered by their first sale at the till, a new customer's
 * welcome bonus shows at the till, and the dates the BFF sends are ISO 8601.
 * (Every item and its test: docs/GO-LIVE.md.)
 */

/** ISO 8601 with a time zone, as the published reference's date-time wants it. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe.each(['memory', 'redis'] as const)('go-live checklist (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('registers a new customer with their first sale at the till, and earns them points', async () => {
    await s.pos('cashier').get('/customers/first-timer').expect(404);
    const pay = await s.pos('cashier').post('/payments', { customerId: 'first-timer', paymentId: 'gl-new-1', totalPaid: 60 }).expect(201);
    expect(pay.body).toMatchObject({ status: 'recorded', pointsEarned: 60 });
    const summary = await s.pos('cashier').get('/customers/first-timer').expect(200);
    expect(summary.body.points.available).toBe(60);
    // An existing customer's next sale adds to the same profile.
    await s.pos('cashier').post('/payments', { customerId: 'first-timer', paymentId: 'gl-new-2', totalPaid: 40 }).expect(201);
    expect((await s.pos('cashier').get('/customers/first-timer').expect(200)).body.points.available).toBe(100);
  });

  it("sends ISO 8601 dates: the till's own, or the time of the request when it gives none; refuses any other form", async () => {
    const since = s.sentUpstream().length;
    const r = await heldRedemption(s, 'gl-dates', 100, { seed: 500 });
    await s.pos('cashier').post('/payments', { customerId: 'gl-dates', paymentId: 'gl-d-1', totalPaid: 50, redemptionId: r.id }).expect(201);
    await s
      .pos('cashier')
      .post('/payments', { customerId: 'gl-dates', paymentId: 'gl-d-2', totalPaid: 20, paymentDate: '2026-03-01T09:30:00+02:00' })
      .expect(201);
    await s.pos('manager').post('/refunds', { customerId: 'gl-dates', refundId: 'gl-d-r1', paymentId: 'gl-d-1', amount: 10 }).expect(201);
    const dates = s
      .sentUpstream()
      .slice(since)
      .flatMap((e) => {
        const b = (e.body ?? {}) as Record<string, unknown>;
        return (['paymentDate', 'transactionTime'] as const).filter((k) => k in b).map((k) => [e.path, k, b[k]] as const);
      });
    const paths = dates.map(([p, k]) => `${p.replace(/^.*integrations/, '')} ${k}`);
    expect(paths).toEqual(expect.arrayContaining(['/transactions/hold transactionTime', '/payments paymentDate', '/transactions/refund transactionTime']));
    for (const [p, k, v] of dates) expect([p, k, String(v)]).toEqual([p, k, expect.stringMatching(ISO_8601)]);
    expect(dates.map(([, , v]) => v)).toContain('2026-03-01T09:30:00+02:00');

    for (const paymentDate of ['01/03/2026 09:30', '2026-03-01 09:30:00', '2026-03-01T09:30:00']) {
      const bad = await s.pos('cashier').post('/payments', { customerId: 'gl-dates', paymentId: 'gl-d-bad', totalPaid: 5, paymentDate }).expect(400);
      expect([paymentDate, bad.body.code, bad.body.errors?.[0]?.path]).toEqual([paymentDate, 'validation_failed', 'paymentDate']);
    }
  });
});

describe('go-live test case 1 on an account with a welcome bonus', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', account: { welcomeBonusPoints: 100 } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a customer registered at the till has the welcome bonus in their summary, once', async () => {
    await s.pos('cashier').get('/customers/gl-welcome').expect(404);
    expect((await s.pos('cashier').put('/customers/gl-welcome', { firstName: 'Mona' }).expect(200)).body.outcome).toBe('created');
    expect((await s.pos('cashier').get('/customers/gl-welcome').expect(200)).body.points.available).toBe(100);
    await s.pos('cashier').put('/customers/gl-welcome', { firstName: 'Mona', lastName: 'Adel' }).expect(200);
    await s.pos('cashier').post('/payments', { customerId: 'gl-welcome', paymentId: 'gl-w-1', totalPaid: 30 }).expect(201);
    expect((await s.pos('cashier').get('/customers/gl-welcome').expect(200)).body.points.available).toBe(130);
  });
});

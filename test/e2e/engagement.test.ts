import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { expectNoSecrets, waitFor } from './helpers';

/** Events, the end-of-day order upload, customer deletion, and the kiosk's hash. */
describe('events, batch orders, deletion and the hash (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('records events from a till and a kiosk: place_order gives 10 points, an unrewarded event none', async () => {
    await s.seed('ev-1', 100);
    const kiosk = await s
      .pos('kiosk')
      .post('/events', { customerId: 'ev-1', events: { store_visit: { floor: 3 } } })
      .expect(200);
    expect(kiosk.body).toEqual({ customerId: 'ev-1', accepted: ['store_visit'] });
    await s
      .pos('cashier')
      .post('/events', { customerId: 'ev-1', events: { place_order: { basket: 3 } } })
      .expect(200);
    expect((await s.balance('ev-1')).availablePointsBalance).toBe(110);
    const till = await s
      .pos('cashier')
      .post('/events', { customerId: 'ev-1', events: { place_order: {}, visited_store: { aisle: 'A4' } } })
      .expect(200);
    expect(till.body.accepted).toEqual(['place_order', 'visited_store']);
    expect((await s.balance('ev-1')).availablePointsBalance).toBe(120);
  });

  it('rejects a bad event body with 400 naming the field', async () => {
    const res = await s.pos('kiosk').post('/events', { customerId: 'ev-1', events: {} }).expect(400);
    expect(JSON.stringify(res.body.errors)).toContain('events');
    expect((await s.balance('ev-1')).availablePointsBalance).toBe(120);
  });

  it('uploads a batch of orders and reports its status: the duplicate orderId fails, the rest succeed', async () => {
    await s.seed('batch-1', 0);
    await s.seed('batch-2', 0);
    const orderDate = '2025-01-15T18:00:00.000Z';
    const up = await s
      .pos('cashier')
      .post('/orders/batch', {
        orders: [
          { customerId: 'batch-1', orderId: 'off-1', orderDate, totalPaid: 100 },
          { customerId: 'batch-2', orderId: 'off-2', orderDate, totalPaid: 40 },
          { customerId: 'batch-1', orderId: 'off-1', orderDate, totalPaid: 100 },
          { customerId: 'batch-new', orderId: 'off-3', orderDate, totalPaid: 25 },
        ],
      })
      .expect(202);
    expect(up.body).toEqual({ jobId: expect.any(Number), orders: 4 });

    let status: Record<string, unknown> = {};
    await waitFor('the batch job to complete', async () => {
      status = (await s.pos('manager').get(`/orders/batch/${up.body.jobId}`).expect(200)).body;
      return status.status === 'completed';
    });
    expect(status).toMatchObject({ jobId: up.body.jobId, status: 'completed', total: 4, processed: 4, succeeded: 3, failed: 1 });
    // In our words, by the upstream's code (9004, duplicate); its own text never reaches the till.
    expect(status.failures).toEqual([{ orderId: 'off-1', customerId: 'batch-1', reason: 'already recorded (duplicate order id)' }]);
    expect((await s.balance('batch-1')).availablePointsBalance).toBe(100);
    expect((await s.balance('batch-2')).availablePointsBalance).toBe(40);
    expect((await s.balance('batch-new')).availablePointsBalance).toBe(25);
  });

  it('refuses the batch routes to a kiosk (403) and an unknown job (404)', async () => {
    const kiosk = await s
      .pos('kiosk')
      .post('/orders/batch', { orders: [{ customerId: 'x', orderId: 'k-1', orderDate: '2025-01-15T18:00:00.000Z', totalPaid: 1 }] })
      .expect(403);
    expect(kiosk.body.code).toBe('role_not_allowed');
    const unknown = await s.pos('cashier').get('/orders/batch/987654').expect(404);
    expect(unknown.body.code).toBe('batch_job_not_found');
    const badId = await s.pos('cashier').get('/orders/batch/abc').expect(400);
    expect(JSON.stringify(badId.body)).toContain('job id');
  });

  it('deletes a customer as a manager (DELETE and POST .../delete); later lookups are 404', async () => {
    await s.seed('del-1', 100);
    await s.seed('del-2', 100);
    const del = await s.pos('manager').delete('/customers/del-1').expect(200);
    expect(del.body).toMatchObject({ customerId: 'del-1', deleted: true });
    // Nothing of theirs was kept here: the erasure found nothing to change.
    expect(Object.values(del.body.erased)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect((await s.pos('cashier').get('/customers/del-1').expect(404)).body.code).toBe('customer_not_found');

    const post = await s.pos('manager').post('/customers/del-2/delete').expect(200);
    expect(post.body).toMatchObject({ customerId: 'del-2', deleted: true });
    expect((await s.pos('cashier').get('/customers/del-2').expect(404)).body.code).toBe('customer_not_found');

    const again = await s.pos('manager').delete('/customers/del-1').expect(404);
    expect(again.body.code).toBe('customer_not_found');
  });

  it('refuses customer deletion to a cashier and a kiosk (403); the customer stays', async () => {
    await s.seed('del-3', 100);
    for (const res of [
      await s.pos('cashier').delete('/customers/del-3'),
      await s.pos('cashier').post('/customers/del-3/delete'),
      await s.pos('kiosk').delete('/customers/del-3'),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('role_not_allowed');
    }
    expect((await s.pos('cashier').get('/customers/del-3').expect(200)).body.points.available).toBe(100);
  });

  it('gives the hash to a kiosk and refuses it to a cashier and a manager (403)', async () => {
    await s.seed('hash-1', 300);
    for (const role of ['cashier', 'manager'] as const) {
      const res = await s.pos(role).get('/customers/hash-1/hash').expect(403);
      expect(res.body.code).toBe('role_not_allowed');
      expect(res.body.hash).toBeUndefined();
    }
    const res = await s.pos('kiosk').get('/customers/hash-1/hash').expect(200);
    const hash = await s.hash('hash-1');
    expect(res.body).toEqual({ customerId: 'hash-1', hash, qr: `hash-1:${hash}` });
    expect((await s.pos('kiosk').get('/customers/nobody-here/hash').expect(404)).body.code).toBe('customer_not_found');
    // The kiosk may not read the summary either: it shows the QR and nothing else.
    expect((await s.pos('kiosk').get('/customers/hash-1').expect(403)).body.code).toBe('role_not_allowed');

    // The kiosk's QR is what the till scans to redeem.
    const r = await s.pos('cashier').post('/redemptions', { qr: res.body.qr, points: 100 }).expect(201);
    expect(r.body).toMatchObject({ state: 'held', customerId: 'hash-1', points: 100 });
    expect((await s.balance('hash-1')).availablePointsBalance).toBe(200);
    // The hold rotated the hash: the kiosk shows a new one.
    const next = await s.pos('kiosk').get('/customers/hash-1/hash').expect(200);
    expect(next.body.hash).not.toBe(hash);
  });

  it('answers 401 to a missing or unknown token, without echoing it', async () => {
    const request = (await import('supertest')).default;
    const none = await request(s.bff.url).get('/pos/v1/customers/ev-1').expect(401);
    expect(none.body.status).toBe(401);
    const bogus = 'pos_bogus_token_value_1234567890abcdef';
    const wrong = await request(s.bff.url).get('/pos/v1/customers/ev-1').set('Authorization', `Bearer ${bogus}`).expect(401);
    expect(wrong.text).not.toContain(bogus);
    expect(s.logs.join('\n')).not.toContain(bogus);
  });

  it('shows what it can when the loyalty service fails, and says what failed', async () => {
    await s.seed('fault-1', 100);
    const faults = (rules: object[]) => s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
    try {
      await faults([{ operation: 'tierProgress', status: 500 }]);
      const partial = await s.pos('cashier').get('/customers/fault-1').expect(200);
      expect(partial.body).toMatchObject({
        customerId: 'fault-1',
        points: { available: 100 },
        tier: null,
        coupons: [expect.objectContaining({ code: 'WELCOME10' }), expect.anything()],
      });
      expect(partial.body.unavailable).toEqual(['tier']);

      await faults([
        { operation: 'balance', status: 503 },
        { operation: 'hold', drop: true },
      ]);
      const lookup = await s.pos('cashier').get('/customers/fault-1');
      expect(lookup.status).toBe(503);
      // Unavailable, or the circuit breaker already open after the failures: either way a clear 503.
      expect(lookup.body.code).toMatch(/^upstream_(unavailable|circuit_open)$/);
      const hold = await s.pos('cashier').post('/redemptions', { customerId: 'fault-1', points: 10 });
      expect([502, 503]).toContain(hold.status);
      expect(hold.body.code).toMatch(/^upstream_/);
    } finally {
      await s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
    }
    expect((await s.balance('fault-1')).availablePointsBalance).toBe(100);
  });

  it('keeps the secret key and every terminal token out of responses and logs', () => expectNoSecrets(s));
});

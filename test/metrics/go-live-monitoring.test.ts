import request from 'supertest';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { total } from './prometheus';

/**
 * Go-live checklist, post-launch monitoring: "review customer registration
 * success rate" (pos_customer_registrations_total by outcome) and "check for
 * duplicate order submissions" (the loyalty service's duplicate answers,
 * counted as loyalty_upstream_requests_total{outcome="duplicate"}), read from
 * GET /metrics of a BFF talking to the sandbox over real HTTP.
 */
describe('GET /metrics for registrations and duplicate sales (memory store)', () => {
  let s: Stack;
  const text = async () => (await request(s.bff.url).get('/metrics').expect(200)).text;
  const registrations = async (outcome: string) => total(await text(), 'pos_customer_registrations_total', { outcome }) ?? 0;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('counts registrations by outcome: created, updated, failed (an invalid body is not a registration)', async () => {
    expect(await registrations('created')).toBe(0);
    await s.pos('cashier').put('/customers/mon-1', { firstName: 'Mona' }).expect(200);
    expect([await registrations('created'), await registrations('updated')]).toEqual([1, 0]);
    await s.pos('cashier').put('/customers/mon-1', { lastName: 'Adel' }).expect(200);
    expect([await registrations('created'), await registrations('updated')]).toEqual([1, 1]);

    await s.pos('cashier').put('/customers/mon-2', { email: 'nope' }).expect(400);
    expect(await registrations('failed')).toBe(0);

    // Refused upstream: an account that merges channels by email needs the email.
    await s.setAccount({ channelMerging: 'email' });
    try {
      const refused = await s.pos('cashier').put('/customers/mon-3', { firstName: 'Nada' });
      expect([refused.status, refused.body.code]).toEqual([422, 'channel_field_required']);
    } finally {
      await s.setAccount({ channelMerging: 'none' });
    }
    expect([await registrations('created'), await registrations('updated'), await registrations('failed')]).toEqual([1, 1, 1]);
    // The customer id never appears in the metrics.
    expect(await text()).not.toContain('mon-1');
  });

  it('a second sale with the same paymentId is refused and counted as a duplicate answer of the payment operation', async () => {
    await s.seed('mon-dup', 0);
    const duplicates = async () => total(await text(), 'loyalty_upstream_requests_total', { operation: 'payment', outcome: 'duplicate' }) ?? 0;
    // A sale recorded at the loyalty service by something else (another system of the chain): the BFF has no record of it.
    await s.sandboxAdmin
      .post('/api/v4.0/integrations/payments')
      .set(SANDBOX_KEYS)
      .send({ customerId: 'mon-dup', paymentId: 'mon-sale-1', paymentDate: new Date().toISOString(), totalPaid: 10, totalAmount: 10 })
      .expect(200);
    expect(await duplicates()).toBe(0);
    // Another sale under the same id (another total): the upstream's duplicate answer, checked against its record.
    const again = await s.pos('cashier').post('/payments', { customerId: 'mon-dup', paymentId: 'mon-sale-1', totalPaid: 12 }).expect(409);
    expect(again.body.code).toBe('payment_id_taken');
    expect(await duplicates()).toBe(1);
  });
});

import { startStack, Stack } from '../support/e2e';
import { referenceViolations } from './request-validator';

/**
 * Every end-to-end stack (test/support/e2e.ts) checks on close that each
 * request its BFF sent upstream fits the published reference. This file
 * proves the check can fail, and drives one stack through a checkout with
 * OTP on (the coupon, preview, read-back and sign-up requests are checked by
 * the stacks of their own end-to-end tests).
 */

const P = '/api/v4.0/integrations';
const KEYS = { apikey: 'k', secretkey: 's' };

describe('the reference request check', () => {
  it('passes a request as the reference describes it', () => {
    expect(
      referenceViolations({
        method: 'POST',
        url: `${P}/transactions/hold`,
        headers: KEYS,
        body: JSON.stringify({ customerId: 'c', transactionTime: '2026-01-01T10:00:00Z', pointsToHold: 5 }),
      }),
    ).toEqual([]);
  });

  it.each([
    [
      'a null for a number',
      {
        method: 'POST',
        url: `${P}/transactions/hold`,
        headers: KEYS,
        body: JSON.stringify({ customerId: 'c', transactionTime: '2026-01-01T10:00:00Z', amountToHold: null }),
      },
      'amountToHold',
    ],
    [
      'an OTP rule id as text',
      { method: 'POST', url: `${P}/transactions/otp`, headers: KEYS, body: JSON.stringify({ customerId: 'c', ruleId: 'gold' }) },
      'ruleId',
    ],
    [
      'a date-time that is not one',
      {
        method: 'POST',
        url: `${P}/payments`,
        headers: KEYS,
        body: JSON.stringify({ customerId: 'c', paymentId: 'p', paymentDate: 'yesterday', totalPaid: 1 }),
      },
      'paymentDate',
    ],
    ['no secret key', { method: 'GET', url: `${P}/customers/c/balance`, headers: { apikey: 'k' }, body: '' }, 'missing keys'],
    ['an operation the reference lacks', { method: 'GET', url: `${P}/customers/c/points`, headers: KEYS, body: '' }, 'not an operation'],
  ])('flags %s', (_what, req, expected) => {
    expect(referenceViolations(req).join('\n')).toContain(expected);
  });
});

describe('what the BFF sends, with OTP on', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', account: { otpEnabled: true } });
  });
  afterAll(() => s.close());

  it('fits the reference for every operation it calls', async () => {
    await s.seed('sr-alice', 1000);
    const c = s.pos('cashier');
    const m = s.pos('manager');
    await c.get('/customers/sr-alice?lang=en').expect(200);
    const { qr } = (await s.pos('kiosk').get('/customers/sr-alice/hash').expect(200)).body;
    const asked = (await c.post('/redemptions', { qr, points: 100 }).expect(201)).body;
    expect(asked.state).toBe('otp_required');
    const held = (await c.post(`/redemptions/${asked.id}/otp`, { otp: await s.otp('sr-alice') }).expect(200)).body;
    expect(held.state).toBe('held');
    await c
      .post('/payments', {
        customerId: 'sr-alice',
        paymentId: 'sr-sale-1',
        totalPaid: 90,
        totalAmount: 100,
        redemptionId: held.id,
        returnWindowDays: 0,
        lines: [
          {
            serviceId: 'sku-1',
            sku: 'KET-1',
            name: 'Kettle',
            provider: 'Acme',
            quantity: 2,
            amount: 100,
            tax: 0,
            discount: 5,
            category: ['kitchen'],
            tags: ['gift'],
            extra: { colour: 'red' },
          },
        ],
      })
      .expect(201);
    await m
      .post('/refunds', {
        customerId: 'sr-alice',
        refundId: 'sr-ref-1',
        paymentId: 'sr-sale-1',
        lines: [
          {
            serviceId: 'sku-1',
            sku: 'KET-1',
            name: 'Kettle',
            provider: 'Acme',
            quantity: 1,
            amount: 20,
            tax: 1,
            discount: 0,
            category: ['kitchen'],
            tags: ['gift'],
            extra: { colour: 'red' },
          },
        ],
      })
      .expect(201);
    await c.post('/payments', { customerId: 'sr-alice', paymentId: 'sr-sale-2', totalPaid: 10 }).expect(201);
    await m.post('/payments/sr-sale-2/void', { customerId: 'sr-alice' }).expect(200);
    const other = (await c.post('/redemptions', { customerId: 'sr-alice', amount: 2 }).expect(201)).body;
    const otherHeld = (await c.post(`/redemptions/${other.id}/otp`, { otp: await s.otp('sr-alice') }).expect(200)).body;
    await c.post(`/redemptions/${otherHeld.id}/void`).expect(200);
    await c.post('/events', { customerId: 'sr-alice', events: { place_order: { total: 5, note: null } } }).expect(200);
    const job = (
      await c
        .post('/orders/batch', { orders: [{ customerId: 'sr-alice', orderId: 'sr-o-1', orderDate: '2026-01-15T18:00:00.000Z', totalPaid: 20 }] })
        .expect(202)
    ).body;
    await c.get(`/orders/batch/${job.jobId}`).expect(200);
    // An OTP for a rule: the reference types its rule id as an integer (the sandbox's rules are names, so it refuses this one).
    const byRule = await c.post('/redemptions', { customerId: 'sr-alice', ruleId: '10' });
    expect(byRule.status).toBeGreaterThanOrEqual(400);
    expect(byRule.status).toBeLessThan(500);
    // Another customer: sr-alice's batch sale is still being recorded, and a customer with work in flight is not erased.
    await s.seed('sr-bob', 0);
    await m.delete('/customers/sr-bob').expect(200);
    expect(s.upstreamViolations()).toEqual([]);
  });
});

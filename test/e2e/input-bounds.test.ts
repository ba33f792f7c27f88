import { readFileSync, writeFileSync } from 'node:fs';
import { startStack, Stack } from '../support/e2e';
import { heldRedemption, waitFor } from './helpers';

/**
 * What a till or kiosk may send on the money path: kiosk events from the
 * store's allowlist only, no amount finer than the smallest currency unit, no
 * control characters in any id. Each refusal is a 4xx naming the field, and
 * nothing reaches the loyalty service.
 */
describe('input bounds on the money path (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { KIOSK_EVENTS: 'store_visit,review_written' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a kiosk may send only the events its store allows; a till any', async () => {
    await s.seed('ib-ann', 100);
    const refused = await s
      .pos('kiosk')
      .post('/events', { customerId: 'ib-ann', events: { store_visit: {}, place_order: { basket: 3 } } })
      .expect(403);
    expect(refused.body).toMatchObject({ code: 'event_not_allowed', errors: [{ path: 'events.place_order' }] });
    expect((await s.balance('ib-ann')).availablePointsBalance).toBe(100);
    await s
      .pos('kiosk')
      .post('/events', { customerId: 'ib-ann', events: { store_visit: {}, review_written: { stars: 5 } } })
      .expect(200);
    const before = (await s.balance('ib-ann')).availablePointsBalance;
    await s
      .pos('cashier')
      .post('/events', { customerId: 'ib-ann', events: { place_order: {} } })
      .expect(200);
    expect((await s.balance('ib-ann')).availablePointsBalance).toBe(before + 10);
  });

  it("a store's own list in the terminals file replaces the setting, for that store's kiosks only", async () => {
    const file = JSON.parse(readFileSync(s.terminalsFile, 'utf8'));
    file.stores.find((st: { id: string }) => st.id === 'store-002').kioskEvents = ['app_download'];
    writeFileSync(s.terminalsFile, JSON.stringify(file, null, 2));
    const other = () => s.pos('otherKiosk').post('/events', { customerId: 'ib-ann', events: { app_download: {} } });
    await waitFor('the terminals file to be reloaded', async () => (await other()).status === 200);
    expect((await s.pos('otherKiosk').post('/events', { customerId: 'ib-ann', events: { store_visit: {} } })).status).toBe(403);
    expect((await s.pos('kiosk').post('/events', { customerId: 'ib-ann', events: { app_download: {} } })).status).toBe(403);
  });

  it('refuses an amount below the smallest currency unit, naming the field', async () => {
    await s.seed('ib-bob', 1000);
    const hash = await s.hash('ib-bob');
    const tiny = await s.pos('cashier').post('/redemptions', { customerId: 'ib-bob', hash, amount: 1e-7 }).expect(400);
    expect(tiny.body.errors).toContainEqual({ path: 'amount', message: expect.stringMatching(/smallest currency unit/) });
    const fine = await s.pos('cashier').post('/payments', { customerId: 'ib-bob', paymentId: 'ib-1', totalPaid: 10.0000001 }).expect(400);
    expect(fine.body.errors).toEqual([expect.objectContaining({ path: 'totalPaid' })]);
    const refund = await s.pos('manager').post('/refunds', { customerId: 'ib-bob', refundId: 'ib-r', paymentId: 'ib-x', amount: 0.0004 }).expect(400);
    expect(refund.body.errors.map((e: { path: string }) => e.path)).toContain('amount');
    expect(refund.body.errors.every((e: { path: string }) => e.path === 'amount')).toBe(true);
    expect((await s.balance('ib-bob')).availablePointsBalance).toBe(1000);
    // The coupon and preview routes take money the same way.
    const basket = await s
      .pos('cashier')
      .post('/coupons/validate', { customerId: 'ib-bob', codes: ['WELCOME10'], basketTotal: 1e-7 })
      .expect(400);
    expect(basket.body.errors).toEqual([expect.objectContaining({ path: 'basketTotal' })]);
    const preview = await s
      .pos('cashier')
      .post('/earn-preview', { customerId: 'ib-bob', totalPaid: 10.0000001, lines: [{ serviceId: 'sku-1', amount: 10 }] })
      .expect(400);
    expect(preview.body.errors).toEqual([expect.objectContaining({ path: 'totalPaid' })]);
    // Three decimals are a real unit somewhere (KWD): accepted.
    await s.pos('cashier').post('/payments', { customerId: 'ib-bob', paymentId: 'ib-2', totalPaid: 10.125 }).expect(201);
  });

  it.each([
    ['paymentId', '/payments', { customerId: 'ib-cy', paymentId: 'sale\u0000-1', totalPaid: 10 }],
    ['customerId', '/payments', { customerId: 'ib\u001bcy', paymentId: 'sale-ib-c1', totalPaid: 10 }],
    ['refundId', '/refunds', { customerId: 'ib-cy', refundId: 'r\nfake log line', paymentId: 'sale-ib-c2', amount: 1 }],
    ['lines.0.serviceId', '/payments', { customerId: 'ib-cy', paymentId: 'sale-ib-c3', totalPaid: 10, lines: [{ serviceId: 'sku\u202e1', amount: 10 }] }],
    ['eventId', '/events', { customerId: 'ib-cy', eventId: 'ev\u0007', events: { store_visit: {} } }],
    ['couponCodes.0', '/payments', { customerId: 'ib-cy', paymentId: 'sale-ib-c4', totalPaid: 10, couponCodes: ['SAVE\u000010'] }],
    ['codes.0', '/coupons/validate', { customerId: 'ib-cy', codes: ['SAVE\u200b10'], basketTotal: 10 }],
    ['customerId', '/coupon-locks', { customerId: 'ib\u0000cy', codes: ['WELCOME10'], basketTotal: 10 }],
    ['customerId', '/earn-preview', { customerId: 'ib\u202ecy', totalPaid: 10, lines: [{ serviceId: 'sku-1', amount: 10 }] }],
  ])('refuses a control character in %s with 400 naming it', async (field, path, body) => {
    const res = await s.pos('manager').post(path, body).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: field, message: expect.stringMatching(/control characters/) })]);
  });

  it('refuses a control character in a path id and in a QR code', async () => {
    const r = await heldRedemption(s, 'ib-dee', 10, { seed: 100 });
    expect(r.state).toBe('held');
    const void_ = await s.pos('manager').post('/payments/sale%0A1/void', { customerId: 'ib-dee' }).expect(400);
    expect(void_.body.errors).toEqual([expect.objectContaining({ path: 'paymentId' })]);
    const qr = await s.pos('cashier').post('/redemptions', { qr: 'ib\u0000dee123456', points: 5 }).expect(400);
    expect(qr.body.errors).toEqual([expect.objectContaining({ path: 'qr' })]);
  });
});

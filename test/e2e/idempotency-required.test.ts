import request from 'supertest';
import { startStack, Stack } from '../support/e2e';
import { heldRedemption } from './helpers';

/**
 * The writes that create something the till has no id of its own for (a
 * redemption, its OTP step, a coupon lock) refuse to run without an
 * Idempotency-Key: a till retrying after a lost answer would otherwise hold
 * points or lock coupons twice. Writes with the till's own id (a payment) keep it optional.
 */
describe('Idempotency-Key where a retry could do something twice', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  const bare = (path: string) =>
    request(s.bffs[0].url)
      .post(`/pos/v1${path}`)
      .set({ Authorization: `Bearer ${s.tokens.cashier}` });
  const heldPoints = async (customerId: string) =>
    ((await s.pos('cashier').get(`/customers/${customerId}`).expect(200)).body as { points: { held: number } }).points.held;

  it('starting a redemption without a key is 400 idempotency_key_required, and no points are held', async () => {
    await s.seed('key-start', 500);
    const hash = await s.hash('key-start');
    const res = await bare('/redemptions').send({ customerId: 'key-start', hash, points: 100 }).expect(400);
    expect(res.body).toMatchObject({ status: 400, code: 'idempotency_key_required' });
    expect(res.body.detail).toContain('Idempotency-Key');
    expect(await heldPoints('key-start')).toBe(0);
  });

  it('a retry with the same key answers the first redemption: one hold, not two', async () => {
    await s.seed('key-retry', 500);
    const hash = await s.hash('key-retry');
    const send = () => bare('/redemptions').set('Idempotency-Key', 'till-7-attempt-1').send({ customerId: 'key-retry', hash, points: 100 });
    const first = await send().expect(201);
    const again = await send().expect(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await heldPoints('key-retry')).toBe(100);
  });

  it('the OTP step without a key is 400 and leaves the redemption as it was', async () => {
    const { id } = await heldRedemption(s, 'key-otp', 100, { seed: 500 });
    const res = await bare(`/redemptions/${id}/otp`).send({ otp: '123456' }).expect(400);
    expect(res.body.code).toBe('idempotency_key_required');
    expect((await s.pos('cashier').get(`/redemptions/${id}`).expect(200)).body.state).toBe('held');
  });

  it('locking coupons without a key is 400, and the coupon can still be locked with one', async () => {
    await s.seed('key-lock', 0);
    const body = { customerId: 'key-lock', codes: ['WELCOME10'], basketTotal: 50 };
    expect((await bare('/coupon-locks').send(body).expect(400)).body.code).toBe('idempotency_key_required');
    await bare('/coupon-locks').set('Idempotency-Key', 'lock-1').send(body).expect(201);
  });

  it('a payment keeps the key optional: its paymentId already makes a retry safe', async () => {
    await s.seed('key-pay', 0);
    const sale = { customerId: 'key-pay', paymentId: 'key-pay-sale-1', totalPaid: 20 };
    await bare('/payments').send(sale).expect(201);
    expect((await bare('/payments').send(sale).expect(201)).body.status).toBe('already_recorded');
  });

  it('the OpenAPI document marks the key required on exactly those three writes', async () => {
    const doc = (await request(s.bffs[0].url).get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { operationId: string; parameters?: { $ref?: string }[] }>>;
    };
    const requiring = Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .filter((op) => op.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKeyRequired'))
      .map((op) => op.operationId)
      .sort();
    expect(requiring).toEqual(['lockCoupons', 'startRedemption', 'submitRedemptionOtp']);
  });
});

import { startStack, Stack } from '../support/e2e';

/**
 * The customer's current hash is their proof of presence. A kiosk that reads
 * it for any typed customer id would mint that proof for anyone, so in
 * production the hash route is off unless KIOSK_QR=true says the store's
 * kiosks establish who the customer is themselves.
 */
describe('a kiosk cannot mint proof of presence in production (default settings, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { NODE_ENV: 'production', REDEMPTION_PROOF: 'hash_or_otp' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("refuses the customer's hash to a kiosk, so a till cannot spend the customer's points with it", async () => {
    await s.seed('pk-victim', 800);
    const res = await s.pos('kiosk').get('/customers/pk-victim/hash');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'kiosk_qr_off' });
    expect(JSON.stringify(res.body)).not.toContain(await s.hash('pk-victim'));
    // Without it, a typed id is no proof.
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'pk-victim', points: 800 }).expect(422)).body.code).toBe('proof_required');
    expect(await s.balance('pk-victim')).toMatchObject({ availablePointsBalance: 800, heldPoints: 0 });
  });
});

describe('KIOSK_QR=true: the store vouches for its kiosks (Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { NODE_ENV: 'production', REDEMPTION_PROOF: 'hash_or_otp', KIOSK_QR: 'true' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a kiosk shows the QR code, and a till holds points with it', async () => {
    await s.seed('pk-member', 800);
    const shown = await s.pos('kiosk').get('/customers/pk-member/hash').expect(200);
    expect(shown.body).toMatchObject({ customerId: 'pk-member', qr: `pk-member:${await s.hash('pk-member')}` });
    const held = await s.pos('cashier').post('/redemptions', { qr: shown.body.qr, points: 300 }).expect(201);
    expect(held.body).toMatchObject({ state: 'held', points: 300 });
    // Tills still cannot read a hash themselves.
    expect((await s.pos('cashier').get('/customers/pk-member/hash').expect(403)).body.code).toBe('role_not_allowed');
  });
});

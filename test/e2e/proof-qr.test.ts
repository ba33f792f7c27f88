import { startStack, Stack } from '../support/e2e';

/** Where a QR code splits decides whose points are held (memory and Redis stores alike). */
describe('QR codes split at the last separator (Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { REDEMPTION_PROOF: 'hash_or_otp' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('reads a hash that ends in six digits as the whole hash of the customer before the colon', async () => {
    await s.seed('pq-1', 500);
    // Read as customer "pq-1:abc" with hash "123456", this would be 404 customer_not_found.
    const res = await s.pos('cashier').post('/redemptions', { qr: 'pq-1:abc123456', points: 100 }).expect(422);
    expect(res.body.code).toBe('hash_invalid');
    expect((await s.balance('pq-1')).availablePointsBalance).toBe(500);
  });

  it('holds the points of a customer whose id holds a colon and digits', async () => {
    await s.seed('pq:2024', 500);
    const res = await s
      .pos('cashier')
      .post('/redemptions', { qr: `pq:2024:${await s.hash('pq:2024')}`, points: 100 })
      .expect(201);
    expect(res.body).toMatchObject({ state: 'held', customerId: 'pq:2024', points: 100 });
    expect((await s.balance('pq:2024')).availablePointsBalance).toBe(400);
  });
});

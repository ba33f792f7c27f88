import { startStack, Stack } from '../support/e2e';

/** Refusals each route lists for itself, produced where no other test does. */
describe('refusals of a start with a code, and of a receipt read', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', account: { otpEnabled: true } });
  });
  afterAll(() => s?.close());

  it('a start carrying a wrong code is 422 otp_invalid, nothing held', async () => {
    await s.seed('src-1', 300);
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'src-1', hash: await s.hash('src-1'), points: 50, otp: '000000' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('otp_invalid');
    expect(await s.balance('src-1')).toMatchObject({ availablePointsBalance: 300, heldPoints: 0 });
  });

  it('the receipt of a sale this store never recorded is 404 payment_not_found', async () => {
    const res = await s.pos('cashier').get('/payments/src-no-such-sale/receipt');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('payment_not_found');
  });
});

import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

const coupons = [
  {
    code: 'WELCOME10',
    name: 'Welcome 10 EGP',
    value: 10,
    startDate: '2024-01-01T00:00:00Z',
    expiryDate: '2099-12-31T23:59:59Z',
    usageLimit: 0,
    limitPerCustomer: 1,
  },
];

/**
 * The published interface has no way to give a used coupon back (no coupon
 * in the refund request or answer, no operation that returns a burned one),
 * so voiding a sale leaves its coupon used: the void's answer and receipt say
 * so, instead of letting the till believe the customer has it again.
 */
describe.each(['memory', 'redis'] as const)('a sale void and the coupons the sale burned (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { coupons } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const welcome = async (customerId: string) =>
    (await s.sandboxAdmin.get(`/api/v4.0/integrations/customers/${customerId}/coupons`).set(SANDBOX_KEYS).expect(200)).body.coupons.find(
      (c: { code: string }) => c.code === 'WELCOME10',
    );

  it('the void names the coupon it did not give back, and its receipt prints it; the coupon is indeed still used', async () => {
    const id = `vc-${store}`;
    await s.seed(id, 0);
    const lock = await s
      .pos('cashier')
      .post('/coupon-locks', { customerId: id, codes: ['WELCOME10'], basketTotal: 50 })
      .expect(201);
    await s
      .pos('cashier')
      .post('/payments?receipt=none', { customerId: id, paymentId: `${id}-sale`, totalPaid: 40, couponLockId: lock.body.id })
      .expect(201);
    const voided = await s.pos('manager').post(`/payments/${id}-sale/void`, { customerId: id }).expect(200);
    expect(voided.body).toMatchObject({ status: 'refunded', couponsNotReturned: ['WELCOME10'] });
    expect(voided.body.receipt.lines).toContain(`Coupon WELCOME10${' '.repeat(40 - 16 - 12)}not returned`);
    expect(await welcome(id)).toMatchObject({ customerUsedCount: 1, isAvailableToUse: false });
  });

  it('without a receipt too; a sale without coupons: [] and no coupon line', async () => {
    const id = `vc2-${store}`;
    await s.seed(id, 0);
    const lock = await s
      .pos('cashier')
      .post('/coupon-locks', { customerId: id, codes: ['WELCOME10'], basketTotal: 50 })
      .expect(201);
    await s
      .pos('cashier')
      .post('/payments?receipt=none', { customerId: id, paymentId: `${id}-sale`, totalPaid: 40, couponLockId: lock.body.id })
      .expect(201);
    const bare = await s.pos('manager').post(`/payments/${id}-sale/void?receipt=none`, { customerId: id }).expect(200);
    expect(bare.body).toMatchObject({ couponsNotReturned: ['WELCOME10'], receipt: null });

    await s
      .pos('cashier')
      .post('/payments?receipt=none', { customerId: id, paymentId: `${id}-plain`, totalPaid: 40 })
      .expect(201);
    const plain = await s.pos('manager').post(`/payments/${id}-plain/void`, { customerId: id }).expect(200);
    expect(plain.body.couponsNotReturned).toEqual([]);
    expect(plain.body.receipt.lines.join('\n')).not.toContain('Coupon');
  });

  it('a sale this middleware never took: not known (null), never []', async () => {
    const id = `vc3-${store}`;
    await s.seed(id, 0);
    // Paid straight at the loyalty service, as before the middleware was deployed, naming the store's branch (its owner).
    const merchant = { uniqueId: 'm-1', name: 'Test Retail', branch: { uniqueId: 'branch-001', name: 'Branch 001' } };
    await s.sandboxAdmin
      .post('/api/v4.0/integrations/payments')
      .set(SANDBOX_KEYS)
      .send({ customerId: id, paymentId: `${id}-old`, paymentDate: new Date().toISOString(), totalPaid: 40, merchant })
      .expect(200);
    const voided = await s.pos('manager').post(`/payments/${id}-old/void`, { customerId: id }).expect(200);
    expect(voided.body.couponsNotReturned).toBeNull();
  });
});

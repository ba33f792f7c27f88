import { SALE_OPERATION, Stack, startStack } from '../support/e2e';
import { eventually, setFaults } from '../pos/outbox/stack-helpers';
import { heldRedemption } from './helpers';

/**
 * Every money action in the windows of the one claim -> act -> settle step:
 * refused upstream (the claim is freed: the same action can go through), and
 * unknown (the claim is kept, the till told to send the same request again,
 * never "nothing was done"). README "Guarantees" names these tests.
 */
describe.each(['memory', 'redis'] as const)('money actions refused or unknown upstream (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store,
      env: { LOYALTY_RETRIES: '0', BREAKER_FAILURE_THRESHOLD: '10000', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0', REDEMPTION_PROOF: 'none' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });
  const refusedOnce = (operation: string) => setFaults(s, [{ operation, status: 422, times: 1 }]);
  const failsOnce = (operation: string) => setFaults(s, [{ operation, status: 500, times: 1 }]);
  const lockFor = async (customerId: string) =>
    (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body.id as string;
  const lockState = async (id: string) => (await s.pos('cashier').get(`/coupon-locks/${id}`).expect(200)).body.state;

  it('void of a redemption, refused: the redemption is held again and the void goes through after', async () => {
    const r = await heldRedemption(s, `wv-r-${store}`, 100, { seed: 300 });
    await refusedOnce('holdCancel');
    expect((await s.pos('cashier').post(`/redemptions/${r.id}/void`)).status).toBe(422);
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body.state).toBe('held');
    expect((await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200)).body.state).toBe('voided');
  });

  it('coupon release, refused: the lock is locked again; unknown: it stays releasing and the same release settles it', async () => {
    const customerId = `wc-${store}`;
    await s.seed(customerId, 0);
    const id = await lockFor(customerId);
    await refusedOnce('couponRelease');
    expect((await s.pos('cashier').post(`/coupon-locks/${id}/release`)).status).toBe(422);
    expect(await lockState(id)).toBe('locked');
    await failsOnce('couponRelease');
    const unknown = await s.pos('cashier').post(`/coupon-locks/${id}/release`).expect(503);
    expect(unknown.body.code).toBe('retry_same_request');
    expect(await lockState(id)).toBe('releasing');
    // A payment cannot take a lock being released.
    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `wc-sale-${store}`, totalPaid: 40, totalAmount: 50, couponLockId: id })
      .expect(409);
    expect(pay.body.code).toBe('coupon_lock_not_active');
    expect((await s.pos('cashier').post(`/coupon-locks/${id}/release`).expect(200)).body.state).toBe('released');
  });

  it('payment with a coupon lock, refused: the lock is locked again and the sale goes through after', async () => {
    const customerId = `wp-${store}`;
    await s.seed(customerId, 0);
    const id = await lockFor(customerId);
    const sale = { customerId, paymentId: `wp-sale-${store}`, totalPaid: 40, totalAmount: 50, couponLockId: id };
    await refusedOnce(SALE_OPERATION);
    expect((await s.pos('cashier').post('/payments', sale)).status).toBe(422);
    expect(await lockState(id)).toBe('locked');
    expect((await s.pos('cashier').post('/payments', sale).expect(201)).body.couponLock.state).toBe('used');
  });

  it('sale void, refused: the sale is recorded again and can be voided after; refund, refused: its id stays free', async () => {
    const customerId = `ws-${store}`;
    await s.seed(customerId, 0);
    await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `ws-sale-${store}`, totalPaid: 80 })
      .expect(201);
    await refusedOnce('refund');
    expect((await s.pos('manager').post(`/payments/ws-sale-${store}/void`, { customerId })).status).toBe(422);
    await refusedOnce('refund');
    expect((await s.pos('manager').post('/refunds', { customerId, refundId: `ws-r-${store}`, paymentId: `ws-sale-${store}`, amount: 10 })).status).toBe(422);
    await s
      .pos('manager')
      .post('/refunds', { customerId, refundId: `ws-r-${store}`, paymentId: `ws-sale-${store}`, amount: 10 })
      .expect(201);
    await s.pos('manager').post(`/payments/ws-sale-${store}/void`, { customerId }).expect(200);
    expect((await s.balance(customerId)).availablePointsBalance).toBe(0);
  });

  it('OTP step, refused (a wrong code): waiting for a code again; unknown: not held, the redemption given up and any hold it placed lapses', async () => {
    await s.setAccount({ otpEnabled: true });
    try {
      const customerId = `wo-${store}`;
      await s.seed(customerId, 500);
      const start = await s
        .pos('cashier')
        .post('/redemptions', { customerId, hash: await s.hash(customerId), points: 100 })
        .expect(201);
      expect(start.body.state).toBe('otp_required');
      const wrong = await s.pos('cashier').post(`/redemptions/${start.body.id}/otp`, { otp: '000000' });
      expect(wrong.body.code).toBe('otp_invalid');
      expect((await s.pos('cashier').get(`/redemptions/${start.body.id}`).expect(200)).body.state).toBe('otp_required');
      await failsOnce('hold');
      const unknown = await s
        .pos('cashier')
        .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp(customerId) })
        .expect(503);
      expect(unknown.body.code).toBe('retry_same_request');
      const ended = await eventually('the unknown OTP step to be given up', async () => {
        const state = (await s.pos('cashier').get(`/redemptions/${start.body.id}`).expect(200)).body.state;
        return state !== 'confirming' ? state : undefined;
      });
      expect(ended).toBe('expired');
    } finally {
      await s.setAccount({ otpEnabled: false });
    }
  });
});

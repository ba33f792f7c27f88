import { SALE_OPERATION, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { setFaults } from '../pos/outbox/stack-helpers';
import { waitFor } from './helpers';

const coupons = [
  { code: 'WELCOME10', name: 'Welcome 10 EGP', value: 10, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z', limitPerCustomer: 1 },
];
const PAST_THE_LOCK_MS = 10 * 60_000 + 1000;

/**
 * A payment holding a coupon lock whose outcome the BFF never learned (a 5xx,
 * a lost answer, or the BFF stopped): once the upstream lock has ended, the
 * sweeper asks the upstream about that payment and records the lock `used`
 * or `abandoned`, instead of leaving it `locked` and out of every sweep.
 */
describe.each(['memory', 'redis'] as const)('settling a coupon lock a payment held (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { coupons }, env: { LOYALTY_RETRIES: '0', LOYALTY_TIMEOUT_MS: '1000', BREAKER_FAILURE_THRESHOLD: '10000' } });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(() => setFaults(s, []));

  const faults = (rules: object[]) => setFaults(s, rules);
  const lockFor = async (customerId: string) => {
    await s.seed(customerId, 0);
    return (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body.id as string;
  };
  const lockState = async (id: string) => (await s.pos('cashier').get(`/coupon-locks/${id}`).expect(200)).body;
  const sweep = () => Promise.all(s.bffs.map((b) => b.couponLockSweeper.sweepOnce()));

  it("a payment that never reached the upstream: abandoned, and the coupon is the customer's again", async () => {
    const id = await lockFor(`cls-lost-${store}`);
    await faults([{ operation: SALE_OPERATION, status: 500, times: 1 }]);
    const sale = { customerId: `cls-lost-${store}`, paymentId: `cls-lost-sale-${store}`, totalPaid: 40, couponLockId: id };
    expect((await s.pos('cashier').post('/payments', sale)).status).toBeGreaterThanOrEqual(500);
    // Unknown outcome: the claim is kept, through the release time.
    expect(await lockState(id)).toMatchObject({ state: 'paying', paymentId: sale.paymentId });
    await s.advance(PAST_THE_LOCK_MS);
    await sweep();
    expect(await lockState(id)).toMatchObject({ state: 'abandoned', paymentId: sale.paymentId });
    expect(s.logs.some((l) => l.includes('"msg":"coupon lock settled from the upstream"') && l.includes('"recorded":"abandoned"'))).toBe(true);
    // The upstream lock lapsed: the coupon can be locked for another sale.
    await s
      .pos('cashier')
      .post('/coupon-locks', { customerId: sale.customerId, codes: ['WELCOME10'], basketTotal: 50 })
      .expect(201);
  });

  it('a payment whose answer was lost: used, and the same sale sent again answers already recorded', async () => {
    const customerId = `cls-paid-${store}`;
    const id = await lockFor(customerId);
    // Slower than the BFF waits: the BFF gives up, the sandbox records the payment after.
    await faults([{ operation: SALE_OPERATION, latencyMs: 1500, times: 1 }]);
    const sale = { customerId, paymentId: `cls-paid-sale-${store}`, totalPaid: 40, couponLockId: id };
    expect((await s.pos('cashier').post('/payments', sale)).status).toBeGreaterThanOrEqual(500);
    await waitFor(
      'the sandbox to record the payment',
      async () => (await s.sandboxAdmin.get(`/api/v4.0/integrations/orders/${sale.paymentId}/transactions`).set(SANDBOX_KEYS)).status === 200,
    );
    // The claim is kept: still paying, or already settled as used by the repair queue on a slow machine.
    expect(['paying', 'used']).toContain((await lockState(id)).state);
    await s.advance(PAST_THE_LOCK_MS);
    await sweep();
    expect(await lockState(id)).toMatchObject({ state: 'used', paymentId: sale.paymentId });
    const again = await s.pos('cashier').post('/payments', sale).expect(201);
    expect(again.body).toMatchObject({ status: 'already_recorded', couponLock: { id, state: 'used' } });
  });
});

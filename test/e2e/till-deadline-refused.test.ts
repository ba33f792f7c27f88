import { randomUUID } from 'node:crypto';
import { isSaleSend, SALE_OPERATION, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * A request refused at its till's deadline (503 till_deadline_reached: nothing
 * sent) still unwinds after the 503: it may hold claims (a redemption, the
 * sale id) until then. Its Idempotency-Key stays claimed meanwhile, so a
 * same-key retry never overlaps it.
 */
describe('a payment refused at the till deadline, and its same-key retry', () => {
  let s: Stack;

  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { LOYALTY_TIMEOUT_MS: '15000' } });
  });
  afterAll(() => s.close());
  afterEach(() => s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200));

  it('the retry waits for the refused run to free its claims, then pays once: the redemption ends redeemed', async () => {
    await s.seed('dlr-pay', 1000);
    const held = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'dlr-pay', hash: await s.hash('dlr-pay'), points: 300 })
      .expect(201);
    const body = { customerId: 'dlr-pay', paymentId: 'dlr-sale-1', totalPaid: 70, totalAmount: 100, redemptionId: held.body.id };
    const key = randomUUID();
    const paymentsSent = () => s.sentUpstream().filter((e) => isSaleSend(e) && JSON.stringify(e.body ?? '').includes('dlr-sale-1'));

    // The first run stalls after taking its claims, right before its payment goes out, until the test lets it go.
    const loyalty = s.bff.deps.loyalty;
    // The client method the sale goes out by in this run (a payment, or a tracked order in the order-mode run).
    const sends = loyalty as unknown as Record<typeof SALE_OPERATION, (...args: unknown[]) => Promise<unknown>>;
    const payment = sends[SALE_OPERATION].bind(loyalty);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let stalled = false;
    sends[SALE_OPERATION] = async (...args: Parameters<typeof payment>) => {
      if (!stalled) {
        stalled = true;
        await gate;
      }
      return payment(...args);
    };
    // The retry waits while the key is held: seen as a `running` claim of the key.
    const idempotency = s.bff.idempotency;
    const begin = idempotency.begin.bind(idempotency);
    let retryWaited = false;
    idempotency.begin = async (...args: Parameters<typeof begin>) => {
      const found = await begin(...args);
      if (args[0].key === key && found.kind === 'running') retryWaited = true;
      return found;
    };
    // The retry's payment answers slowly, so a refused run unwinding meanwhile would overlap it.
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: SALE_OPERATION, latencyMs: 1500 }] })
      .expect(200);

    try {
      const first = await s.pos('cashier').post('/payments', body).set('Idempotency-Key', key).set('Prefer', 'wait=1');
      expect(first.status).toBe(503);
      expect(first.body.code).toBe('till_deadline_reached');

      const retry = s
        .pos('cashier')
        .post('/payments', body)
        .set('Idempotency-Key', key)
        .set('Prefer', 'wait=20')
        .then((r) => r);
      // The refused run goes on once the retry either waits for the key, or (the fault) sent its own payment.
      await waitFor('the retry waiting, or its payment sent', async () => retryWaited || paymentsSent().length > 0, 30_000);
      release();
      const second = await retry;
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ paymentId: 'dlr-sale-1', status: 'recorded' });
    } finally {
      release();
      sends[SALE_OPERATION] = payment;
      idempotency.begin = begin;
    }
    expect(paymentsSent()).toHaveLength(1);
    const redemption = await s.pos('cashier').get(`/redemptions/${held.body.id}`).expect(200);
    expect(redemption.body.state).toBe('redeemed');
  }, 60_000);
});

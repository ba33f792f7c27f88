import { SALE_OPERATION, Stack, startStack } from '../support/e2e';
import { setFaults } from '../pos/outbox/stack-helpers';
import { heldRedemption } from './helpers';

/**
 * A held redemption is taken by exactly one of a payment and a void (they
 * claim it by the same rule in one compare-and-set), and a payment whose
 * outcome is unknown keeps its claim against every other payment id.
 */
describe.each(['memory', 'redis'] as const)('claims on a redemption (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store,
      env: { LOYALTY_RETRIES: '0', LOYALTY_TIMEOUT_MS: '1000', BREAKER_FAILURE_THRESHOLD: '10000', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });

  it('a void and a payment racing for one redemption: exactly one wins, the loser names its outcome, both match the end state', async () => {
    const PAIRS = 16;
    const holds = await Promise.all(Array.from({ length: PAIRS }, (_, i) => heldRedemption(s, `race-${store}-${i}`, 100, { seed: 1000 })));
    const results = await Promise.all(
      holds.map(async (h, i) => {
        const customerId = `race-${store}-${i}`;
        const paymentId = `race-sale-${store}-${i}`;
        // Alternate which request leaves first, so both orders are tried.
        const pay = () => s.pos('cashier').post('/payments', { customerId, paymentId, totalPaid: 10, redemptionId: h.id });
        const voids = () => s.pos('cashier').post(`/redemptions/${h.id}/void`);
        const [p, v] = i % 2 ? await Promise.all([pay(), voids()]) : (await Promise.all([voids(), pay()])).reverse();
        const final = (await s.pos('cashier').get(`/redemptions/${h.id}`).expect(200)).body.state;
        return { customerId, paymentId, p, v, final, balance: await s.balance(customerId) };
      }),
    );
    const wins = { payment: 0, void: 0 };
    for (const { paymentId, p, v, final, balance } of results) {
      expect([p.status < 300, v.status < 300].filter(Boolean)).toHaveLength(1);
      if (p.status === 201) {
        wins.payment += 1;
        expect(p.body).toMatchObject({ status: 'recorded', pointsRedeemed: 100, redemption: { state: 'redeemed' } });
        expect(v.status).toBe(409);
        expect(v.body).toMatchObject({ state: 'redeemed', paymentId });
        expect(final).toBe('redeemed');
        expect(balance).toMatchObject({ availablePointsBalance: 1000 - 100 + 10, heldPoints: 0 });
      } else {
        wins.void += 1;
        expect(v.status).toBe(200);
        expect(v.body.state).toBe('voided');
        expect(p.status).toBe(409);
        expect(p.body).toMatchObject({ code: 'redemption_not_held', state: 'voided' });
        expect(final).toBe('voided');
        expect(balance).toMatchObject({ availablePointsBalance: 1000, heldPoints: 0 });
      }
    }
    console.log(`void/payment race (${store}): ${wins.payment} payments won, ${wins.void} voids won of ${PAIRS}`);
  });

  it.each<[string, string, object]>([
    ['a 5xx', '5xx', { operation: SALE_OPERATION, status: 500, times: 1 }],
    ['a timeout', 'timeout', { operation: SALE_OPERATION, latencyMs: 1500, times: 1 }],
  ])('after %s from the upstream payment, another payment id may not take the redemption; the same one may', async (_what, tag, rule) => {
    const customerId = `unk-${store}-${tag}`;
    const h = await heldRedemption(s, customerId, 100, { seed: 500 });
    await setFaults(s, [rule]);
    const first = await s.pos('cashier').post('/payments', { customerId, paymentId: `${customerId}-a`, totalPaid: 10, redemptionId: h.id });
    expect(first.status).toBeGreaterThanOrEqual(500);

    // A different sale on the same redemption: refused, whatever the first one's fate.
    const other = await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `${customerId}-b`, totalPaid: 10, redemptionId: h.id })
      .expect(409);
    expect(other.body).toMatchObject({ code: 'redemption_in_use', paymentId: `${customerId}-a` });
    // A void is refused too: the hold may be used already.
    expect((await s.pos('cashier').post(`/redemptions/${h.id}/void`).expect(409)).body).toMatchObject({
      code: 'payment_in_progress',
      paymentId: `${customerId}-a`,
    });

    // The same sale again: recorded once upstream (now, or the first time if the timeout hid its success).
    await new Promise((r) => setTimeout(r, 600));
    const again = await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `${customerId}-a`, totalPaid: 10, redemptionId: h.id })
      .expect(201);
    expect(['recorded', 'already_recorded']).toContain(again.body.status);
    expect((await s.pos('cashier').get(`/redemptions/${h.id}`).expect(200)).body).toMatchObject({ state: 'redeemed', paymentId: `${customerId}-a` });
    expect(await s.balance(customerId)).toMatchObject({ availablePointsBalance: 500 - 100 + 10, heldPoints: 0 });
  });

  it('a definite refusal of the payment frees the claim for another payment id', async () => {
    const customerId = `ref-${store}`;
    const h = await heldRedemption(s, customerId, 100, { seed: 500 });
    await setFaults(s, [{ operation: SALE_OPERATION, status: 400, times: 1 }]);
    const first = await s.pos('cashier').post('/payments', { customerId, paymentId: `${customerId}-a`, totalPaid: 10, redemptionId: h.id });
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(first.status).toBeLessThan(500);
    await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `${customerId}-b`, totalPaid: 10, redemptionId: h.id })
      .expect(201);
  });
});

import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { expectNoSecrets, expiredCount, heldRedemption, HOLD_MS, PAST_HOLD_MS, waitFor } from './helpers';

/**
 * A payment that names a redemption it may not use is refused before
 * anything reaches the loyalty service: no points move, and the payment id
 * stays free for the till's next attempt.
 */
describe.each(['memory', 'redis'] as const)('payments naming a redemption (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  /** The refused payment id was never sent upstream: the same id pays fine without a redemption. */
  async function expectPaymentIdUnused(customerId: string, paymentId: string) {
    const res = await s.pos('cashier').post('/payments', { customerId, paymentId, totalPaid: 10 }).expect(201);
    expect(res.body).toMatchObject({ status: 'recorded', pointsEarned: 10 });
  }

  it('pays with a held redemption and marks it redeemed', async () => {
    const r = await heldRedemption(s, 'pay-1', 300, { seed: 500 });
    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId: 'pay-1', paymentId: 'g-pay-1', totalAmount: 130, totalPaid: 100, redemptionId: r.id })
      .expect(201);
    expect(pay.body).toEqual({
      paymentId: 'g-pay-1',
      customerId: 'pay-1',
      status: 'recorded',
      pointsEarned: 100,
      pointsRedeemed: 300,
      lines: [],
      redemption: { id: r.id, state: 'redeemed' },
      receipt: expect.objectContaining({ pointsEarned: 100, pointsRedeemed: 300 }),
    });
    expect(await s.balance('pay-1')).toMatchObject({ availablePointsBalance: 300, totalPointsBalance: 300, heldPoints: 0 });
    const read = await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200);
    expect(read.body).toMatchObject({ state: 'redeemed', paymentId: 'g-pay-1', secondsLeft: 0 });
  });

  it('refuses an already-redeemed redemption (409 redemption_not_held)', async () => {
    const r = await heldRedemption(s, 'pay-2', 100, { seed: 300 });
    await s.pos('cashier').post('/payments', { customerId: 'pay-2', paymentId: 'g-pay-2a', totalPaid: 50, redemptionId: r.id }).expect(201);
    const before = await s.balance('pay-2');
    const res = await s.pos('cashier').post('/payments', { customerId: 'pay-2', paymentId: 'g-pay-2b', totalPaid: 50, redemptionId: r.id }).expect(409);
    expect(res.body).toMatchObject({ status: 409, code: 'redemption_not_held', state: 'redeemed' });
    expect(await s.balance('pay-2')).toEqual(before);
    await expectPaymentIdUnused('pay-2', 'g-pay-2b');
  });

  it('answers a retried payment (same id, same redemption) as already recorded, without paying twice', async () => {
    const r = await heldRedemption(s, 'pay-12', 100, { seed: 300 });
    const body = { customerId: 'pay-12', paymentId: 'g-pay-12', totalPaid: 50, redemptionId: r.id };
    await s.pos('cashier').post('/payments', body).expect(201);
    const after = await s.balance('pay-12');
    expect(after).toMatchObject({ availablePointsBalance: 250, heldPoints: 0 });
    // The till never saw the first answer and sends the same sale again.
    const retry = await s.pos('cashier').post('/payments', body).expect(201);
    expect(retry.body).toEqual({
      paymentId: 'g-pay-12',
      customerId: 'pay-12',
      status: 'already_recorded',
      pointsEarned: null,
      pointsRedeemed: null,
      lines: [],
      redemption: { id: r.id, state: 'redeemed' },
      receipt: null,
    });
    expect(await s.balance('pay-12')).toEqual(after);
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'redeemed', paymentId: 'g-pay-12' });
  });

  it('refuses a voided redemption (409 redemption_not_held)', async () => {
    const r = await heldRedemption(s, 'pay-3', 100, { seed: 300 });
    await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200);
    const res = await s.pos('cashier').post('/payments', { customerId: 'pay-3', paymentId: 'g-pay-3', totalPaid: 50, redemptionId: r.id }).expect(409);
    expect(res.body).toMatchObject({ code: 'redemption_not_held', state: 'voided' });
    expect(await s.balance('pay-3')).toMatchObject({ availablePointsBalance: 300, heldPoints: 0 });
    await expectPaymentIdUnused('pay-3', 'g-pay-3');
  });

  it("refuses another store's redemption as not found (404 redemption_not_found), so ids cannot be probed", async () => {
    const r = await heldRedemption(s, 'pay-4', 100, { seed: 300 });
    const res = await s.pos('otherCashier').post('/payments', { customerId: 'pay-4', paymentId: 'g-pay-4', totalPaid: 50, redemptionId: r.id }).expect(404);
    expect(res.body).toMatchObject({ status: 404, code: 'redemption_not_found' });
    expect(res.body.state).toBeUndefined();
    expect(await s.balance('pay-4')).toMatchObject({ availablePointsBalance: 200, heldPoints: 100 });
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'held', paymentId: null });
    await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200); // no open hold left for the expiry tests
  });

  it("refuses another customer's redemption (409 redemption_customer_mismatch)", async () => {
    const r = await heldRedemption(s, 'pay-5', 100, { seed: 300 });
    await s.seed('pay-5-other', 0);
    const res = await s.pos('cashier').post('/payments', { customerId: 'pay-5-other', paymentId: 'g-pay-5', totalPaid: 50, redemptionId: r.id }).expect(409);
    expect(res.body.code).toBe('redemption_customer_mismatch');
    expect((await s.balance('pay-5-other')).availablePointsBalance).toBe(0);
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'held', paymentId: null });
    // The right customer can still use it.
    await s.pos('cashier').post('/payments', { customerId: 'pay-5', paymentId: 'g-pay-5', totalPaid: 50, redemptionId: r.id }).expect(201);
  });

  it('frees the redemption when the loyalty service refuses the payment, so the till can pay again', async () => {
    const r = await heldRedemption(s, 'pay-9', 100, { seed: 300 });
    const refused = await s
      .pos('cashier')
      .post('/payments', { customerId: 'pay-9', paymentId: 'g-pay-9', totalPaid: 50, redemptionId: r.id, couponCodes: ['NO_SUCH_COUPON'] })
      .expect(422);
    expect(refused.body.status).toBe(422);
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'held', paymentId: null });
    expect(await s.balance('pay-9')).toMatchObject({ availablePointsBalance: 200, heldPoints: 100 });
    const pay = await s.pos('cashier').post('/payments', { customerId: 'pay-9', paymentId: 'g-pay-9', totalPaid: 50, redemptionId: r.id }).expect(201);
    expect(pay.body).toMatchObject({ pointsRedeemed: 100, pointsEarned: 50, redemption: { state: 'redeemed' } });
    expect(await s.balance('pay-9')).toMatchObject({ availablePointsBalance: 250, heldPoints: 0 });
  });

  it('lets only one of two racing payments use a redemption', async () => {
    const r = await heldRedemption(s, 'pay-10', 100, { seed: 300 });
    const [a, b] = await Promise.all(
      ['g-pay-10a', 'g-pay-10b'].map((paymentId) => s.pos('cashier').post('/payments', { customerId: 'pay-10', paymentId, totalPaid: 50, redemptionId: r.id })),
    );
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const loser = a.status === 409 ? a : b;
    expect(['redemption_in_use', 'redemption_not_held']).toContain(loser.body.code);
    // Points redeemed once, earned once.
    expect(await s.balance('pay-10')).toMatchObject({ availablePointsBalance: 250, totalPointsBalance: 250, heldPoints: 0 });
  });

  it('refuses a redemption with less than the safety margin (30 s) left (409 redemption_expiring)', async () => {
    const r = await heldRedemption(s, 'pay-6', 100, { seed: 300 });
    await s.advance(HOLD_MS - 20_000);
    const res = await s.pos('cashier').post('/payments', { customerId: 'pay-6', paymentId: 'g-pay-6', totalPaid: 50, redemptionId: r.id }).expect(409);
    expect(res.body).toMatchObject({ code: 'redemption_expiring', state: 'held' });
    const read = await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200);
    expect(read.body).toMatchObject({ state: 'held', paymentId: null });
    expect(read.body.secondsLeft).toBeLessThanOrEqual(20);
    // The till voids it and starts again: the points come back.
    await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200);
    expect((await s.balance('pay-6')).availablePointsBalance).toBe(300);
    await expectPaymentIdUnused('pay-6', 'g-pay-6');
  });

  it('expires a hold through the sweeper, and then refuses it (409 redemption_not_held)', async () => {
    const r = await heldRedemption(s, 'pay-7', 100, { seed: 300 });
    const before = expiredCount(s);
    await s.advance(PAST_HOLD_MS);
    await waitFor('the sweeper to expire the hold', () => expiredCount(s) === before + 1);
    expect(await s.bff.deps.redemptions.countOpen()).toBe(0);
    expect(s.logs.some((l) => l.includes('"hold expired"') && l.includes(r.id) && l.includes('"via":"sweep"'))).toBe(true);
    const read = await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200);
    expect(read.body).toMatchObject({ state: 'expired', secondsLeft: 0 });
    const res = await s.pos('cashier').post('/payments', { customerId: 'pay-7', paymentId: 'g-pay-7', totalPaid: 50, redemptionId: r.id }).expect(409);
    expect(res.body).toMatchObject({ code: 'redemption_not_held', state: 'expired' });
    // The upstream hold lapsed too: every point is available, none earned.
    expect(await s.balance('pay-7')).toMatchObject({ availablePointsBalance: 300, totalPointsBalance: 300, heldPoints: 0 });
    expect(expiredCount(s)).toBe(before + 1);
    await expectPaymentIdUnused('pay-7', 'g-pay-7');
  });

  it('expires a due hold on read when no sweeper has run (a late sweeper never lets a dead hold be used)', async () => {
    const r = await heldRedemption(s, 'pay-8', 100, { seed: 300 });
    await s.bff.sweeper.stop();
    try {
      await s.advance(PAST_HOLD_MS);
      expect(await s.bff.deps.redemptions.countOpen()).toBe(1); // nobody swept it
      const res = await s.pos('cashier').post('/payments', { customerId: 'pay-8', paymentId: 'g-pay-8', totalPaid: 50, redemptionId: r.id }).expect(409);
      expect(res.body).toMatchObject({ code: 'redemption_not_held', state: 'expired' });
      expect(await s.bff.deps.redemptions.countOpen()).toBe(0);
      expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'expired', secondsLeft: 0 });
      expect((await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(409)).body).toMatchObject({ code: 'redemption_not_held', state: 'expired' });
    } finally {
      s.bff.sweeper.start();
    }
    const before = expiredCount(s);
    await new Promise((resolve) => setTimeout(resolve, 450)); // two sweeper intervals: nothing left to sweep
    expect(expiredCount(s)).toBe(before);
    expect(await s.balance('pay-8')).toMatchObject({ availablePointsBalance: 300, heldPoints: 0 });
    await expectPaymentIdUnused('pay-8', 'g-pay-8');
  });

  // Last in the file: it moves the sandbox clock alone, so the BFF's clock stays behind.
  it('ends a redemption whose hold the loyalty service already let lapse (clocks apart)', async () => {
    const r = await heldRedemption(s, 'pay-11', 100, { seed: 300 });
    await s.sandboxAdmin.post('/_sandbox/clock/advance').set(SANDBOX_KEYS).send({ ms: PAST_HOLD_MS }).expect(200);
    const before = expiredCount(s);
    const res = await s.pos('cashier').post('/payments', { customerId: 'pay-11', paymentId: 'g-pay-11', totalPaid: 50, redemptionId: r.id }).expect(409);
    expect(res.body.code).toBe('hold_not_active');
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'expired', paymentId: null, secondsLeft: 0 });
    expect(await s.bff.deps.redemptions.countOpen()).toBe(0);
    expect(await s.balance('pay-11')).toMatchObject({ availablePointsBalance: 300, heldPoints: 0 });
    // Logged like any other expiry (not a sweeper's: the sweepers' count is unchanged).
    expect(s.logs.some((l) => l.includes('"hold expired"') && l.includes(r.id) && l.includes('"via":"upstream"'))).toBe(true);
    expect(expiredCount(s)).toBe(before);
    await expectPaymentIdUnused('pay-11', 'g-pay-11');
  });

  it('keeps the secret key and every terminal token out of responses and logs', () => expectNoSecrets(s));
});

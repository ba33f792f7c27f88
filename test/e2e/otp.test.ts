import { startStack, Stack } from '../support/e2e';
import { expectNoSecrets } from './helpers';

/** An account with OTP on (sandbox account and BFF setting): otp_required -> OTP -> held -> redeemed. */
describe.each(['memory', 'redis'] as const)('redemption with an OTP (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { otpEnabled: true } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const wrongOf = (otp: string) => String((Number(otp) + 1) % 1_000_000).padStart(6, '0');

  it('asks for an OTP, refuses a wrong one, holds with the right one, and pays', async () => {
    await s.seed('otp-1', 500);
    const hash = await s.hash('otp-1');
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'otp-1', hash, points: 150 }).expect(201);
    expect(start.body).toMatchObject({ state: 'otp_required', customerId: 'otp-1', points: null, amount: null, expiresAt: null, secondsLeft: 0 });
    const id: string = start.body.id;
    // Asking for the OTP holds nothing yet.
    expect(await s.balance('otp-1')).toMatchObject({ availablePointsBalance: 500, heldPoints: 0 });
    expect(await s.bff.deps.redemptions.countOpen()).toBe(0);

    const otp = await s.otp('otp-1');
    expect(otp).toMatch(/^\d{6}$/);
    const wrong = await s
      .pos('cashier')
      .post(`/redemptions/${id}/otp`, { otp: wrongOf(otp) })
      .expect(422);
    expect(wrong.body).toMatchObject({ status: 422, code: 'otp_invalid' });
    expect((await s.pos('cashier').get(`/redemptions/${id}`).expect(200)).body.state).toBe('otp_required');
    expect((await s.balance('otp-1')).availablePointsBalance).toBe(500);

    const held = await s.pos('cashier').post(`/redemptions/${id}/otp`, { otp }).expect(200);
    expect(held.body).toMatchObject({ id, state: 'held', points: 150, amount: 15 });
    expect(held.body.secondsLeft).toBeGreaterThan(590);
    expect(await s.balance('otp-1')).toMatchObject({ availablePointsBalance: 350, heldPoints: 150 });
    expect(await s.bff.deps.redemptions.countOpen()).toBe(1);

    // An OTP for a redemption already held: 409, and the hold is not placed twice.
    const late = await s.pos('cashier').post(`/redemptions/${id}/otp`, { otp }).expect(409);
    expect(late.body).toMatchObject({ code: 'redemption_not_awaiting_otp', state: 'held' });
    expect((await s.balance('otp-1')).availablePointsBalance).toBe(350);

    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId: 'otp-1', paymentId: 'otp-pay-1', totalPaid: 85, totalAmount: 100, redemptionId: id })
      .expect(201);
    expect(pay.body).toMatchObject({ status: 'recorded', pointsRedeemed: 150, pointsEarned: 85, redemption: { id, state: 'redeemed' } });
    expect(await s.balance('otp-1')).toMatchObject({ availablePointsBalance: 435, totalPointsBalance: 435, heldPoints: 0 });
  });

  it('carries the QR hash to the hold placed after the OTP (a stale hash is refused then)', async () => {
    await s.seed('otp-2', 300);
    const oldHash = await s.hash('otp-2');
    // (By points: the published OTP request takes an integer rule id, and the sandbox's rule ids are names.)
    const start = await s
      .pos('cashier')
      .post('/redemptions', { qr: `otp-2:${oldHash}`, points: 100 })
      .expect(201);
    expect(start.body.state).toBe('otp_required');
    const held = await s
      .pos('cashier')
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('otp-2') })
      .expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100, amount: 10, ask: { kind: 'points', points: 100 } });
    expect((await s.balance('otp-2')).availablePointsBalance).toBe(200);

    // The hold rotated the hash: the old QR gets an OTP, and is refused when the hold is placed.
    const stale = await s
      .pos('cashier')
      .post('/redemptions', { qr: `otp-2:${oldHash}`, points: 10 })
      .expect(201);
    expect(stale.body.state).toBe('otp_required');
    const refused = await s
      .pos('cashier')
      .post(`/redemptions/${stale.body.id}/otp`, { otp: await s.otp('otp-2') })
      .expect(422);
    expect(refused.body.code).toBe('hash_invalid');
    expect((await s.pos('cashier').get(`/redemptions/${stale.body.id}`).expect(200)).body.state).toBe('otp_required');
    expect((await s.balance('otp-2')).availablePointsBalance).toBe(200);
  });

  it('refuses a code sent with a new start when it was asked for another redemption', async () => {
    await s.seed('otp-3', 300);
    const first = await s.pos('cashier').post('/redemptions', { customerId: 'otp-3', points: 100 }).expect(201);
    expect(first.body.state).toBe('otp_required');
    const otp = await s.otp('otp-3');
    const direct = await s.pos('cashier').post('/redemptions', { customerId: 'otp-3', points: 100, otp }).expect(409);
    expect(direct.body.code).toBe('otp_for_another_redemption');
    expect((await s.balance('otp-3')).availablePointsBalance).toBe(300);
    // The redemption the code was asked for still takes it.
    const held = await s.pos('cashier').post(`/redemptions/${first.body.id}/otp`, { otp }).expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect((await s.balance('otp-3')).availablePointsBalance).toBe(200);
  });

  it("hides an OTP redemption from another store's till (404)", async () => {
    await s.seed('otp-4', 300);
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'otp-4', points: 100 }).expect(201);
    const res = await s
      .pos('otherCashier')
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('otp-4') })
      .expect(404);
    expect(res.body.code).toBe('redemption_not_found');
    expect((await s.balance('otp-4')).availablePointsBalance).toBe(300);
  });

  it('rejects a malformed OTP with 400 naming the field', async () => {
    await s.seed('otp-5', 300);
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'otp-5', points: 100 }).expect(201);
    const res = await s.pos('cashier').post(`/redemptions/${start.body.id}/otp`, { otp: '12ab' }).expect(400);
    expect(JSON.stringify(res.body.errors)).toContain('otp');
  });

  it('keeps the secret key and every terminal token out of responses and logs', () => expectNoSecrets(s));
});

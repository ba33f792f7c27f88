import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '../../src/platform/config';
import { silentLogger } from '../../src/platform/logger';
import { RunningBff, startBff } from '../../src/pos/server';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/** An OTP is bound to the redemption it was asked for, and to its points. */
describe.each(['memory', 'redis'] as const)('an OTP confirms only its own redemption (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { otpEnabled: true }, env: { REDEMPTION_PROOF: 'hash_or_otp' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("while R1's code is out no other redemption asks for one; R1's code holds R1's points only", async () => {
    await s.seed('ob-1', 1000);
    const r1 = await s.pos('cashier').post('/redemptions', { customerId: 'ob-1', points: 50 }).expect(201);
    expect(r1.body.state).toBe('otp_required');
    const r2 = await s.pos('cashier').post('/redemptions', { customerId: 'ob-1', points: 900 }).expect(409);
    expect(r2.body).toMatchObject({ code: 'otp_pending_for_another_redemption', redemptionId: r1.body.id });
    expect(Number(r2.headers['retry-after'])).toBeGreaterThan(0);
    const code1 = await s.otp('ob-1');

    const held = await s.pos('cashier').post(`/redemptions/${r1.body.id}/otp`, { otp: code1 }).expect(200);
    expect(held.body).toMatchObject({ id: r1.body.id, state: 'held', points: 50 });
    expect(await s.balance('ob-1')).toMatchObject({ availablePointsBalance: 950, heldPoints: 50 });

    // R1's code is used: the next redemption has its own code sent, and only that code confirms it.
    const r3 = await s.pos('cashier').post('/redemptions', { customerId: 'ob-1', points: 900 }).expect(201);
    expect((await s.pos('cashier').post(`/redemptions/${r3.body.id}/otp`, { otp: code1 }).expect(422)).body.code).toBe('otp_invalid');
    await s
      .pos('cashier')
      .post(`/redemptions/${r3.body.id}/otp`, { otp: await s.otp('ob-1') })
      .expect(200);
    expect(await s.balance('ob-1')).toMatchObject({ availablePointsBalance: 50, heldPoints: 950 });
  });

  it('a code asked by one store cannot place a hold from another store', async () => {
    await s.seed('ob-2', 500);
    const r = await s.pos('cashier').post('/redemptions', { customerId: 'ob-2', points: 100 }).expect(201);
    const code = await s.otp('ob-2');
    const other = await s.pos('otherCashier').post('/redemptions', { customerId: 'ob-2', points: 400, otp: code }).expect(409);
    expect(other.body.code).toBe('otp_for_another_redemption');
    expect((await s.balance('ob-2')).availablePointsBalance).toBe(500);
    await s.pos('cashier').post(`/redemptions/${r.body.id}/otp`, { otp: code }).expect(200);
    expect((await s.balance('ob-2')).availablePointsBalance).toBe(400);
  });
});

/**
 * Against a real service the BFF has no OTP setting: it places the hold, and
 * an upstream answer that an OTP is required becomes `otp_required` with the
 * code sent. Here the upstream is the sandbox, but the BFF is started as for a
 * real service (no live account setting).
 */
describe('OTP learnt from the upstream (as against a real service)', () => {
  let s: Stack;
  let bff: RunningBff;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', account: { otpEnabled: true } });
    const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', TERMINALS_FILE: s.terminalsFile, DEMO_SETUP: 'false' });
    bff = await startBff(config, { baseUrl: s.sandbox.url, apiKey: SANDBOX_KEYS.apikey, secretKey: SANDBOX_KEYS.secretkey }, silentLogger);
  });
  afterAll(async () => {
    await bff?.close();
    await s?.close();
  });
  const till = () => {
    const http = request(bff.url);
    const auth = { Authorization: `Bearer ${s.tokens.cashier}` };
    return { post: (p: string, body: object) => http.post(`/pos/v1${p}`).set(auth).set('Idempotency-Key', randomUUID()).send(body) };
  };

  it('turns "OTP required" into otp_required and sends the code, for the first typed id too; then QR codes take the OTP path at once', async () => {
    await s.seed('ol-1', 500);
    expect(await bff.deps.upstreamOtp.required()).toBeUndefined();
    // Not known yet: the hold is sent without a code, and its refusal for want of one has a code sent.
    const start = await till().post('/redemptions', { customerId: 'ol-1', points: 100 }).expect(201);
    expect(start.body.state).toBe('otp_required');
    expect(await bff.deps.upstreamOtp.required()).toBe(true);
    const held = await till()
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('ol-1') })
      .expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect((await s.balance('ol-1')).availablePointsBalance).toBe(400);

    const typed = await till().post('/redemptions', { customerId: 'ol-1', points: 50 }).expect(201);
    expect(typed.body.state).toBe('otp_required');
    await till()
      .post(`/redemptions/${typed.body.id}/otp`, { otp: await s.otp('ol-1') })
      .expect(200);
    // A QR code proves presence itself: once the account is known to check OTPs, its code is sent straight away.
    const scanned = await till()
      .post('/redemptions', { qr: `ol-1:${await s.hash('ol-1')}`, points: 50 })
      .expect(201);
    expect(scanned.body.state).toBe('otp_required');
  });
});

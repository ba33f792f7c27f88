import request from 'supertest';
import { loadConfig } from '../../src/platform/config';
import { silentLogger } from '../../src/platform/logger';
import { RunningBff, startBff } from '../../src/pos/server';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/** An OTP is bound to the redemption it was asked for, and to its points (issue 15, item 1). */
describe.each(['memory', 'redis'] as const)('an OTP confirms only its own redemption (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => { s = await startStack({ store, account: { otpEnabled: true }, env: { REDEMPTION_PROOF: 'hash_or_otp' } }); });
  afterAll(async () => { await s?.close(); });

  it("R2's code cannot confirm R1; R2 takes it and holds R2's points only", async () => {
    await s.seed('ob-1', 1000);
    const r1 = await s.pos('cashier').post('/redemptions', { customerId: 'ob-1', points: 900 }).expect(201);
    const r2 = await s.pos('cashier').post('/redemptions', { customerId: 'ob-1', points: 50 }).expect(201);
    expect([r1.body.state, r2.body.state]).toEqual(['otp_required', 'otp_required']);
    const code2 = await s.otp('ob-1');

    const crossed = await s.pos('cashier').post(`/redemptions/${r1.body.id}/otp`, { otp: code2 }).expect(409);
    expect(crossed.body.code).toBe('otp_not_for_this_redemption');
    expect(await s.balance('ob-1')).toMatchObject({ availablePointsBalance: 1000, heldPoints: 0 });
    expect((await s.pos('cashier').get(`/redemptions/${r1.body.id}`).expect(200)).body.state).toBe('otp_required');

    const held = await s.pos('cashier').post(`/redemptions/${r2.body.id}/otp`, { otp: code2 }).expect(200);
    expect(held.body).toMatchObject({ id: r2.body.id, state: 'held', points: 50 });
    expect(await s.balance('ob-1')).toMatchObject({ availablePointsBalance: 950, heldPoints: 50 });
    // R1 stays unconfirmable with any code it did not ask for.
    expect((await s.pos('cashier').post(`/redemptions/${r1.body.id}/otp`, { otp: code2 }).expect(409)).body.code).toBe('otp_not_for_this_redemption');
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
 * code sent (issue 14, item 3). Here the upstream is the sandbox, but the BFF
 * is started as for a real service (no live account setting).
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
    return { post: (p: string, body: object) => http.post(`/pos/v1${p}`).set(auth).send(body) };
  };

  it('turns "OTP required" into otp_required and sends the code; then typed ids take the OTP path too', async () => {
    await s.seed('ol-1', 500);
    expect(bff.deps.upstreamOtp.required()).toBeUndefined();
    // Not known yet: a typed id is no proof.
    expect((await till().post('/redemptions', { customerId: 'ol-1', points: 100 }).expect(422)).body.code).toBe('proof_required');

    const start = await till().post('/redemptions', { qr: `ol-1:${await s.hash('ol-1')}`, points: 100 }).expect(201);
    expect(start.body.state).toBe('otp_required');
    expect(bff.deps.upstreamOtp.required()).toBe(true);
    const held = await till().post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('ol-1') }).expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect((await s.balance('ol-1')).availablePointsBalance).toBe(400);

    const typed = await till().post('/redemptions', { customerId: 'ol-1', points: 50 }).expect(201);
    expect(typed.body.state).toBe('otp_required');
  });
});

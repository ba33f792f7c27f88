import Redis from 'ioredis';
import { startStack, Stack } from '../support/e2e';

/**
 * The account's OTP setting changes after the fleet learnt it (the BFF learns
 * it from answers, as against a real service: `otpFromAnswers`). What was
 * learnt is believed for OTP_MODE_RECHECK_MINUTES and then found out again;
 * OTP_MODE=on|off is believed and never learnt.
 */
const PROOF = { REDEMPTION_PROOF: 'hash_or_otp', OTP_MODE_RECHECK_MINUTES: '60' };
const PAST_RECHECK = 60 * 60_000 + 1000;

/** Upstream holds and code requests the stack sent after `from` (an index into sentUpstream()). */
function sent(s: Stack, from: number): { holds: number; codes: number } {
  const after = s.sentUpstream().slice(from);
  const count = (re: RegExp) => after.filter((e) => e.method === 'POST' && re.test(e.path)).length;
  return { holds: count(/\/transactions\/hold$/), codes: count(/\/transactions\/otp$/) };
}

const qrStart = async (s: Stack, customerId: string, i = 0) =>
  s
    .pos('cashier', i)
    .post('/redemptions', { qr: `${customerId}:${await s.hash(customerId)}`, points: 100 })
    .expect(201);

describe('the account turns OTPs on after the fleet learnt "not checked" (OTP_MODE=auto, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, otpFromAnswers: true, account: { otpEnabled: false }, env: PROOF });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a typed id is refused until the learnt mode expires, then its hold finds out and the code holds the points', async () => {
    await s.seed('om-on', 1000);
    expect((await qrStart(s, 'om-on')).body.state).toBe('held');
    expect(await s.bffs[1].deps.upstreamOtp.required()).toBe(false);

    await s.setAccount({ otpEnabled: true });
    let from = s.sentUpstream().length;
    expect((await s.pos('cashier', 1).post('/redemptions', { customerId: 'om-on', points: 100 }).expect(422)).body.code).toBe('proof_required');
    expect(sent(s, from)).toEqual({ holds: 0, codes: 0 });

    await s.advance(PAST_RECHECK);
    expect(await s.bffs[1].deps.upstreamOtp.required()).toBeUndefined();
    from = s.sentUpstream().length;
    const start = await s.pos('cashier', 1).post('/redemptions', { customerId: 'om-on', points: 100 }).expect(201);
    expect(start.body.state).toBe('otp_required');
    // The probe: a hold without a code, refused for want of one, then the code for this redemption.
    expect(sent(s, from)).toEqual({ holds: 1, codes: 1 });
    const held = await s
      .pos('cashier', 0)
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('om-on') })
      .expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect(await s.bffs[0].deps.upstreamOtp.required()).toBe(true);
  });
});

describe('the account turns OTPs off after the fleet learnt "checked" (OTP_MODE=auto, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, otpFromAnswers: true, account: { otpEnabled: true }, env: PROOF });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a QR code asks for a code (an SMS) until the learnt mode expires, then holds without one', async () => {
    for (const c of ['om-off-1', 'om-off-2', 'om-off-3']) await s.seed(c, 1000);
    expect((await qrStart(s, 'om-off-1')).body.state).toBe('otp_required');
    expect(await s.bffs[1].deps.upstreamOtp.required()).toBe(true);

    await s.setAccount({ otpEnabled: false });
    let from = s.sentUpstream().length;
    expect((await qrStart(s, 'om-off-2', 1)).body.state).toBe('otp_required');
    expect(sent(s, from)).toEqual({ holds: 0, codes: 1 });

    await s.advance(PAST_RECHECK);
    from = s.sentUpstream().length;
    const held = await qrStart(s, 'om-off-3', 1);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect(sent(s, from)).toEqual({ holds: 1, codes: 0 });
    expect((await s.balance('om-off-3')).availablePointsBalance).toBe(900);
    expect(await s.bffs[0].deps.upstreamOtp.required()).toBe(false);
  });
});

describe('an answer that contradicts the belief is learnt at once, before any expiry (OTP_MODE=auto, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, otpFromAnswers: true, account: { otpEnabled: true }, env: PROOF });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('"checked" believed, a typed-id hold placed without a code: "not checked"; then a QR hold refused for want of a code: "checked"', async () => {
    for (const c of ['om-now-1', 'om-now-2', 'om-now-3']) await s.seed(c, 1000);
    expect((await qrStart(s, 'om-now-1')).body.state).toBe('otp_required');
    expect(await s.bffs[1].deps.upstreamOtp.required()).toBe(true);

    await s.setAccount({ otpEnabled: false });
    let from = s.sentUpstream().length;
    expect((await s.pos('cashier', 0).post('/redemptions', { customerId: 'om-now-2', points: 100 }).expect(422)).body.code).toBe('proof_required');
    expect(sent(s, from)).toEqual({ holds: 1, codes: 0 });
    expect(await s.bffs[1].deps.upstreamOtp.required()).toBe(false);

    await s.setAccount({ otpEnabled: true });
    from = s.sentUpstream().length;
    expect((await qrStart(s, 'om-now-3', 1)).body.state).toBe('otp_required');
    expect(sent(s, from)).toEqual({ holds: 1, codes: 1 });
    expect(await s.bffs[0].deps.upstreamOtp.required()).toBe(true);
  });
});

describe('OTP_MODE=on and OTP_MODE=off are believed, never learnt (Redis)', () => {
  let s: Stack | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const learntValue = async (stack: Stack) => {
    const r = new Redis(process.env.TEST_REDIS_URL as string);
    try {
      return await r.get(`${stack.redisPrefix}otp-mode`);
    } finally {
      r.disconnect();
    }
  };

  it('OTP_MODE=on: a typed id asks for the code at once (no hold first), on an account that does not check them; nothing is learnt', async () => {
    s = await startStack({ store: 'redis', otpFromAnswers: true, account: { otpEnabled: false }, env: { ...PROOF, OTP_MODE: 'on' } });
    await s.seed('om-set-on', 1000);
    let from = s.sentUpstream().length;
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'om-set-on', points: 100 }).expect(201);
    expect(start.body.state).toBe('otp_required');
    expect(sent(s, from)).toEqual({ holds: 0, codes: 1 });
    await s
      .pos('cashier')
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('om-set-on') })
      .expect(200);
    from = s.sentUpstream().length;
    expect((await qrStart(s, 'om-set-on')).body.state).toBe('otp_required');
    expect(sent(s, from)).toEqual({ holds: 0, codes: 1 });
    expect(await learntValue(s)).toBeNull();
    expect(await s.bff.deps.upstreamOtp.required()).toBe(true);
  });

  it('OTP_MODE=off: a typed id is refused before anything is sent, though the account checks codes; a refused QR hold teaches nothing', async () => {
    s = await startStack({ store: 'redis', otpFromAnswers: true, account: { otpEnabled: true }, env: { ...PROOF, OTP_MODE: 'off' } });
    await s.seed('om-set-off', 1000);
    let from = s.sentUpstream().length;
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'om-set-off', points: 100 }).expect(422)).body.code).toBe('proof_required');
    expect(sent(s, from)).toEqual({ holds: 0, codes: 0 });
    from = s.sentUpstream().length;
    // The hold, sent without a code, is refused for want of one: this redemption has a code sent, but the belief stands.
    expect((await qrStart(s, 'om-set-off')).body.state).toBe('otp_required');
    expect(sent(s, from)).toEqual({ holds: 1, codes: 1 });
    expect(await learntValue(s)).toBeNull();
    expect(await s.bff.deps.upstreamOtp.required()).toBe(false);
  });
});

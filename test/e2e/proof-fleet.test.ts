import { startStack, Stack } from '../support/e2e';

/**
 * Against a real service the BFF has no OTP setting: it learns from the
 * upstream's answers whether the account checks OTPs. These stacks run the
 * BFF that way (`otpFromAnswers`), several instances sharing one Redis.
 */
const PROOF = { REDEMPTION_PROOF: 'hash_or_otp' };

/** Upstream calls of one kind the stack sent after `from` (an index into sentUpstream()). */
function sent(s: Stack, from: number, kind: 'hold' | 'otp' | 'holdCancel'): number {
  return s
    .sentUpstream()
    .slice(from)
    .filter((e) => {
      if (kind === 'hold') return e.method === 'POST' && /\/transactions\/hold$/.test(e.path);
      if (kind === 'otp') return e.method === 'POST' && /\/transactions\/otp$/.test(e.path);
      return e.method === 'DELETE' && /\/transactions\/hold\/[^/]+$/.test(e.path);
    }).length;
}

describe('the first typed-id redemption on an OTP account, fresh fleet (learnt from answers, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, otpFromAnswers: true, account: { otpEnabled: true }, env: PROOF });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('asks for a code (no till has scanned a QR code yet), and the code holds the points', async () => {
    await s.seed('pf-first', 500);
    expect(await s.bff.deps.upstreamOtp.required()).toBeUndefined();
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'pf-first', points: 100 }).expect(201);
    expect(start.body.state).toBe('otp_required');
    expect((await s.balance('pf-first')).availablePointsBalance).toBe(500);
    const held = await s
      .pos('cashier', 1)
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('pf-first') })
      .expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect((await s.balance('pf-first')).availablePointsBalance).toBe(400);
    // A hold placed WITH a code shows nothing about codes: the fleet still knows the account checks them.
    expect(await s.bffs[1].deps.upstreamOtp.required()).toBe(true);
    const again = await s.pos('cashier', 1).post('/redemptions', { customerId: 'pf-first', points: 100 }).expect(201);
    expect(again.body.state).toBe('otp_required');
  });
});

describe('whether the account checks OTPs is known fleet-wide and survives a restart (Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, otpFromAnswers: true, account: { otpEnabled: true }, env: PROOF });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("one instance's refused hold teaches the others and a restarted one: a QR start asks for the code at once", async () => {
    await s.seed('pf-learn', 1000);
    let from = s.sentUpstream().length;
    const first = await s
      .pos('cashier', 0)
      .post('/redemptions', { qr: `pf-learn:${await s.hash('pf-learn')}`, points: 100 })
      .expect(201);
    expect(first.body.state).toBe('otp_required');
    expect(sent(s, from, 'hold')).toBe(1);
    await s
      .pos('cashier', 0)
      .post(`/redemptions/${first.body.id}/otp`, { otp: await s.otp('pf-learn') })
      .expect(200);

    from = s.sentUpstream().length;
    const other = await s
      .pos('cashier', 1)
      .post('/redemptions', { qr: `pf-learn:${await s.hash('pf-learn')}`, points: 100 })
      .expect(201);
    expect(other.body.state).toBe('otp_required');
    expect({ holds: sent(s, from, 'hold'), codes: sent(s, from, 'otp') }).toEqual({ holds: 0, codes: 1 });
    await s
      .pos('cashier', 1)
      .post(`/redemptions/${other.body.id}/otp`, { otp: await s.otp('pf-learn') })
      .expect(200);

    await s.restart(1);
    from = s.sentUpstream().length;
    const restarted = await s
      .pos('cashier', 1)
      .post('/redemptions', { qr: `pf-learn:${await s.hash('pf-learn')}`, points: 100 })
      .expect(201);
    expect(restarted.body.state).toBe('otp_required');
    expect({ holds: sent(s, from, 'hold'), codes: sent(s, from, 'otp') }).toEqual({ holds: 0, codes: 1 });
    await s
      .pos('cashier', 1)
      .post(`/redemptions/${restarted.body.id}/otp`, { otp: await s.otp('pf-learn') })
      .expect(200);
    expect((await s.balance('pf-learn')).availablePointsBalance).toBe(700);
  });

  it('a hold placed without a code teaches every instance, and a restarted one, that the account stopped checking OTPs', async () => {
    await s.seed('pf-unlearn', 1000);
    await s.setAccount({ otpEnabled: false });
    try {
      // A typed id: its hold, sent without a code, is placed, so the account no longer asks for one. It proves nothing: released, refused.
      let from = s.sentUpstream().length;
      expect((await s.pos('cashier', 0).post('/redemptions', { customerId: 'pf-unlearn', points: 100 }).expect(422)).body.code).toBe('proof_required');
      expect({ holds: sent(s, from, 'hold'), released: sent(s, from, 'holdCancel') }).toEqual({ holds: 1, released: 1 });
      expect(await s.bffs[1].deps.upstreamOtp.required()).toBe(false);

      // Known everywhere: a QR code holds at once, no code asked for; a typed id is refused before anything is sent.
      from = s.sentUpstream().length;
      const qr = await s
        .pos('cashier', 1)
        .post('/redemptions', { qr: `pf-unlearn:${await s.hash('pf-unlearn')}`, points: 100 })
        .expect(201);
      expect(qr.body.state).toBe('held');
      expect({ holds: sent(s, from, 'hold'), codes: sent(s, from, 'otp') }).toEqual({ holds: 1, codes: 0 });
      from = s.sentUpstream().length;
      expect((await s.pos('cashier', 1).post('/redemptions', { customerId: 'pf-unlearn', points: 100 }).expect(422)).body.code).toBe('proof_required');
      expect(sent(s, from, 'hold') + sent(s, from, 'otp')).toBe(0);
      await s.restart(1);
      from = s.sentUpstream().length;
      expect((await s.pos('cashier', 1).post('/redemptions', { customerId: 'pf-unlearn', points: 100 }).expect(422)).body.code).toBe('proof_required');
      expect(sent(s, from, 'hold') + sent(s, from, 'otp')).toBe(0);
      expect((await s.balance('pf-unlearn')).availablePointsBalance).toBe(900);
    } finally {
      await s.setAccount({ otpEnabled: true });
    }
  });
});

describe('six invented digits are no proof once the account stops checking OTPs (learnt from answers, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, otpFromAnswers: true, account: { otpEnabled: true }, env: PROOF });
  });
  afterAll(async () => {
    await s?.close();
  });

  /** The fleet has seen the account check OTPs: a QR start was refused for want of a code, then confirmed. */
  async function fleetHasSeenOtps(): Promise<void> {
    await s.seed('pf-regular', 500);
    const start = await s
      .pos('cashier')
      .post('/redemptions', { qr: `pf-regular:${await s.hash('pf-regular')}`, points: 10 })
      .expect(201);
    expect(start.body.state).toBe('otp_required');
    await s
      .pos('cashier')
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('pf-regular') })
      .expect(200);
    expect(await s.bff.deps.upstreamOtp.required()).toBe(true);
  }

  it("a typed id with otp 000000 neither holds nor spends anyone's points, on any instance", async () => {
    await fleetHasSeenOtps();
    await s.setAccount({ otpEnabled: false });
    await s.seed('pf-victim', 1500);
    for (const i of [0, 1]) {
      const res = await s.pos('cashier', i).post('/redemptions', { customerId: 'pf-victim', points: 1500, otp: '000000' });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'proof_required' });
    }
    expect(await s.balance('pf-victim')).toMatchObject({ availablePointsBalance: 1500, heldPoints: 0 });
  });

  it('a typed id start gets no code to confirm: refused, and any hold the answer needed is released', async () => {
    await s.seed('pf-victim-2', 1500);
    const from = s.sentUpstream().length;
    const res = await s.pos('cashier', 1).post('/redemptions', { customerId: 'pf-victim-2', points: 1500 });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'proof_required' });
    expect(sent(s, from, 'otp')).toBe(0);
    expect(sent(s, from, 'holdCancel')).toBe(sent(s, from, 'hold'));
    expect(await s.balance('pf-victim-2')).toMatchObject({ availablePointsBalance: 1500, heldPoints: 0 });
    // And the fleet now knows: the next typed id is refused before anything is sent.
    const next = s.sentUpstream().length;
    await s.pos('cashier', 0).post('/redemptions', { customerId: 'pf-victim-2', points: 1500, otp: '000000' }).expect(422);
    expect(sent(s, next, 'hold')).toBe(0);
  });

  it('a code that was the only proof holds nothing once any instance has seen the account stop checking OTPs', async () => {
    await s.setAccount({ otpEnabled: true });
    // The fleet last saw "not checked", so typed ids are refused until an answer shows otherwise: a QR start does.
    await s.seed('pf-qr', 100);
    expect((await s.pos('cashier', 0).post('/redemptions', { customerId: 'pf-qr', points: 10 }).expect(422)).body.code).toBe('proof_required');
    expect(
      (
        await s
          .pos('cashier', 0)
          .post('/redemptions', { qr: `pf-qr:${await s.hash('pf-qr')}`, points: 10 })
          .expect(201)
      ).body.state,
    ).toBe('otp_required');
    await s.seed('pf-waiting', 800);
    const start = await s.pos('cashier', 0).post('/redemptions', { customerId: 'pf-waiting', points: 800 }).expect(201);
    expect(start.body.state).toBe('otp_required');
    await s.setAccount({ otpEnabled: false });
    // Another till's typed id shows the fleet the account no longer checks codes.
    await s.seed('pf-other', 100);
    await s.pos('cashier', 1).post('/redemptions', { customerId: 'pf-other', points: 100 }).expect(422);
    const res = await s.pos('cashier', 1).post(`/redemptions/${start.body.id}/otp`, { otp: '000000' });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'proof_required' });
    expect(await s.balance('pf-waiting')).toMatchObject({ availablePointsBalance: 800, heldPoints: 0 });
    // The code is given up with it: the customer can start again with the QR code.
    await s
      .pos('cashier', 0)
      .post('/redemptions', { qr: `pf-waiting:${await s.hash('pf-waiting')}`, points: 800 })
      .expect(201);
  });
});

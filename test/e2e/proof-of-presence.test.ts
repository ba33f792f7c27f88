import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/** Every upstream call answers `latencyMs` late; the counting rules (no effect) say which operations were called. */
async function slowAndCounted(s: Stack, latencyMs: number, counted: string[]): Promise<void> {
  const rules = [{ operation: '*', latencyMs }, ...counted.map((operation) => ({ operation, latencyMs: 0 }))];
  await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
}

async function callsSeen(s: Stack): Promise<Record<string, number>> {
  const res = await s.sandboxAdmin.get('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  return Object.fromEntries(
    (res.body.rules as { operation: string; applied: number }[]).filter((r) => r.operation !== '*').map((r) => [r.operation, r.applied]),
  );
}

/**
 * REDEMPTION_PROOF: a redemption needs the customer's current hash
 * (the QR code) or an OTP, by store policy; an unknown customer is 404 and
 * nothing is created upstream.
 */
describe.each(['memory', 'redis'] as const)('proof of presence, default policy hash_or_otp (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, env: { REDEMPTION_PROOF: 'hash_or_otp' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses a typed customer id with no hash: 422 proof_required, nothing held', async () => {
    await s.seed('pp-alice', 500);
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'pp-alice', points: 500 }).expect(422);
    expect(res.body).toMatchObject({ status: 422, code: 'proof_required' });
    expect(res.body.detail).toMatch(/QR/);
    expect(await s.balance('pp-alice')).toMatchObject({ availablePointsBalance: 500, heldPoints: 0 });
  });

  it('accepts the QR code (customer id and current hash)', async () => {
    await s.seed('pp-bob', 500);
    const qr = `pp-bob:${await s.hash('pp-bob')}`;
    const res = await s.pos('cashier').post('/redemptions', { qr, points: 200 }).expect(201);
    expect(res.body).toMatchObject({ state: 'held', points: 200, customerId: 'pp-bob' });
    expect((await s.balance('pp-bob')).availablePointsBalance).toBe(300);
  });

  it('refuses a stale hash (the hold rotated it): 422 hash_invalid, nothing more held', async () => {
    await s.seed('pp-carol', 500);
    const old = await s.hash('pp-carol');
    await s.pos('cashier').post('/redemptions', { customerId: 'pp-carol', hash: old, points: 100 }).expect(201);
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'pp-carol', hash: old, points: 100 }).expect(422);
    expect(res.body.code).toBe('hash_invalid');
    expect((await s.balance('pp-carol')).availablePointsBalance).toBe(400);
  });

  it('answers 404 customer_not_found for an unknown customer and creates nobody upstream', async () => {
    const openBefore = await s.bff.deps.redemptions.countOpen();
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'pp-nobody', hash: '123456', points: 10 }).expect(404);
    expect(res.body.code).toBe('customer_not_found');
    // The sandbox's balance read would answer for a customer the hold had created.
    const look = await s.sandboxAdmin
      .get('/api/v4.0/integrations/customers/pp-nobody/balance')
      .set({ apikey: 'e2e_api_key', secretkey: 'e2e_secret_key_do_not_leak_7f3a' });
    expect(look.status).toBe(404);
    expect(await s.bff.deps.redemptions.countOpen()).toBe(openBefore);
  });

  it('with a QR code the start waits for one upstream call, the hold: no balance read first', async () => {
    await s.seed('pp-quick', 500);
    const qr = `pp-quick:${await s.hash('pp-quick')}`;
    const LATENCY = 1000;
    await slowAndCounted(s, LATENCY, ['balance', 'hold', 'holdLookup']);
    try {
      const t0 = Date.now();
      await s.pos('cashier').post('/redemptions', { qr, points: 100 }).expect(201);
      const ms = Date.now() - t0;
      expect(await callsSeen(s)).toMatchObject({ balance: 0, hold: 1 });
      // One round trip, not two (the hold lookup runs after the answer).
      expect(ms).toBeGreaterThanOrEqual(LATENCY);
      expect(ms).toBeLessThan(2 * LATENCY);
    } finally {
      await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules: [] }).expect(200);
    }
  });

  it('an invented OTP is no proof when the account does not check OTPs', async () => {
    await s.seed('pp-dave', 500);
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'pp-dave', points: 100, otp: '000000' }).expect(422);
    expect(res.body.code).toBe('proof_required');
    expect((await s.balance('pp-dave')).availablePointsBalance).toBe(500);
  });

  it('takes the OTP path for a typed id when the account checks OTPs (followed live from the sandbox account)', async () => {
    await s.seed('pp-erin', 500);
    await s.setAccount({ otpEnabled: true });
    try {
      const start = await s.pos('cashier').post('/redemptions', { customerId: 'pp-erin', points: 100 }).expect(201);
      expect(start.body.state).toBe('otp_required');
      const wrong = await s
        .pos('cashier')
        .post(`/redemptions/${start.body.id}/otp`, { otp: '000000' === (await s.otp('pp-erin')) ? '111111' : '000000' })
        .expect(422);
      expect(wrong.body.code).toBe('otp_invalid');
      const held = await s
        .pos('cashier')
        .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp('pp-erin') })
        .expect(200);
      expect(held.body).toMatchObject({ state: 'held', points: 100 });
      expect((await s.balance('pp-erin')).availablePointsBalance).toBe(400);
    } finally {
      await s.setAccount({ otpEnabled: false });
    }
  });
});

describe('proof of presence, other policies', () => {
  const stacks: Stack[] = [];
  afterAll(async () => {
    await Promise.all(stacks.map((s) => s.close()));
  });
  const stack = async (env: Record<string, string>, account = {}) => {
    const s = await startStack({ store: 'memory', env, account });
    stacks.push(s);
    return s;
  };

  it('hash: even an account that checks OTPs needs the QR code', async () => {
    const s = await stack({ REDEMPTION_PROOF: 'hash' }, { otpEnabled: true });
    await s.seed('ph-1', 500);
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'ph-1', points: 100 }).expect(422)).body.code).toBe('proof_required');
    const start = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'ph-1', hash: await s.hash('ph-1'), points: 100 })
      .expect(201);
    expect(start.body.state).toBe('otp_required');
  });

  it('otp: a QR code alone is not enough, the customer confirms a code', async () => {
    const s = await stack({ REDEMPTION_PROOF: 'otp' }, { otpEnabled: true });
    await s.seed('po-1', 500);
    const start = await s
      .pos('cashier')
      .post('/redemptions', { qr: `po-1:${await s.hash('po-1')}`, points: 100 })
      .expect(201);
    expect(start.body.state).toBe('otp_required');
    expect((await s.balance('po-1')).availablePointsBalance).toBe(500);
  });

  it('otp: refused clearly (502 otp_not_checked) when the account does not check OTPs', async () => {
    const s = await stack({ REDEMPTION_PROOF: 'otp' });
    await s.seed('po-2', 500);
    const res = await s
      .pos('cashier')
      .post('/redemptions', { qr: `po-2:${await s.hash('po-2')}`, points: 100 })
      .expect(502);
    expect(res.body.code).toBe('otp_not_checked');
  });

  it('none: a typed id is accepted (start-up warns; see test/store/startup.test.ts), after a balance read proves the customer exists', async () => {
    const s = await stack({ REDEMPTION_PROOF: 'none' });
    await s.seed('pn-1', 500);
    await slowAndCounted(s, 0, ['balance', 'hold']);
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'pn-1', points: 100 }).expect(201)).body.state).toBe('held');
    expect(await callsSeen(s)).toEqual({ balance: 1, hold: 1 });
    // Nothing but the read proves a typed id: an unknown one is refused before any hold is asked for.
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'pn-nobody', points: 100 }).expect(404)).body.code).toBe('customer_not_found');
    expect(await callsSeen(s)).toEqual({ balance: 2, hold: 1 });
  });

  it('an account that checks OTPs: an unknown customer is refused by the OTP request itself (404), no balance read first', async () => {
    const s = await stack({ REDEMPTION_PROOF: 'hash_or_otp' }, { otpEnabled: true });
    await s.seed('pq-1', 500);
    await slowAndCounted(s, 0, ['balance', 'otp']);
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'pq-1', points: 100 }).expect(201)).body.state).toBe('otp_required');
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'pq-nobody', points: 100 }).expect(404);
    expect(res.body.code).toBe('customer_not_found');
    expect(await callsSeen(s)).toEqual({ balance: 0, otp: 2 });
    const look = await s.sandboxAdmin.get('/api/v4.0/integrations/customers/pq-nobody/balance').set(SANDBOX_KEYS);
    expect(look.status).toBe(404);
  });
});

import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/**
 * The loyalty service keeps one live code per customer and does not know our
 * redemptions. A code may confirm only the redemption it was sent for, even
 * when two tills on two instances ask for one for the same customer at once.
 */
describe('two code requests for one customer crossing in flight (two instances, Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, account: { otpEnabled: true }, env: { REDEMPTION_PROOF: 'hash_or_otp' } });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  });

  it('the code asked for 100 points cannot hold 5,000: the second start is refused while the first code is out', async () => {
    await s.seed('cx-1', 6000);
    // R1's code request reaches the loyalty service late, after R2's.
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'otp', latencyMs: 800, times: 1 }] })
      .expect(200);
    const r1 = s
      .pos('cashier', 0)
      .post('/redemptions', { customerId: 'cx-1', points: 100 })
      .then((r) => r);
    await new Promise((r) => setTimeout(r, 300));
    const r2 = await s.pos('cashier', 1).post('/redemptions', { customerId: 'cx-1', points: 5000 });
    const first = await r1;
    expect(first.status).toBe(201);
    expect(first.body.state).toBe('otp_required');

    // The customer's phone shows the newest code: R1's.
    const code = await s.otp('cx-1');
    if (r2.status === 201) {
      // Were R2 ever open, its hold must not be placed with R1's code.
      const crossed = await s.pos('cashier', 1).post(`/redemptions/${r2.body.id}/otp`, { otp: code });
      expect(crossed.status).not.toBe(200);
    }
    expect(r2.status).toBe(409);
    expect(r2.body).toMatchObject({ code: 'otp_pending_for_another_redemption', redemptionId: first.body.id });
    expect(await s.balance('cx-1')).toMatchObject({ availablePointsBalance: 6000, heldPoints: 0 });

    const held = await s.pos('cashier', 1).post(`/redemptions/${first.body.id}/otp`, { otp: code }).expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect(await s.balance('cx-1')).toMatchObject({ availablePointsBalance: 5900, heldPoints: 100 });

    // Once R1's code is used, another redemption may ask for one.
    const next = await s.pos('cashier', 1).post('/redemptions', { customerId: 'cx-1', points: 500 }).expect(201);
    expect(next.body.state).toBe('otp_required');
  });

  it("another store's start cannot cancel a store's pending code, and is not told that store's redemption id", async () => {
    await s.seed('cx-2', 1000);
    const mine = await s.pos('cashier', 0).post('/redemptions', { customerId: 'cx-2', points: 100 }).expect(201);
    const theirs = await s.pos('otherCashier', 1).post('/redemptions', { customerId: 'cx-2', points: 900 }).expect(409);
    expect(theirs.body.code).toBe('otp_pending_for_another_redemption');
    expect(JSON.stringify(theirs.body)).not.toContain(mine.body.id);
    const held = await s
      .pos('cashier', 1)
      .post(`/redemptions/${mine.body.id}/otp`, { otp: await s.otp('cx-2') })
      .expect(200);
    expect(held.body).toMatchObject({ state: 'held', points: 100 });
    expect((await s.balance('cx-2')).availablePointsBalance).toBe(900);
  });

  it('a code request that may have reached the service keeps the ticket; a refused one gives it up', async () => {
    await s.seed('cx-4', 1000);
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'otp', status: 500, times: 1 }] })
      .expect(200);
    const unknown = await s.pos('cashier', 0).post('/redemptions', { customerId: 'cx-4', points: 100 });
    expect(unknown.status).toBeGreaterThanOrEqual(500);
    // Its code may be the live one: no other redemption may have a code sent until it lapses.
    expect((await s.pos('cashier', 1).post('/redemptions', { customerId: 'cx-4', points: 100 }).expect(409)).body.code).toBe(
      'otp_pending_for_another_redemption',
    );

    await s.seed('cx-5', 1000);
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'otp', status: 422, times: 1 }] })
      .expect(200);
    await s.pos('cashier', 0).post('/redemptions', { customerId: 'cx-5', points: 100 }).expect(422);
    const next = await s.pos('cashier', 1).post('/redemptions', { customerId: 'cx-5', points: 100 }).expect(201);
    await s
      .pos('cashier', 0)
      .post(`/redemptions/${next.body.id}/otp`, { otp: await s.otp('cx-5') })
      .expect(200);
  });

  it('a code that was never used stops blocking new starts when it lapses', async () => {
    await s.seed('cx-3', 1000);
    const stale = await s.pos('cashier', 0).post('/redemptions', { customerId: 'cx-3', points: 100 }).expect(201);
    await s.pos('cashier', 1).post('/redemptions', { customerId: 'cx-3', points: 100 }).expect(409);
    await s.advance(5 * 60_000 + 1000);
    const fresh = await s.pos('cashier', 1).post('/redemptions', { customerId: 'cx-3', points: 200 }).expect(201);
    expect(
      (
        await s
          .pos('cashier', 0)
          .post(`/redemptions/${stale.body.id}/otp`, { otp: await s.otp('cx-3') })
          .expect(409)
      ).body.code,
    ).toBe('otp_not_for_this_redemption');
    await s
      .pos('cashier', 1)
      .post(`/redemptions/${fresh.body.id}/otp`, { otp: await s.otp('cx-3') })
      .expect(200);
    expect((await s.balance('cx-3')).availablePointsBalance).toBe(800);
  });
});

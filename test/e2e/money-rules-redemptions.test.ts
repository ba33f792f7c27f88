import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { activity, setFaults } from '../pos/outbox/stack-helpers';
import { HOLD_MS, heldRedemption } from './helpers';

/**
 * Money rules of the redemption path, one `describe` each, driven over HTTP
 * against the sandbox with one Redis. Each fails when its rule's line is
 * broken (the mutation each was checked with is in the rule's comment).
 */
const env = {
  LOYALTY_TIMEOUT_MS: '5000',
  LOYALTY_RETRIES: '0',
  BREAKER_FAILURE_THRESHOLD: '10000',
  MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0',
  // The tracked end stays the estimate: what rule 1 is about.
  HOLD_EXPIRY_LOOKUP: 'off',
  OTP_CODE_MINUTES: '1',
};

let s: Stack;
beforeAll(async () => {
  s = await startStack({ store: 'redis', env });
});
afterAll(async () => {
  await s?.close();
});
afterEach(async () => {
  await setFaults(s, []);
});

const stateOf = async (id: string) => (await s.pos('cashier').get(`/redemptions/${id}`).expect(200)).body.state as string;

describe("a hold's expiry is estimated from its request, not its answer", () => {
  it('a hold answered 2 s late is tracked to end one hold period after it was asked for', async () => {
    await s.seed('mr1-1', 500);
    const hash = await s.hash('mr1-1');
    await setFaults(s, [{ operation: 'hold', latencyMs: 2000, times: 1 }]);
    const askedAt = Date.now();
    const res = await s.pos('cashier').post('/redemptions', { customerId: 'mr1-1', hash, points: 100 }).expect(201);
    const answeredAt = Date.now();
    expect(answeredAt - askedAt).toBeGreaterThanOrEqual(2000);
    const expiresAt = Date.parse(res.body.expiresAt);
    // The hold was made somewhere between the ask and the answer: an estimate from the answer could end after it.
    // The 2 s passed after the BFF asked, so its ask was at least 2 s before this answer came.
    expect(expiresAt).toBeGreaterThanOrEqual(askedAt + HOLD_MS);
    expect(expiresAt).toBeLessThanOrEqual(answeredAt - 2000 + HOLD_MS);
  });
});

describe('an OTP is bound to its redemption, not only to the points asked', () => {
  beforeAll(async () => {
    await s.setAccount({ otpEnabled: true });
  });
  afterAll(async () => {
    await s.setAccount({ otpEnabled: false });
  });

  it("the code sent for a later redemption of the same points does not place an earlier one's hold", async () => {
    await s.seed('mr2-1', 1000);
    const first = await s.pos('cashier').post('/redemptions', { customerId: 'mr2-1', points: 100 }).expect(201);
    expect(first.body.state).toBe('otp_required');
    // The first code lapses unused (OTP_CODE_MINUTES=1); a second redemption of the very same points has one sent.
    await s.advance(61_000);
    const second = await s.pos('cashier').post('/redemptions', { customerId: 'mr2-1', points: 100 }).expect(201);
    expect(second.body.state).toBe('otp_required');
    const code = await s.otp('mr2-1');

    const crossed = await s.pos('cashier').post(`/redemptions/${first.body.id}/otp`, { otp: code });
    expect([crossed.status, crossed.body.code]).toEqual([409, 'otp_not_for_this_redemption']);
    expect(await stateOf(first.body.id)).toBe('otp_required');
    expect(await s.balance('mr2-1')).toMatchObject({ availablePointsBalance: 1000, heldPoints: 0 });

    // The code places the hold it was sent for.
    await s.pos('cashier').post(`/redemptions/${second.body.id}/otp`, { otp: code }).expect(200);
    expect(await s.balance('mr2-1')).toMatchObject({ heldPoints: 100 });
  });
});

describe('a void whose release is refused because a payment used the hold is not recorded voided', () => {
  it('ends redeemed, and the till hears the hold was used', async () => {
    const r = await heldRedemption(s, 'mr3-1', 100, { seed: 500 });
    // A payment this BFF never heard of uses the hold (another system, or an answer lost before it was recorded).
    const held = (await activity(s, 'mr3-1')).find((a) => a.type === 'Points Held');
    const holdReference = String(held?.properties.holdReference);
    await s.sandboxAdmin
      .post('/api/v4.0/integrations/payments')
      .set(SANDBOX_KEYS)
      .send({
        customerId: 'mr3-1',
        paymentId: 'mr3-sale',
        paymentDate: new Date().toISOString(),
        totalPaid: 20,
        redemption: { pointsHoldReference: holdReference },
      })
      .expect((res) => expect(res.status).toBeLessThan(300));

    const voided = await s.pos('cashier').post(`/redemptions/${r.id}/void`);
    expect([voided.status, voided.body.code]).toEqual([409, 'redemption_used']);
    expect(await stateOf(r.id)).toBe('redeemed');
  });
});

describe('the claim step frees the claims it took when a later one is refused', () => {
  it('a payment refused at its sale id leaves the redemption it claimed held, and payable', async () => {
    await s.seed('mr9-other', 0);
    await s.pos('otherCashier').post('/payments', { customerId: 'mr9-other', paymentId: 'mr9-taken', totalPaid: 10 }).expect(201);
    const r = await heldRedemption(s, 'mr9-1', 100, { seed: 500 });
    // The redemption is claimed first, then the sale id, which another store has.
    const refused = await s.pos('cashier').post('/payments', { customerId: 'mr9-1', paymentId: 'mr9-taken', totalPaid: 20, redemptionId: r.id });
    expect([refused.status, refused.body.code]).toEqual([409, 'payment_id_taken']);
    expect(await stateOf(r.id)).toBe('held');
    const paid = await s.pos('cashier').post('/payments', { customerId: 'mr9-1', paymentId: 'mr9-sale', totalPaid: 20, redemptionId: r.id }).expect(201);
    expect(paid.body.redemption).toEqual({ id: r.id, state: 'redeemed' });
  });
});

describe('an upstream 500 is never read as a definite refusal', () => {
  it('a payment answered 500 is "send the same request again", and its redemption stays claimed', async () => {
    const r = await heldRedemption(s, 'mr11-1', 100, { seed: 500 });
    await setFaults(s, [{ operation: 'payment', status: 500, times: 1 }]);
    const res = await s.pos('cashier').post('/payments', { customerId: 'mr11-1', paymentId: 'mr11-sale', totalPaid: 20, redemptionId: r.id });
    expect([res.status, res.body.code]).toEqual([503, 'retry_same_request']);
    expect(await stateOf(r.id)).toBe('paying');
  });
});

import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { setFaults } from '../pos/outbox/stack-helpers';
import { expiredCount, waitFor } from './helpers';

/**
 * A redemption answers after the hold alone: the hold lookup that learns the
 * hold's end runs after the answer and corrects the tracked expiry
 * (HOLD_EXPIRY_LOOKUP, src/pos/redemptions/hold-period.ts).
 */
const MIN = 60_000;
/** The sandbox account's hold period in these tests; the BFF is told 10 minutes (HOLD_PERIOD_MINUTES). */
const ACCOUNT_HOLD_MIN = 3;

/** How many hold lookups reached the sandbox (the fault rule's `applied` counter). */
async function lookupsSeen(s: Stack): Promise<number> {
  const res = await s.sandboxAdmin.get('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  return (res.body.rules as { operation: string; applied: number }[]).find((r) => r.operation === 'holdLookup')?.applied ?? 0;
}

/** Starts a redemption of 100 points; the view and when it was sent and answered (wall clock). */
async function redeem(s: Stack, customerId: string) {
  await s.seed(customerId, 1000);
  const sentAt = Date.now();
  const res = await s.pos('cashier').post('/redemptions', { customerId, points: 100 });
  const answeredAt = Date.now();
  if (res.status !== 201) throw new Error(`redemption for ${customerId}: ${res.status} ${res.text}`);
  return { id: res.body.id as string, expiresAt: Date.parse(res.body.expiresAt), sentAt, answeredAt, ms: answeredAt - sentAt };
}

async function trackedExpiry(s: Stack, id: string): Promise<number> {
  const res = await s.pos('cashier').get(`/redemptions/${id}`).expect(200);
  return Date.parse(res.body.expiresAt);
}

describe.each(['redis', 'memory'] as const)('a redemption waits for one upstream round trip (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { holdPeriodMinutes: ACCOUNT_HOLD_MIN }, env: { HOLD_PERIOD_MINUTES: '10' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers without waiting for a 2 s hold lookup, then corrects the tracked expiry and learns the hold period', async () => {
    await setFaults(s, [{ operation: 'holdLookup', latencyMs: 2000 }]);

    // First redemption: the BFF has not seen a lookup yet, so the estimate is HOLD_PERIOD_MINUTES.
    const first = await redeem(s, 'rt-1');
    expect(first.ms).toBeLessThan(1000);
    expect(first.expiresAt).toBeGreaterThanOrEqual(first.sentAt + 10 * MIN - 1000);
    expect(first.expiresAt).toBeLessThanOrEqual(first.answeredAt + 10 * MIN);

    // Once the lookup answers, the tracked expiry is the account's real one: 3 minutes after the hold.
    await waitFor('the tracked expiry to be corrected', async () => (await trackedExpiry(s, first.id)) < first.sentAt + 5 * MIN);
    const corrected = await trackedExpiry(s, first.id);
    expect(corrected).toBeGreaterThanOrEqual(first.sentAt + ACCOUNT_HOLD_MIN * MIN);
    expect(corrected).toBeLessThanOrEqual(first.answeredAt + ACCOUNT_HOLD_MIN * MIN);

    // Second redemption: estimated from the period learned, never later than the hold's real end.
    const second = await redeem(s, 'rt-2');
    expect(second.ms).toBeLessThan(1000);
    expect(second.expiresAt).toBeGreaterThanOrEqual(second.sentAt + ACCOUNT_HOLD_MIN * MIN - 1000);
    expect(second.expiresAt).toBeLessThanOrEqual(second.answeredAt + ACCOUNT_HOLD_MIN * MIN);
    await waitFor('the second lookup to reach the sandbox', async () => (await lookupsSeen(s)) >= 2);
    await new Promise((done) => setTimeout(done, 2500));
    const confirmed = await trackedExpiry(s, second.id);
    expect(confirmed).toBeGreaterThanOrEqual(second.expiresAt);
    expect(confirmed).toBeGreaterThanOrEqual(second.sentAt + ACCOUNT_HOLD_MIN * MIN);
    expect(confirmed).toBeLessThanOrEqual(second.answeredAt + ACCOUNT_HOLD_MIN * MIN);
    await setFaults(s, []);

    // The sweeper acts on the corrected expiry (the estimate said 10 minutes).
    const before = expiredCount(s);
    await s.advance(ACCOUNT_HOLD_MIN * MIN + 1000);
    await waitFor('the sweeper to expire the holds at their real end', () => expiredCount(s) >= before + 2);
    for (const id of [first.id, second.id]) expect((await s.pos('cashier').get(`/redemptions/${id}`).expect(200)).body.state).toBe('expired');
  });
});

describe('HOLD_EXPIRY_LOOKUP', () => {
  it('before_answer: the answer waits for the lookup and carries the exact expiry', async () => {
    const s = await startStack({
      store: 'redis',
      account: { holdPeriodMinutes: ACCOUNT_HOLD_MIN },
      env: { HOLD_PERIOD_MINUTES: '10', HOLD_EXPIRY_LOOKUP: 'before_answer' },
    });
    try {
      await setFaults(s, [{ operation: 'holdLookup', latencyMs: 600 }]);
      const r = await redeem(s, 'rt-before');
      expect(r.ms).toBeGreaterThanOrEqual(600);
      expect(r.expiresAt).toBeGreaterThanOrEqual(r.sentAt + ACCOUNT_HOLD_MIN * MIN);
      expect(r.expiresAt).toBeLessThanOrEqual(r.answeredAt + ACCOUNT_HOLD_MIN * MIN);
      expect(await lookupsSeen(s)).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('off: no lookup is sent; the expiry is HOLD_PERIOD_MINUTES after the hold was asked for', async () => {
    const s = await startStack({ store: 'redis', env: { HOLD_PERIOD_MINUTES: '7', HOLD_EXPIRY_LOOKUP: 'off' } });
    try {
      await setFaults(s, [{ operation: 'holdLookup', latencyMs: 1 }]);
      const r = await redeem(s, 'rt-off');
      expect(r.expiresAt).toBeGreaterThanOrEqual(r.sentAt + 7 * MIN - 1000);
      expect(r.expiresAt).toBeLessThanOrEqual(r.answeredAt + 7 * MIN);
      await new Promise((done) => setTimeout(done, 300));
      expect(await lookupsSeen(s)).toBe(0);
      expect(await trackedExpiry(s, r.id)).toBe(r.expiresAt);
    } finally {
      await s.close();
    }
  });
});

import { startStack, Stack } from '../support/e2e';
import { expectNoSecrets, expiredCount, heldRedemption, PAST_HOLD_MS, waitFor } from './helpers';

/**
 * Two BFF instances share one Redis. Holds placed through either expire
 * exactly once: one sweeper claims each, none is counted or logged twice.
 */
describe('hold expiry with two BFF instances on one Redis', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2 });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('sees one redemption from both instances (shared store)', async () => {
    const r = await heldRedemption(s, 'shared-1', 100, { seed: 200, instance: 0 });
    expect((await s.pos('cashier', 1).get(`/redemptions/${r.id}`).expect(200)).body.state).toBe('held');
    await s.pos('cashier', 1).post(`/redemptions/${r.id}/void`).expect(200);
    expect((await s.pos('cashier', 0).get(`/redemptions/${r.id}`).expect(200)).body.state).toBe('voided');
    expect((await s.balance('shared-1')).availablePointsBalance).toBe(200);
  });

  it('expires every hold exactly once across both sweepers', async () => {
    const HOLDS = 8;
    const ids: string[] = [];
    for (let i = 0; i < HOLDS; i++) ids.push((await heldRedemption(s, `sweep-${i}`, 50, { seed: 100, instance: i % 2 })).id);
    expect(await s.bffs[0].deps.redemptions.countOpen()).toBe(HOLDS);
    const before = expiredCount(s);
    expect(before).toBe(0);

    await s.advance(PAST_HOLD_MS);
    // Race the two instances head on (on top of their timers): each claim still goes to one of them.
    const claimed = await Promise.all([...s.bffs, ...s.bffs].map((b) => b.sweeper.sweepOnce()));
    expect(claimed.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(HOLDS);
    await waitFor('both sweepers to expire every hold', async () => expiredCount(s) >= HOLDS && (await s.bffs[0].deps.redemptions.countOpen()) === 0);
    // A couple more sweeper intervals: nothing is expired a second time.
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(expiredCount(s)).toBe(HOLDS);

    const expiredLines = s.logs.filter((l) => l.includes('"msg":"hold expired"'));
    const loggedIds = expiredLines.map((l) => JSON.parse(l).redemptionId as string);
    expect(loggedIds.sort()).toEqual([...ids].sort());
    for (const l of expiredLines) expect(JSON.parse(l).via).toBe('sweep');

    for (const [i, id] of ids.entries()) {
      const res = await s
        .pos('cashier', (i + 1) % 2)
        .get(`/redemptions/${id}`)
        .expect(200);
      expect(res.body).toMatchObject({ id, state: 'expired', secondsLeft: 0 });
      const pay = await s
        .pos('cashier', i % 2)
        .post('/payments', { customerId: `sweep-${i}`, paymentId: `sweep-pay-${i}`, totalPaid: 20, redemptionId: id })
        .expect(409);
      expect(pay.body.code).toBe('redemption_not_held');
      expect(await s.balance(`sweep-${i}`)).toMatchObject({ availablePointsBalance: 100, heldPoints: 0 });
    }
    // Reads of expired records expire nothing more.
    expect(expiredCount(s)).toBe(HOLDS);
  });

  it('keeps the secret key and every terminal token out of responses and logs', () => expectNoSecrets(s));
});

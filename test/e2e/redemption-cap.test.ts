import { editStore } from '../../src/pos/terminals/operations';
import { startStack, Stack } from '../support/e2e';
import { expiredCount, PAST_HOLD_MS, waitFor } from './helpers';

/**
 * REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY over real HTTP, two BFF instances on
 * one Redis: the points a customer has held or redeemed today count across
 * instances and stores; a start that would go over is refused before anything
 * is sent upstream; a void and an expiry give the points back; a store's own
 * cap in the terminals file overrides the setting (0: none there).
 */
describe('the redemption cap (two instances, one Redis)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, env: { REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '500' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const start = async (role: 'cashier' | 'otherCashier', customerId: string, points: number, instance = 0) =>
    s
      .pos(role, instance)
      .post('/redemptions', { customerId, hash: await s.hash(customerId), points })
      .set('X-Cashier-Id', 'cap-c1');
  /** Every request the stack sent upstream naming this customer. */
  const sentFor = (customerId: string) =>
    s.sentUpstream().filter((x) => JSON.stringify(x.body ?? '').includes(`"${customerId}"`) || x.path.includes(customerId)).length;

  it('counts across instances, refuses over it before sending anything, and gives back what is voided or expires', async () => {
    await s.seed('cap-a', 5000);
    const first = await start('cashier', 'cap-a', 300, 0);
    expect(first.status).toBe(201);

    const before = sentFor('cap-a');
    const over = await start('cashier', 'cap-a', 300, 1);
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'redemption_cap_reached', capPoints: 500, usedPoints: 300, pointsLeft: 200 });
    // Nothing asked of the loyalty service for the refused start.
    expect(sentFor('cap-a')).toBe(before);
    expect((await s.balance('cap-a')).availablePointsBalance).toBe(4700);

    // Up to the cap exactly is fine, on the other instance.
    const rest = await start('cashier', 'cap-a', 200, 1);
    expect(rest.status).toBe(201);
    expect((await start('cashier', 'cap-a', 1, 0)).body.code).toBe('redemption_cap_reached');

    // A void gives its points back.
    await s.pos('cashier', 0).post(`/redemptions/${first.body.id}/void`).expect(200);
    expect((await start('cashier', 'cap-a', 300, 1)).status).toBe(201);

    // An expiry gives its points back (the sweep of either instance).
    await s.advance(PAST_HOLD_MS);
    await waitFor('both holds expired', () => expiredCount(s) >= 2, 10_000);
    expect((await start('cashier', 'cap-a', 500, 0)).status).toBe(201);
  });

  it("a store's own cap overrides the setting, and the customer's day is counted across the stores", async () => {
    editStore(s.terminalsFile, 'store-002', { redemptionCapPointsPerCustomerDay: 100 });
    await s.restart(0);
    await s.restart(1);
    await s.seed('cap-b', 5000);
    const tooMany = await start('otherCashier', 'cap-b', 150, 1);
    expect(tooMany.status).toBe(409);
    expect(tooMany.body).toMatchObject({ code: 'redemption_cap_reached', capPoints: 100, pointsLeft: 100 });
    expect((await start('otherCashier', 'cap-b', 100, 1)).status).toBe(201);
    // At store-001 the setting's 500 applies, to the customer's whole day.
    expect((await start('cashier', 'cap-b', 400, 0)).status).toBe(201);
    expect((await start('cashier', 'cap-b', 1, 1)).body).toMatchObject({ code: 'redemption_cap_reached', usedPoints: 500 });

    // 0 at a store: no cap there.
    editStore(s.terminalsFile, 'store-002', { redemptionCapPointsPerCustomerDay: 0 });
    await s.restart(0);
    await s.restart(1);
    expect((await start('otherCashier', 'cap-b', 700, 0)).status).toBe(201);
  });
});

describe('the redemption cap at the OTP step', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', account: { otpEnabled: true }, env: { REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '500' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('counts the points when the code places the hold, and refuses it then when the day is full', async () => {
    await s.seed('cap-otp', 5000);
    const a = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'cap-otp', hash: await s.hash('cap-otp'), points: 300 })
      .expect(201);
    expect(a.body.state).toBe('otp_required');
    // The cap lowered meanwhile (an operator's restart): the code would now place more than the day allows.
    await s.restart(0, { REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '200' });
    const code = await s.otp('cap-otp');
    const refused = await s.pos('cashier').post(`/redemptions/${a.body.id}/otp`, { otp: code });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'redemption_cap_reached', capPoints: 200, usedPoints: 0, pointsLeft: 200 });
    expect((await s.pos('cashier').get(`/redemptions/${a.body.id}`).expect(200)).body.state).toBe('otp_required');

    // Room again: the same code places the hold, and its points count.
    await s.restart(0, { REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '500' });
    const held = await s.pos('cashier').post(`/redemptions/${a.body.id}/otp`, { otp: code });
    expect([held.status, held.body.code]).toEqual([200, undefined]);
    expect(held.body).toMatchObject({ state: 'held', points: 300 });
    await s.setAccount({ otpEnabled: false });
    const typed = await s.pos('cashier').post('/redemptions', { customerId: 'cap-otp', points: 300 });
    expect(typed.body).toMatchObject({ code: 'redemption_cap_reached', usedPoints: 300 });
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'cap-otp', points: 200 })).status).toBe(201);

    // The starts' audit entries say how the customer was shown present: the hash from their app, then typed ids alone (REDEMPTION_PROOF=none).
    await s.bff.deps.audit?.flush();
    const audit = await s.pos('manager').get('/audit?customerId=cap-otp&action=redemption_start').expect(200);
    expect(audit.body.entries.map((e: { proof?: string }) => e.proof)).toEqual(['hash', 'none', 'none']);
  });
});

describe('the redemption cap without Redis (one instance, process memory)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '500' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('counts, refuses over it and gives back what is voided', async () => {
    await s.seed('cap-m', 5000);
    const first = await s.pos('cashier').post('/redemptions', { customerId: 'cap-m', points: 300 }).expect(201);
    expect((await s.pos('otherCashier').post('/redemptions', { customerId: 'cap-m', points: 201 })).body).toMatchObject({
      code: 'redemption_cap_reached',
      pointsLeft: 200,
    });
    await s.pos('cashier').post(`/redemptions/${first.body.id}/void`).expect(200);
    await s.pos('otherCashier').post('/redemptions', { customerId: 'cap-m', points: 500 }).expect(201);
  });
});

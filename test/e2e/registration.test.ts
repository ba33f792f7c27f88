import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/**
 * Go-live checklist: "customer registration flow is tested", "customer profiles
 * update correctly when called multiple times", and test case 1 "verify the
 * customer profile is created". A till registers a customer with
 * `PUT /customers/:id`; the BFF creates the loyalty profile through the
 * published get-or-create `POST /customers`, over real HTTP to the sandbox.
 */
describe.each(['memory', 'redis'] as const)('customer registration at the till (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  const activity = async (customerId: string) =>
    (await s.sandboxAdmin.get(`/_sandbox/customers/${customerId}/activity`).set(SANDBOX_KEYS).expect(200)).body.activity as {
      type: string;
      properties: Record<string, unknown>;
    }[];

  it('creates the profile of a new customer: visible in the loyalty service and in the customer summary', async () => {
    await s.pos('cashier').get('/customers/reg-nour').expect(404);
    const profile = { displayName: 'Nour Hassan', firstName: 'Nour', lastName: 'Hassan', email: 'nour.hassan@example.com', dateOfBirth: '1990-04-12' };
    const res = await s.pos('cashier').put('/customers/reg-nour', profile).expect(200);
    expect(res.body).toEqual({ customerId: 'reg-nour', outcome: 'created', loyaltyId: expect.stringMatching(/^[0-9]+$/), profile });
    // The loyalty service has the profile, with the fields the till collected.
    const seen = await activity('reg-nour');
    expect(seen.map((a) => a.type)).toEqual(['Profile Created']);
    expect(seen[0].properties).toMatchObject({ displayName: 'Nour Hassan', email: 'nour.hassan@example.com', dateOfBirth: '1990-04-12', channel: 'pos' });
    const summary = await s.pos('cashier').get('/customers/reg-nour').expect(200);
    expect(summary.body.points.available).toBe(0);
    expect(s.upstreamViolations()).toEqual([]);
  });

  it('called again with changed fields, updates the one profile: no duplicate, points kept', async () => {
    const first = await s.pos('cashier').put('/customers/reg-omar', { firstName: 'Omar', email: 'omar@example.com' }).expect(200);
    await s.pos('cashier').post('/payments', { customerId: 'reg-omar', paymentId: 'reg-sale-1', totalPaid: 70 }).expect(201);
    const second = await s.pos('manager').put('/customers/reg-omar', { firstName: 'Omar', lastName: 'Farouk', mobile: '+201001112223' }).expect(200);
    expect(second.body).toMatchObject({ customerId: 'reg-omar', outcome: 'updated' });
    expect(second.body.loyaltyId).toBe(first.body.loyaltyId);
    // A third, identical call changes nothing more and is still an update.
    const third = await s.pos('cashier').put('/customers/reg-omar', { firstName: 'Omar', lastName: 'Farouk', mobile: '+201001112223' }).expect(200);
    expect([third.body.outcome, third.body.loyaltyId]).toEqual(['updated', first.body.loyaltyId]);
    const other = await s.pos('cashier').put('/customers/reg-other', { firstName: 'Other' }).expect(200);
    expect(other.body.loyaltyId).not.toBe(first.body.loyaltyId);

    const profileChanges = (await activity('reg-omar')).filter((a) => a.type.startsWith('Profile'));
    expect(profileChanges.map((a) => [a.type, a.properties.lastName ?? null])).toEqual([
      ['Profile Created', null],
      ['Profile Updated', 'Farouk'],
      ['Profile Updated', 'Farouk'],
    ]);
    expect((await s.pos('cashier').get('/customers/reg-omar').expect(200)).body.points.available).toBe(70);
  });

  it('bad input is 400 naming the field, and creates nothing', async () => {
    const badEmail = await s.pos('cashier').put('/customers/reg-bad', { email: 'not-an-email' }).expect(400);
    expect(badEmail.body.code).toBe('validation_failed');
    expect(badEmail.body.errors.map((e: { path: string }) => e.path)).toEqual(['email']);
    const unknown = await s.pos('cashier').put('/customers/reg-bad', { nickname: 'x' }).expect(400);
    expect(JSON.stringify(unknown.body.errors)).toContain('nickname');
    const badDate = await s.pos('cashier').put('/customers/reg-bad', { dateOfBirth: '12/04/1990' }).expect(400);
    expect(badDate.body.errors.map((e: { path: string }) => e.path)).toEqual(['dateOfBirth']);
    await s.sandboxAdmin.get('/_sandbox/customers/reg-bad/activity').set(SANDBOX_KEYS).expect(404);
  });

  it('a kiosk may not register customers (403), and nothing is created', async () => {
    const res = await s.pos('kiosk').put('/customers/reg-kiosk', { firstName: 'K' }).expect(403);
    expect(res.body.code).toBeDefined();
    await s.sandboxAdmin.get('/_sandbox/customers/reg-kiosk/activity').set(SANDBOX_KEYS).expect(404);
  });
});

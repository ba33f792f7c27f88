import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/**
 * Go-live checklist, "customer identification works with both mobile and email":
 * an account that merges a customer's channels (an online id and a till id) by
 * email or mobile needs that field on every customer request. The till's field
 * must reach the loyalty service on each route that carries it, and a request
 * without it must come back as a clear 4xx naming the field, changing nothing.
 * (The customer summary is three GET reads by customer id: the published
 * reference gives them no email or mobile, so the till sends none there.)
 * The service then joins a customer's ids: activity under either id lands on one profile.
 */

describe.each(['memory', 'redis'] as const)('channel merging (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { channelMerging: 'email' } });
  });
  afterAll(async () => {
    await s?.close();
  });
  const bodiesTo = (method: string, path: RegExp, since: number) =>
    s
      .sentUpstream()
      .slice(since)
      .filter((e) => e.method.toUpperCase() === method && path.test(e.path))
      .map((e) => e.body as Record<string, unknown>);

  const EMAIL = 'alex.jones@example.com';
  const MOBILE = '+201001234567';
  const seed = async (customerId: string, points: number, contact: { email?: string; mobile?: string }) => {
    const res = await s.sandboxAdmin
      .post('/_sandbox/customers')
      .set(SANDBOX_KEYS)
      .send({ customerId, points, ...contact });
    expect(res.status).toBeLessThan(300);
  };
  const activity = async (customerId: string) =>
    (await s.sandboxAdmin.get(`/_sandbox/customers/${customerId}/activity`).set(SANDBOX_KEYS).expect(200)).body.activity as {
      type: string;
      properties: Record<string, unknown>;
    }[];
  const expectFieldRequired = (res: { status: number; body: { code: string; errors?: { path: string }[]; detail: string } }, field: string) => {
    expect([res.status, res.body.code]).toEqual([422, 'channel_field_required']);
    expect(res.body.errors).toEqual([{ path: field, message: expect.stringContaining(field) }]);
    expect(res.body.detail).toContain(`send the customer's ${field}`);
  };

  it("email merging: the till's email reaches the service on redemption, payment, refund, events and coupons", async () => {
    await seed('pos-alex', 1000, { email: EMAIL });
    const since = s.sentUpstream().length;
    // The customer summary needs no email (GET reads by id).
    expect((await s.pos('cashier').get('/customers/pos-alex').expect(200)).body.points.available).toBe(1000);

    const hash = await s.hash('pos-alex');
    const r = await s.pos('cashier').post('/redemptions', { customerId: 'pos-alex', hash, points: 100, email: EMAIL }).expect(201);
    expect(r.body.state).toBe('held');
    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId: 'pos-alex', paymentId: 'cm-sale-1', totalPaid: 90, totalAmount: 100, redemptionId: r.body.id, email: EMAIL })
      .expect(201);
    expect(pay.body).toMatchObject({ pointsRedeemed: 100, pointsEarned: 90 });
    await s.pos('manager').post('/refunds', { customerId: 'pos-alex', refundId: 'cm-ref-1', paymentId: 'cm-sale-1', amount: 45, email: EMAIL }).expect(201);
    await s
      .pos('cashier')
      .post('/events', { customerId: 'pos-alex', email: EMAIL, events: { store_visit: { aisle: 3 } } })
      .expect((res) => expect(res.status).toBeLessThan(300));
    const checked = await s
      .pos('cashier')
      .post('/coupons/validate', { customerId: 'pos-alex', codes: ['WELCOME10'], basketTotal: 50, email: EMAIL })
      .expect(200);
    expect(checked.body.coupons[0]).toMatchObject({ code: 'WELCOME10', usable: true });
    const lock = await s
      .pos('cashier')
      .post('/coupon-locks', { customerId: 'pos-alex', codes: ['WELCOME10'], basketTotal: 50, email: EMAIL })
      .expect(201);
    await s
      .pos('cashier')
      .post('/coupon-locks/' + lock.body.id + '/release')
      .expect((res) => expect(res.status).toBeLessThan(300));

    // What left the BFF: the email on every customer-scoped write.
    for (const [method, path] of [
      ['POST', /\/transactions\/hold$/],
      ['POST', /\/payments$/],
      ['POST', /\/transactions\/refund$/],
      ['POST', /\/events$/],
      ['POST', /\/coupons\/validate$/],
    ] as const) {
      const bodies = bodiesTo(method, path, since);
      expect([String(path), bodies.length > 0]).toEqual([String(path), true]);
      for (const b of bodies) expect([String(path), b.email]).toEqual([String(path), EMAIL]);
    }
    // What the service recorded: the payment and the refund under the till's id, with the email.
    const seen = await activity('pos-alex');
    expect(seen.find((a) => a.type === 'Payment Processed')?.properties).toMatchObject({ customerId: 'pos-alex', email: EMAIL });
    expect(seen.find((a) => a.type === 'Refund Processed')?.properties).toMatchObject({ customerId: 'pos-alex', email: EMAIL });
    expect(seen.map((a) => a.type)).toEqual(expect.arrayContaining(['Points Held', 'store_visit', 'Coupons Locked']));
  });

  it('email merging: two channel ids of one customer carry the same email, the field the service joins them by', async () => {
    // The online id's purchase reaches the service from another channel; the till's under its own id.
    await seed('web-alex', 0, { email: EMAIL });
    await s.pos('cashier').post('/payments', { customerId: 'web-alex', paymentId: 'cm-web-1', totalPaid: 20, email: EMAIL }).expect(201);
    await s.pos('cashier').post('/payments', { customerId: 'pos-alex', paymentId: 'cm-pos-2', totalPaid: 30, email: EMAIL }).expect(201);
    const joinedBy = async (id: string) => (await activity(id)).filter((a) => a.type === 'Payment Processed').map((a) => a.properties.email);
    expect(await joinedBy('web-alex')).toEqual([EMAIL]);
    const posSales = await joinedBy('pos-alex');
    expect(posSales.length).toBeGreaterThan(0);
    expect(posSales.every((e) => e === EMAIL)).toBe(true);
  });

  it('activity from two channel ids merges into one profile', async () => {
    const LINA = 'lina.k@example.com';
    // The web shop knows her as web-lina; she signs up at the till under the till's own id, with the same email.
    await seed('web-lina', 300, { email: LINA });
    const signUp = await s.pos('cashier').put('/customers/pos-lina', { displayName: 'Lina K', email: LINA }).expect(200);
    expect(signUp.body.customerId).toBe('pos-lina');
    // A sale online (web id) and one at the till (till id): both reach the one profile.
    await s.pos('cashier').post('/payments', { customerId: 'web-lina', paymentId: 'cm-lina-web', totalPaid: 40, email: LINA }).expect(201);
    await s.pos('cashier').post('/payments', { customerId: 'pos-lina', paymentId: 'cm-lina-pos', totalPaid: 60, email: LINA }).expect(201);
    const byTill = await s.pos('cashier').get('/customers/pos-lina').expect(200);
    const byWeb = await s.pos('cashier').get('/customers/web-lina').expect(200);
    expect([byTill.body.points.available, byWeb.body.points.available]).toEqual([400, 400]);
    const sales = (await activity('web-lina')).filter((a) => a.type === 'Payment Processed').map((a) => a.properties.customerId);
    expect(sales).toEqual(['web-lina', 'pos-lina']);
    expect((await activity('pos-lina')).map((a) => a.type)).toEqual((await activity('web-lina')).map((a) => a.type));
    // The till's id spends points earned online.
    const r = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'pos-lina', hash: await s.hash('pos-lina'), points: 350, email: LINA })
      .expect(201);
    expect(r.body.state).toBe('held');
    expect((await s.pos('cashier').get('/customers/web-lina').expect(200)).body.points.available).toBe(50);
  });

  it('email merging: a request without the email is 422 channel_field_required naming email, and changes nothing', async () => {
    await seed('pos-sam', 500, { email: 'sam@example.com' });
    const hash = await s.hash('pos-sam');
    expectFieldRequired(await s.pos('cashier').post('/redemptions', { customerId: 'pos-sam', hash, points: 100 }), 'email');
    expect((await s.balance('pos-sam')).availablePointsBalance).toBe(500);

    const held = await s.pos('cashier').post('/redemptions', { customerId: 'pos-sam', hash, points: 100, email: 'sam@example.com' }).expect(201);
    const sale = { customerId: 'pos-sam', paymentId: 'cm-sam-1', totalPaid: 40, redemptionId: held.body.id };
    expectFieldRequired(await s.pos('cashier').post('/payments', sale), 'email');
    // The refused payment left the redemption held and recorded nothing: the same sale with the email goes through.
    expect((await s.pos('cashier').get(`/redemptions/${held.body.id}`).expect(200)).body.state).toBe('held');
    expect((await activity('pos-sam')).some((a) => a.type === 'Payment Processed')).toBe(false);
    await s
      .pos('cashier')
      .post('/payments', { ...sale, email: 'sam@example.com' })
      .expect(201);
    expect((await s.balance('pos-sam')).availablePointsBalance).toBe(440);

    expectFieldRequired(await s.pos('manager').post('/refunds', { customerId: 'pos-sam', refundId: 'cm-sam-r', paymentId: 'cm-sam-1', amount: 10 }), 'email');
    expectFieldRequired(await s.pos('cashier').post('/events', { customerId: 'pos-sam', events: { store_visit: {} } }), 'email');
    expectFieldRequired(await s.pos('cashier').post('/coupon-locks', { customerId: 'pos-sam', codes: ['WELCOME10'], basketTotal: 50 }), 'email');
    // A mobile is not what this account joins by.
    expectFieldRequired(await s.pos('cashier').post('/events', { customerId: 'pos-sam', mobile: MOBILE, events: { store_visit: {} } }), 'email');
    expect((await s.balance('pos-sam')).availablePointsBalance).toBe(440);
  });

  it("mobile merging: the till's mobile reaches the service; without it, 422 naming mobile", async () => {
    await s.setAccount({ channelMerging: 'mobile' });
    try {
      await seed('pos-mo', 300, { mobile: MOBILE });
      const since = s.sentUpstream().length;
      const hash = await s.hash('pos-mo');
      expectFieldRequired(await s.pos('cashier').post('/redemptions', { customerId: 'pos-mo', hash, points: 50, email: EMAIL }), 'mobile');
      const r = await s.pos('cashier').post('/redemptions', { customerId: 'pos-mo', hash, points: 50, mobile: MOBILE }).expect(201);
      expectFieldRequired(
        await s.pos('cashier').post('/payments', { customerId: 'pos-mo', paymentId: 'cm-mo-1', totalPaid: 10, redemptionId: r.body.id }),
        'mobile',
      );
      await s
        .pos('cashier')
        .post('/payments', { customerId: 'pos-mo', paymentId: 'cm-mo-1', totalPaid: 10, redemptionId: r.body.id, mobile: MOBILE })
        .expect(201);
      expect(bodiesTo('POST', /\/transactions\/hold$/, since).map((b) => b.mobile)).toEqual([undefined, MOBILE]);
      expect((await activity('pos-mo')).find((a) => a.type === 'Payment Processed')?.properties).toMatchObject({ customerId: 'pos-mo', mobile: MOBILE });
      expect((await s.balance('pos-mo')).availablePointsBalance).toBe(260);
    } finally {
      await s.setAccount({ channelMerging: 'email' });
    }
  });
});

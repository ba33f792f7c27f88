import { localDate } from '../../src/pos/audit/store-day';
import { startStack, Stack } from '../support/e2e';

/**
 * A manager reads the audit trail of their own store, and only that: the same
 * question asked at the other store finds nothing, whatever the filter, and
 * the store cannot be named in the request. "Which cashier redeemed this
 * customer's points that day?" is one request.
 */
describe.each(['redis', 'memory'] as const)('the audit trail, store by store (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, env: { RETURNS_AT_ANY_BRANCH: 'true' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const anna = { 'X-Cashier-Id': 'anna-07', 'X-Shift-Id': 'am-1' };
  const omar = { 'X-Cashier-Id': 'omar-02', 'X-Shift-Id': 'pm-1' };

  it('answers "which cashier redeemed customer X\'s points that day" with one request, for its own store only', async () => {
    await s.seed('scope-x', 1000);
    const held = await s
      .pos('cashier')
      .post('/redemptions', { customerId: 'scope-x', hash: await s.hash('scope-x'), points: 300 })
      .set(anna)
      .expect(201);
    await s
      .pos('cashier')
      .post('/payments', { customerId: 'scope-x', paymentId: 'scope-sale-1', totalPaid: 70, totalAmount: 100, redemptionId: held.body.id })
      .set(anna)
      .expect(201);
    // The same customer at the other store, another cashier: a redemption voided.
    const other = await s
      .pos('otherCashier')
      .post('/redemptions', { customerId: 'scope-x', hash: await s.hash('scope-x'), points: 100 })
      .set(omar)
      .expect(201);
    await s.pos('otherCashier').post(`/redemptions/${other.body.id}/void`).set(omar).expect(200);
    await s.bff.deps.audit?.flush();

    const day = localDate(Date.now(), 'UTC');
    const ask = `/audit?date=${day}&customerId=scope-x&action=redemption_start,otp_step,payment`;
    const mine = await s.pos('manager').get(ask).expect(200);
    expect(mine.body.storeId).toBe('store-001');
    expect(
      mine.body.entries.map((e: { action: string; cashierId: string; shiftId: string; terminalId: string }) => [
        e.action,
        e.cashierId,
        e.shiftId,
        e.terminalId,
      ]),
    ).toEqual([
      ['redemption_start', 'anna-07', 'am-1', 'till-cashier'],
      ['payment', 'anna-07', 'am-1', 'till-cashier'],
    ]);
    expect(mine.body.entries[1]).toMatchObject({ paymentId: 'scope-sale-1', pointsRedeemed: 300, amountPaid: 70 });
    expect(mine.body.entries[0].holdReference).toBeUndefined();
    expect(mine.body.next).toBeNull();

    const theirs = await s.pos('otherManager').get(`/audit?date=${day}&customerId=scope-x`).expect(200);
    expect(theirs.body.storeId).toBe('store-002');
    expect(theirs.body.entries.map((e: { action: string; cashierId: string; storeId: string }) => [e.action, e.cashierId, e.storeId])).toEqual([
      ['redemption_start', 'omar-02', 'store-002'],
      ['redemption_void', 'omar-02', 'store-002'],
    ]);
    // Filters cannot reach across: store-001's cashier and sale are not there for store-002.
    expect((await s.pos('otherManager').get(`/audit?date=${day}&cashierId=anna-07`).expect(200)).body.entries).toEqual([]);
    expect((await s.pos('otherManager').get(`/audit?date=${day}&terminalId=till-cashier`).expect(200)).body.entries).toEqual([]);
  });

  it('takes no store in the request, and is for managers only', async () => {
    const named = await s.pos('otherManager').get('/audit?storeId=store-001').expect(400);
    expect(named.body).toMatchObject({ code: 'validation_failed' });
    expect(JSON.stringify(named.body.errors)).toContain('storeId');
    await s.pos('cashier').get('/audit').expect(403);
    await s.pos('kiosk').get('/audit').expect(403);
    await s.pos('cashier').get('/reconciliation').expect(403);
  });

  it('pages with a cursor, filters by action, and answers CSV', async () => {
    for (let i = 0; i < 5; i++) {
      await s.seed(`scope-page-${i}`, 0);
      await s
        .pos('cashier')
        .post('/payments', { customerId: `scope-page-${i}`, paymentId: `scope-page-${i}`, totalPaid: 10 + i })
        .set(anna)
        .expect(201);
    }
    await s.bff.deps.audit?.flush();
    const seen: string[] = [];
    let after: string | null | undefined;
    do {
      const page = await s
        .pos('manager')
        .get(`/audit?action=payment&limit=2&cashierId=anna-07${after ? `&after=${after}` : ''}`)
        .expect(200);
      seen.push(...page.body.entries.map((e: { paymentId: string }) => e.paymentId));
      after = page.body.next;
    } while (after);
    expect(seen).toEqual(['scope-sale-1', 'scope-page-0', 'scope-page-1', 'scope-page-2', 'scope-page-3', 'scope-page-4']);
    const csv = await s.pos('manager').get('/audit?action=payment&format=csv').expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^at,storeId,terminalId,cashierId,shiftId,action,outcome,/);
    expect(lines).toHaveLength(1 + 6);
    expect(lines.slice(1).every((l) => l.includes(',store-001,till-cashier,anna-07,am-1,payment,applied,'))).toBe(true);
  });

  it('refuses a bad filter with 400 naming it', async () => {
    for (const [query, field] of [
      ['action=payment,teleport', 'action'],
      ['date=2026-02-30', 'date'],
      ['from=2026-11-01T00:00:00Z&to=2026-12-15T00:00:00Z', 'to'],
      ['after=nope', 'after'],
      ['limit=0', 'limit'],
    ]) {
      const res = await s.pos('manager').get(`/audit?${query}`).expect(400);
      expect({ query, path: res.body.errors?.[0]?.path }).toEqual({ query, path: field });
    }
  });
});

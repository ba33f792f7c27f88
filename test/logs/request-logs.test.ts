import request from 'supertest';
import { heldRedemption } from '../e2e/helpers';
import { SANDBOX_KEYS, startStack, Stack, Tokens } from '../support/e2e';

type Line = Record<string, unknown> & { msg?: string; requestId?: string; req?: { id?: string }; instance?: number };

/**
 * A whole checkout through the BFF and the sandbox, then every log line both
 * wrote: no secret in any of them, and every BFF line of an authenticated
 * request names its terminal and store.
 */
describe('logs of an end-to-end checkout (redis store)', () => {
  let s: Stack;
  const sent = new Map<string, keyof Tokens>();
  let n = 0;
  /** A call with our own request id, remembered with the terminal that made it. */
  const call = <T extends request.Test>(role: keyof Tokens, t: T): T => {
    const id = `logs-test-${++n}`;
    sent.set(id, role);
    return t.set('X-Request-Id', id) as T;
  };

  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
    await s.seed('log-alice', 1000);
    await call('cashier', s.pos('cashier').get('/customers/log-alice')).expect(200);
    await call('kiosk', s.pos('kiosk').get('/customers/log-alice/hash')).expect(200);
    const r = await heldRedemption(s, 'log-alice', 200);
    await call('cashier', s.pos('cashier').get(`/redemptions/${r.id}`)).expect(200);
    await call(
      'cashier',
      s.pos('cashier').post('/payments', { customerId: 'log-alice', paymentId: 'log-sale-1', totalPaid: 80, totalAmount: 100, redemptionId: r.id }),
    ).expect(201);
    await call('cashier', s.pos('cashier').post('/payments', { customerId: 'log-alice', paymentId: 'log-sale-2', totalPaid: 10, redemptionId: r.id })).expect(
      409,
    );
    await call('manager', s.pos('manager').post('/refunds', { customerId: 'log-alice', refundId: 'log-ref-1', paymentId: 'log-sale-1' })).expect(201);
    await call('kiosk', s.pos('kiosk').post('/events', { customerId: 'log-alice', events: { store_visit: { floor: 2 } } })).expect(200);
    await call('otherCashier', s.pos('otherCashier').get(`/redemptions/${r.id}`)).expect(404);
    // Refused ones: the token must not be logged either.
    await request(s.bff.url).get('/pos/v1/customers/log-alice').set('Authorization', `Bearer ${s.tokens.revoked}`).expect(401);
    await request(s.bff.url).get('/pos/v1/customers/log-alice').set('Authorization', `Bearer ${s.tokens.cashier}x`).expect(401);
  });
  afterAll(async () => {
    await s?.close();
  });

  const parsed = (): Line[] => s.logs.map((l) => JSON.parse(l) as Line);

  it('holds neither the loyalty secret key nor any terminal token, anywhere', () => {
    const all = s.logs.join('\n');
    expect(s.logs.length).toBeGreaterThan(30);
    expect(all).not.toContain(SANDBOX_KEYS.secretkey);
    for (const token of Object.values(s.tokens)) {
      expect(all).not.toContain(token);
      // Not even the part after the prefix (a log line cut in the middle of one).
      expect(all).not.toContain(token.slice(8, 30));
    }
  });

  it('names the terminal and store on every BFF line of an authenticated request', () => {
    const ofOurs = parsed().filter((l) => l.instance !== undefined && sent.has(String(l.requestId ?? l.req?.id)));
    const messages = new Set(ofOurs.map((l) => l.msg));
    // The access lines and the upstream client's lines, at least.
    expect([...messages]).toEqual(expect.arrayContaining(['request completed', 'loyalty call']));
    expect(ofOurs.length).toBeGreaterThan(sent.size * 2);
    const stores: Partial<Record<keyof Tokens, string>> = { cashier: 'store-001', manager: 'store-001', kiosk: 'store-001', otherCashier: 'store-002' };
    const wrong = ofOurs.filter((l) => {
      const role = sent.get(String(l.requestId ?? l.req?.id))!;
      return l.terminalId !== s.terminalIds[role] || l.storeId !== stores[role];
    });
    expect(wrong).toEqual([]);
    // Each key once per line: the context is not repeated when a child logger already carries it.
    for (const raw of s.logs.filter((l) => l.includes('"instance"') && l.includes('logs-test-'))) {
      expect(raw.match(/"terminalId":/g)?.length ?? 0).toBeLessThanOrEqual(1);
    }
  });

  it('returns the request id to the till and passes it to the loyalty service', async () => {
    const res = await s.pos('cashier').get('/customers/log-alice').set('X-Request-Id', 'till-7:000123').expect(200);
    expect(res.headers['x-request-id']).toBe('till-7:000123');
    const upstreamSaw = parsed().filter((l) => l.instance === undefined && l.req?.id === 'till-7:000123');
    expect(upstreamSaw.length).toBeGreaterThanOrEqual(3); // balance, tier progress, coupons
    const invalid = await s.pos('cashier').get('/customers/log-alice').set('X-Request-Id', 'no spaces allowed').expect(200);
    expect(invalid.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes JSON lines with the request, its status and duration', () => {
    const done = parsed().find((l) => l.instance === 0 && l.msg === 'request completed' && l.req?.id === 'logs-test-1') as Line & {
      res: { statusCode: number };
      responseTime: number;
    };
    expect(done).toMatchObject({ level: 30, terminalId: s.terminalIds.cashier, storeId: 'store-001', role: 'cashier', res: { statusCode: 200 } });
    expect(done.responseTime).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(done.req)).not.toMatch(/authorization|headers/i);
  });
});

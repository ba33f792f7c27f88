import { readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { silentLogger } from '../../src/platform/logger';
import { connectRedis } from '../../src/platform/redis';
import { AuditTrail } from '../../src/pos/audit';
import { readAllAudit } from '../../src/pos/audit/query';
import { RedisAuditStore } from '../../src/pos/audit/redis-store';
import type { AuditEntry } from '../../src/pos/audit/types';
import { readTerminalsFile, writeTerminalsFile } from '../../src/pos/terminals/file';
import { isSaleSend, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { freePort } from '../support/ports';
import { waitFor } from './helpers';

const CASHIER = { 'X-Cashier-Id': 'cashier-017', 'X-Shift-Id': 'shift-2026-11-24-am' };

/**
 * Every cashier action that changes money or points leaves one audit entry in
 * its store's trail, with the cashier and shift the till named, its ids,
 * points and money, and its outcome; none holds a secret, token, hash, OTP or
 * contact detail. The cashier and shift also reach the loyalty service in the
 * payment's `extra`, and the logs.
 */
describe('audit trail of cashier actions (redis store)', () => {
  let s: Stack;
  const started = Date.now();
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { RETURNS_AT_ANY_BRANCH: 'true' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const till = (role: 'cashier' | 'manager' | 'otherManager' = 'cashier') => ({
    post: (p: string, body?: object) => s.pos(role).post(p, body).set(CASHIER),
    put: (p: string, body?: object) => s.pos(role).put(p, body).set(CASHIER),
    delete: (p: string) => s.pos(role).delete(p).set(CASHIER),
  });
  const entries = async (storeId = 'store-001'): Promise<AuditEntry[]> => {
    await s.bff.deps.audit?.flush();
    return readAllAudit(s.bff.deps.audit!.store, storeId, started, Date.now() + 1000);
  };

  const contact = { email: 'rania.private@example.com', mobile: '+201234567890' };

  it('records each action with its cashier, shift, ids, figures and outcome', async () => {
    await s.seed('aud-1', 1000);
    const hash = await s.hash('aud-1');
    const held = await till()
      .post('/redemptions', { customerId: 'aud-1', hash, points: 200, ...contact })
      .expect(201);
    const sale = { customerId: 'aud-1', paymentId: 'aud-sale-1', totalPaid: 130, totalAmount: 150, redemptionId: held.body.id, ...contact };
    const paid = await till().post('/payments', sale).expect(201);
    // The same redemption again: refused before anything is sent, and recorded as refused.
    await till()
      .post('/payments', { ...sale, paymentId: 'aud-sale-2' })
      .expect(409);
    await till('manager').post('/refunds', { customerId: 'aud-1', refundId: 'aud-refund-1', paymentId: 'aud-sale-1', amount: 65 }).expect(201);
    await till('manager').post('/payments/aud-sale-1/void', { customerId: 'aud-1' }).expect(200);
    await s.seed('aud-2', 0);
    const lock = await till()
      .post('/coupon-locks', { customerId: 'aud-2', codes: ['WELCOME10'], basketTotal: 50 })
      .expect(201);
    await till().post(`/coupon-locks/${lock.body.id}/release`).expect(200);
    const second = await till()
      .post('/redemptions', { customerId: 'aud-1', hash: await s.hash('aud-1'), points: 100 })
      .expect(201);
    await till().post(`/redemptions/${second.body.id}/void`).expect(200);
    await till()
      .put('/customers/aud-3', { displayName: 'Rania Private', firstName: 'Rania', ...contact })
      .expect(200);
    await till()
      .post('/events', { customerId: 'aud-3', events: { review_written: { stars: 5 } } })
      .expect(200);
    await till('manager').delete('/customers/aud-3').expect(200);

    const got = await entries();
    const line = (e: AuditEntry) => [e.action, e.outcome, e.code ?? ''].join(' ');
    expect(got.map(line)).toEqual([
      'redemption_start applied ',
      'payment applied ',
      'payment refused redemption_not_held',
      'refund applied ',
      'sale_void applied ',
      'coupon_lock applied ',
      'coupon_release applied ',
      'redemption_start applied ',
      'redemption_void applied ',
      'customer_registration applied created',
      'events applied ',
      'customer_deletion applied ',
    ]);
    for (const e of got) expect(e).toMatchObject({ storeId: 'store-001', cashierId: 'cashier-017', shiftId: 'shift-2026-11-24-am' });
    expect(got[0]).toMatchObject({ terminalId: 'till-cashier', customerId: 'aud-1', redemptionId: held.body.id, pointsHeld: 200, amountHeld: 20 });
    expect(got[0].holdReference).toEqual(expect.any(String));
    expect(got[1]).toMatchObject({
      paymentId: 'aud-sale-1',
      amountPaid: 130,
      pointsEarned: paid.body.pointsEarned,
      pointsRedeemed: 200,
      redemptionId: held.body.id,
    });
    expect(got[3]).toMatchObject({ terminalId: 'till-manager', refundId: 'aud-refund-1', paymentId: 'aud-sale-1', amountRefunded: 65 });
    expect(got[3].pointsTakenBack).toBeGreaterThan(0);
    expect(got[4]).toMatchObject({ refundId: 'void-aud-sale-1', paymentId: 'aud-sale-1' });
    expect(got[5]).toMatchObject({ customerId: 'aud-2', couponLockId: lock.body.id, names: ['WELCOME10'], couponWorth: 10 });
    // aud-3 was deleted, so her entries name her pseudonym (docs/operator/privacy.md).
    expect(got[10]).toMatchObject({ customerId: s.bff.deps.customerPseudonym('aud-3'), names: ['review_written'] });
    // Only store-001's tills acted: store-002's trail is empty.
    expect(await entries('store-002')).toEqual([]);
  });

  it('an OTP redemption: the code request, then the OTP step that holds the points', async () => {
    await s.setAccount({ otpEnabled: true });
    try {
      await s.seed('aud-otp', 500);
      const start = await till().post('/redemptions', { customerId: 'aud-otp', points: 150 }).expect(201);
      const otp = await s.otp('aud-otp');
      await till().post(`/redemptions/${start.body.id}/otp`, { otp }).expect(200);
      const mine = (await entries()).filter((e) => e.redemptionId === start.body.id);
      expect(mine.map((e) => [e.action, e.outcome, e.code, e.pointsHeld])).toEqual([
        ['redemption_start', 'applied', 'otp_sent', undefined],
        ['otp_step', 'applied', undefined, 150],
      ]);
      // The code itself is nowhere in the trail.
      expect(JSON.stringify(await entries())).not.toContain(otp);
    } finally {
      await s.setAccount({ otpEnabled: false });
    }
  });

  it('holds no secret, token, hash, OTP or contact detail (the raw stream, read from Redis)', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL as string);
    try {
      const raw = JSON.stringify(await redis.xrange(`${s.redisPrefix}audit:store-001`, '-', '+'));
      expect(raw).toContain('cashier-017');
      const secrets = [SANDBOX_KEYS.secretkey, SANDBOX_KEYS.apikey, ...Object.values(s.tokens), contact.email, contact.mobile, 'Rania', await s.hash('aud-1')];
      expect(secrets.filter((x) => raw.includes(x))).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it("passes the cashier and shift upstream in the payment's extra, never the customer's contact details there", () => {
    const payment = s.sentUpstream().find((x) => isSaleSend(x) && JSON.stringify(x.body).includes('"aud-sale-1"'));
    expect((payment?.body as { extra?: unknown }).extra).toEqual({ cashierId: 'cashier-017', shiftId: 'shift-2026-11-24-am' });
  });

  it('puts the cashier and shift on the log lines of the request', () => {
    const lines = s.logs.filter((l) => l.includes('"paymentId":"aud-sale-1"') || l.includes('aud-sale-1'));
    expect(lines.length).toBeGreaterThan(0);
    expect(s.logs.some((l) => l.includes('"cashierId":"cashier-017"') && l.includes('"shiftId":"shift-2026-11-24-am"'))).toBe(true);
  });

  it('refuses a bad X-Cashier-Id or X-Shift-Id with 400 naming the header; nothing is sent', async () => {
    for (const [header, value] of [
      ['X-Cashier-Id', 'anna@example.com'],
      ['X-Shift-Id', 'x'.repeat(65)],
      ['X-Cashier-Id', 'anna smith'],
    ]) {
      const res = await s.pos('cashier').post('/payments', { customerId: 'aud-1', paymentId: 'aud-bad', totalPaid: 10 }).set(header, value).expect(400);
      expect(res.body).toMatchObject({ code: 'cashier_header_invalid', errors: [{ path: header }] });
      expect(res.body.detail).toContain(header);
    }
    expect(s.sentUpstream().some((x) => isSaleSend(x) && JSON.stringify(x.body).includes('"aud-bad"'))).toBe(false);
  });

  it('an audit store that fails never fails the action: the sale stands, the failure is counted', async () => {
    const deps = s.bff.deps;
    const kept = deps.audit;
    const nowhere = connectRedis(`redis://127.0.0.1:${await freePort()}`, silentLogger, { retryMaxMs: 50 });
    deps.audit = new AuditTrail({
      store: new RedisAuditStore(nowhere, { prefix: 'x:', retentionMs: 1000 }),
      logger: deps.logger,
      clock: deps.clock,
      onFailure: (what) => deps.metrics.auditFailures.inc({ what }),
    });
    try {
      await s.seed('aud-4', 0);
      await till().post('/payments', { customerId: 'aud-4', paymentId: 'aud-sale-4', totalPaid: 40 }).expect(201);
      await waitFor('the failed write to be counted', async () => ((await deps.metrics.auditFailures.get()).values[0]?.value ?? 0) >= 1);
      expect((await s.balance('aud-4')).availablePointsBalance).toBe(40);
    } finally {
      await deps.audit.close().catch(() => undefined);
      deps.audit = kept;
      nowhere.disconnect();
    }
  });
});

describe('a store that requires the cashier and shift', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { CASHIER_ID_REQUIRED: 'true' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses a write without them (400 naming the missing header), not a read, not a kiosk; a store that says otherwise does not', async () => {
    await s.seed('req-1', 0);
    const missing = await s.pos('cashier').post('/payments', { customerId: 'req-1', paymentId: 'req-1', totalPaid: 10 }).set('X-Cashier-Id', 'c-1').expect(400);
    expect(missing.body).toMatchObject({ code: 'cashier_required', errors: [{ path: 'X-Shift-Id' }] });
    await s.pos('cashier').get('/customers/req-1').expect(200);
    await s
      .pos('kiosk')
      .post('/events', { customerId: 'req-1', events: { store_visit: {} } })
      .expect(200);
    await s.pos('cashier').post('/payments', { customerId: 'req-1', paymentId: 'req-1', totalPaid: 10 }).set(CASHIER).expect(201);

    // store-002 says it does not need them: the terminals file wins over CASHIER_ID_REQUIRED (reloaded within a second).
    const file = readTerminalsFile(s.terminalsFile)!;
    file.stores = file.stores.map((st) => (st.id === 'store-002' ? { ...st, requireCashier: false } : st));
    writeTerminalsFile(s.terminalsFile, file);
    expect(readFileSync(s.terminalsFile, 'utf8')).toContain('"requireCashier": false');
    await waitFor(
      'the registry to reload',
      async () => (await s.pos('otherCashier').post('/payments', { customerId: 'req-1', paymentId: 'req-2', totalPaid: 10 })).status === 201,
      5000,
    );
  });
});

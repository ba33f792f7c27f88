import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTerminalsFile, writeTerminalsFile } from '../../src/pos/terminals/file';
import { isSaleSend, SALE_OPERATION, SANDBOX_KEYS, startStack, type Stack } from '../support/e2e';
import { testRedis } from '../support/redis';
import { waitFor } from './helpers';

/**
 * Stand-in redemption over real HTTP and real Redis: the sandbox
 * answers 503 to everything until the BFF's circuit opens; then a customer
 * looked up a moment before spends points in stand-in, and the points are
 * redeemed once, and the sale recorded once, when the sandbox is back.
 */
jest.setTimeout(60_000);

const faults = (s: Stack, rules: object[]) => s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
const clear = (s: Stack) => s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The sandbox out (503 to everything) and this instance's circuit open, from reads of a customer nobody redeems for. */
async function outage(s: Stack, i = 0) {
  await faults(s, [{ operation: '*', status: 503 }]);
  for (let n = 0; n < 3; n++) await s.pos('cashier', i).get('/customers/nobody');
  const probe = await s.pos('cashier', i).get('/customers/nobody');
  expect(probe.body.code).toBe('upstream_circuit_open');
}

/** A customer given `points`, looked up at the store-001 cashier's till (their last known balance, for stand-in): their QR hash. */
async function seen(s: Stack, customerId: string, points: number): Promise<string> {
  await s.seed(customerId, points);
  await s.pos('cashier').get(`/customers/${customerId}`).expect(200);
  return s.hash(customerId);
}

/**
 * A customer with 200 points looked up, the service out, then 150 points stood in by `cashierId` on `shiftId`
 * and paid by sale `saleId` (202, queued): the stand-in's start answer.
 */
async function paidStandIn(s: Stack, customerId: string, who: { cashierId: string; shiftId: string; saleId: string }) {
  const hash = await seen(s, customerId, 200);
  await outage(s);
  const started = await s
    .pos('cashier')
    .post('/redemptions', { customerId, hash, points: 150 })
    .set('X-Cashier-Id', who.cashierId)
    .set('X-Shift-Id', who.shiftId)
    .expect(201);
  await s.pos('cashier').post('/payments', { customerId, paymentId: who.saleId, totalPaid: 5, totalDiscount: 15, redemptionId: started.body.id }).expect(202);
  return started;
}

describe('stand-in redemption while the loyalty service is out', () => {
  let s: Stack;
  const env = { STAND_IN: 'on', BREAKER_FAILURE_THRESHOLD: '2', BREAKER_HALF_OPEN_AFTER_MS: '1500', OUTBOX_POLL_INTERVAL_MS: '200' };

  afterEach(async () => {
    await s?.close();
  });

  it('accepts 100 points from a customer looked up a moment before, refuses 900, queues the sale; back, redeems exactly 100 once and records one sale', async () => {
    s = await startStack({ store: 'redis', env });
    await s.seed('si-1', 1000);
    await s.seed('si-2', 1000);
    const hash = await s.hash('si-1');
    await s.pos('cashier').get('/customers/si-1').expect(200);
    await outage(s);

    const started = await s.pos('cashier').post('/redemptions', { customerId: 'si-1', hash, points: 100 }).expect(201);
    expect(started.body).toMatchObject({ state: 'stand_in', points: 100, standIn: { points: 100, lastKnownBalance: 1000 } });
    expect(started.body.standIn.cashierMessage).toMatch(/STAND-IN/);

    // Over the customer's 300 a day: refused until a manager approves it (nothing moves meanwhile).
    const over = await s.pos('cashier').post('/redemptions', { customerId: 'si-1', hash, points: 900 });
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('stand_in_needs_approval');

    // A customer nobody looked up is not stood in for.
    const unseen = await s.pos('cashier').post('/redemptions', { customerId: 'si-2', hash: await s.hash('si-2').catch(() => '123456'), points: 10 });
    expect(unseen.body.code).toBe('stand_in_not_seen');

    const paid = await s.pos('cashier').post('/payments', { customerId: 'si-1', paymentId: 'si-sale-1', totalPaid: 40, redemptionId: started.body.id });
    expect(paid.status).toBe(202);
    expect(paid.body).toMatchObject({ queued: true, redemption: { id: started.body.id, state: 'stand_in_paid' } });

    // A plain sale queues as before.
    const plain = await s.pos('cashier').post('/payments', { customerId: 'si-2', paymentId: 'si-sale-2', totalPaid: 10 });
    expect(plain.status).toBe(202);

    // A BFF restart during the outage loses nothing.
    await s.restart(0);
    await clear(s);
    const settled = await until(
      () => s.pos('cashier').get(`/redemptions/${started.body.id}`),
      (r) => r.body.state === 'redeemed',
    );
    expect(settled.body.state).toBe('redeemed');
    // 1000 - 100 redeemed + 40 earned by the sale of 40 (the demo account's one point per unit).
    expect((await s.balance('si-1')).availablePointsBalance).toBe(940);
    expect((await s.balance('si-1')).heldPoints ?? 0).toBe(0);
    const redeems = s.sentUpstream().filter((e) => e.method === 'POST' && e.path.endsWith('/transactions/redeem'));
    expect(redeems.every((e) => JSON.stringify(e.body).includes(started.body.id) && JSON.stringify(e.body).includes('"points":100'))).toBe(true);
    expect(redeems).toHaveLength(1);
    const sales = s.sentUpstream().filter((e) => isSaleSend(e) && JSON.stringify(e.body).includes('si-sale-1'));
    expect(sales).toHaveLength(1);
    // As a payment, or as a tracked order in the run that records sales so (jest.config.js SALE_SUITES).
    expect(sales[0].path.endsWith(SALE_OPERATION === 'trackOrder' ? '/orders' : '/payments')).toBe(true);
    // The refused 900 moved nothing: never sent, its redemption lapsed unapproved, no hold left.
    expect(s.sentUpstream().some((e) => JSON.stringify(e.body ?? '').includes('"points":900'))).toBe(false);
    const landed = await until(
      () => s.sandboxAdmin.get('/api/v4.0/integrations/orders/si-sale-1/transactions').set(SANDBOX_KEYS),
      (r) => r.status === 200,
    );
    expect(landed.status).toBe(200);
    const report = await s
      .pos('manager')
      .get(`/reconciliation?date=${new Date().toISOString().slice(0, 10)}`)
      .expect(200);
    expect(report.body.rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'redemption',
          id: started.body.id,
          // Checked against the loyalty service's record of its redeem (the redemption id): one redeem of the 100 points.
          status: 'matched',
          note: expect.stringMatching(/^stand-in: 100 points; paid by sale si-sale-1, redeemed from the outbox/),
          bff: { redeemed: 100 },
          upstream: { redeemed: 100 },
        }),
      ]),
    );
    expect(report.body.anomalies.filter((a: { id: string }) => a.id === started.body.id)).toEqual([]);
  });

  it('a shortfall: the points spent elsewhere meanwhile; the sale is still recorded and the redemption short, flagged with its cashier', async () => {
    s = await startStack({ store: 'redis', env });
    const started = await paidStandIn(s, 'si-3', { cashierId: 'c-7', shiftId: 'sh-1', saleId: 'si-sale-3' });
    await clear(s);
    // Spent elsewhere before the BFF settles: straight at the sandbox.
    await s.sandboxAdmin
      .post('/api/v4.0/integrations/transactions/redeem')
      .set(SANDBOX_KEYS)
      .send({ customerId: 'si-3', transactionId: 'elsewhere-1', transactionTime: new Date().toISOString(), points: 180 })
      .expect(200);
    const settled = await until(
      () => s.pos('cashier').get(`/redemptions/${started.body.id}`),
      (r) => r.body.state === 'short',
    );
    expect(settled.body.state).toBe('short');
    expect((await s.balance('si-3')).availablePointsBalance).toBeGreaterThanOrEqual(20);
    expect(s.logs.some((l) => l.includes('stand-in short'))).toBe(true);
    // The report: the audit entry with its cashier and shift, and the day's reconciliation flags it.
    const day = new Date().toISOString().slice(0, 10);
    const audit = await s.pos('manager').get(`/audit?date=${day}`).expect(200);
    expect(audit.body.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'stand_in_short', cashierId: 'c-7', shiftId: 'sh-1', redemptionId: started.body.id })]),
    );
    const report = await s.pos('manager').get(`/reconciliation?date=${day}`).expect(200);
    expect(JSON.stringify(report.body)).toMatch(/stand-in: 150 points not redeemed.*cashier c-7, shift sh-1/);
    expect(JSON.stringify(report.body)).toContain('"stand_in_short"');
    // Short here and no redeem there: only the shortfall is flagged.
    expect(report.body.anomalies).toEqual([expect.objectContaining({ kind: 'stand_in_short', id: started.body.id })]);
    expect(report.body.rows.find((r: { id: string }) => r.id === started.body.id)).toMatchObject({ bff: { redeemed: 0 }, upstream: { redeemed: 0 } });
    expect(report.body.reads.orderTransactions).toBe(2);
  });

  it("a shortfall is flagged with its cashier even when the redemption's record is gone before the service is back", async () => {
    s = await startStack({ store: 'redis', env });
    const started = await paidStandIn(s, 'si-5', { cashierId: 'c-9', shiftId: 'sh-2', saleId: 'si-sale-5' });
    // The record outlived by the outage (kept a day after its last write): gone from Redis while the entry waits.
    const redis = await testRedis();
    try {
      expect(await redis.del(`${s.redisPrefix}{rdm}:r:${started.body.id}`)).toBe(1);
    } finally {
      await redis.quit();
    }
    await clear(s);
    // Spent elsewhere before the BFF settles (its circuit waits BREAKER_HALF_OPEN_AFTER_MS): straight at the sandbox.
    await s.sandboxAdmin
      .post('/api/v4.0/integrations/transactions/redeem')
      .set(SANDBOX_KEYS)
      .send({ customerId: 'si-5', transactionId: 'elsewhere-5', transactionTime: new Date().toISOString(), points: 180 })
      .expect(200);
    const day = new Date().toISOString().slice(0, 10);
    const audit = await until(
      () => s.pos('manager').get(`/audit?date=${day}`),
      (r) => (r.body.entries as { action: string }[]).some((e) => e.action === 'stand_in_short'),
    );
    expect(audit.body.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'stand_in_short',
          cashierId: 'c-9',
          shiftId: 'sh-2',
          terminalId: 'till-cashier',
          customerId: 'si-5',
          redemptionId: started.body.id,
          paymentId: 'si-sale-5',
        }),
      ]),
    );
    expect(s.logs.some((l) => l.includes('the redemption could not be settled') && l.includes(started.body.id))).toBe(true);
  });

  it('is off by default: the hold refused as before', async () => {
    s = await startStack({ store: 'redis', env: { BREAKER_FAILURE_THRESHOLD: '2' } });
    const hash = await seen(s, 'si-4', 500);
    await outage(s);
    const refused = await s.pos('cashier').post('/redemptions', { customerId: 'si-4', hash, points: 100 });
    expect(refused.status).toBe(503);
  });
});

describe("the day's reconciliation checks a stand-in's redeem against the loyalty service's record", () => {
  let s: Stack;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-stand-in-reports-'));
  const env = {
    STAND_IN: 'on',
    BREAKER_FAILURE_THRESHOLD: '2',
    BREAKER_HALF_OPEN_AFTER_MS: '1500',
    OUTBOX_POLL_INTERVAL_MS: '200',
    STORE_TIME_ZONE: 'UTC',
    RECONCILIATION_REPORT_DIR: dir,
  };

  afterEach(async () => {
    await s?.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  type Row = { id: string; status: string; flags: string[]; note: string; bff: object; upstream: object };
  const rowOf = (report: { rows: Row[] }, id: string) => report.rows.find((r) => r.id === id);

  it('pending while queued (not read); once settled, a redeem the record lost or holds with other points is flagged, and counted by the daily job', async () => {
    s = await startStack({ store: 'redis', env });
    const customers = ['si-m1', 'si-m2'];
    const hashes: string[] = [];
    for (const customerId of customers) {
      await s.seed(customerId, 1000);
      hashes.push(await s.hash(customerId));
      await s.pos('cashier').get(`/customers/${customerId}`).expect(200);
    }
    await outage(s);
    const ids: string[] = [];
    for (const [n, customerId] of customers.entries()) {
      const started = await s.pos('cashier').post('/redemptions', { customerId, hash: hashes[n], points: 100 }).expect(201);
      await s
        .pos('cashier')
        .post('/payments', { customerId, paymentId: `si-msale-${n + 1}`, totalPaid: 40, redemptionId: started.body.id })
        .expect(202);
      ids.push(started.body.id as string);
    }
    const [lost, other] = ids;
    const today = new Date().toISOString().slice(0, 10);
    const reconcile = async () => (await s.pos('manager').get(`/reconciliation?date=${today}`).expect(200)).body;

    // Still queued: pending, not an anomaly of the redemption, and its redeem's record not asked for.
    const queued = await reconcile();
    for (const id of ids) {
      expect(rowOf(queued, id)).toMatchObject({ status: 'pending', flags: [], note: expect.stringMatching(/its redeem still queued in the outbox/) });
    }
    expect(queued.reads).toEqual({ orderTransactions: 2, holdLookup: 0 });

    await clear(s);
    for (const id of ids) {
      const settled = await until(
        () => s.pos('cashier').get(`/redemptions/${id}`),
        (r) => r.body.state === 'redeemed',
      );
      expect(settled.body.state).toBe('redeemed');
    }
    expect(rowOf(await reconcile(), lost)).toMatchObject({ status: 'matched', flags: [] });

    // The loyalty service loses the first redeem's record; the second's is redone under the same id with 60 points.
    await s.sandboxAdmin.delete(`/_sandbox/transactions/${lost}`).set(SANDBOX_KEYS).expect(200);
    await s.sandboxAdmin.delete(`/_sandbox/transactions/${other}`).set(SANDBOX_KEYS).expect(200);
    await s.sandboxAdmin
      .post('/api/v4.0/integrations/transactions/redeem')
      .set(SANDBOX_KEYS)
      .send({ customerId: 'si-m2', transactionId: other, transactionTime: new Date().toISOString(), points: 60 })
      .expect(200);

    const report = await reconcile();
    expect(rowOf(report, lost)).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_redeem_mismatch'],
      note: expect.stringMatching(new RegExp(`redeemed here from the outbox.*the loyalty service has no redeem under ${lost}`)),
      bff: { redeemed: 100 },
      upstream: { redeemed: 0 },
    });
    expect(rowOf(report, other)).toMatchObject({
      status: 'mismatch',
      flags: ['stand_in_redeem_mismatch'],
      note: expect.stringMatching(new RegExp(`the loyalty service has a redeem of 60 points under ${other}`)),
      bff: { redeemed: 100 },
      upstream: { redeemed: 60 },
    });
    expect(report.anomalies.filter((a: { kind: string }) => a.kind === 'stand_in_redeem_mismatch').map((a: { id: string }) => a.id)).toEqual(ids);
    // One read per sale and one per settled stand-in's redeem (docs/store-manager.md).
    expect(report.reads).toEqual({ orderTransactions: 4, holdLookup: 0 });

    // The daily job of the next day writes the same and counts each anomaly by kind.
    await s.advance(86_400_000);
    await s.restart(0, { RECONCILIATION_DAILY_AT: '00:00' });
    await waitFor('the daily report', () => s.logs.some((l) => l.includes('daily reconciliation written')), 20_000);
    const metrics = await s.bff.deps.metrics.render();
    expect(metrics).toMatch(/^pos_reconciliation_anomalies_total\{kind="stand_in_redeem_mismatch"\} 2$/m);
  });
});

describe("stand-in's rules, each refused clearly over HTTP", () => {
  let s: Stack;
  // No manager approval here (0): over a limit is refused outright.
  const env = {
    STAND_IN: 'on',
    BREAKER_FAILURE_THRESHOLD: '2',
    BREAKER_HALF_OPEN_AFTER_MS: '60000',
    STAND_IN_MAX_POINTS_PER_STORE: '250',
    STAND_IN_APPROVAL_MINUTES: '0',
  };

  afterEach(async () => {
    await s?.close();
  });

  it('asks for points and the QR code; within the last known balance; within the store hour', async () => {
    s = await startStack({ store: 'redis', env });
    for (const [id, points] of [
      ['sr-1', 1000],
      ['sr-2', 50],
      ['sr-3', 1000],
      ['sr-4', 1000],
    ] as const) {
      await s.seed(id, points);
      await s.pos('cashier').get(`/customers/${id}`).expect(200);
    }
    const hash = await s.hash('sr-1');
    const [hash2, hash3, hash4] = [await s.hash('sr-2'), await s.hash('sr-3'), await s.hash('sr-4')];
    await outage(s);

    const byAmount = await s.pos('cashier').post('/redemptions', { customerId: 'sr-1', hash, amount: 5 });
    expect([byAmount.status, byAmount.body.code]).toEqual([422, 'stand_in_points_only']);
    const noQr = await s.pos('cashier').post('/redemptions', { customerId: 'sr-1', points: 10 });
    expect([noQr.status, noQr.body.code]).toEqual([422, 'stand_in_qr_required']);
    const over = await s.pos('cashier').post('/redemptions', { customerId: 'sr-2', hash: hash2, points: 60 });
    expect([over.status, over.body.code, over.body.lastKnownBalance]).toEqual([422, 'stand_in_over_balance', 50]);

    // STAND_IN_MAX_POINTS_PER_STORE 250 an hour: 200 fit, 100 more do not; a customer's limit (300) is not what refuses them.
    await s.pos('cashier').post('/redemptions', { customerId: 'sr-3', hash: hash3, points: 200 }).expect(201);
    const storeFull = await s.pos('cashier').post('/redemptions', { customerId: 'sr-4', hash: hash4, points: 100 });
    expect([storeFull.status, storeFull.body.code, storeFull.body.limit, storeFull.body.used]).toEqual([409, 'stand_in_store_limit', 250, 200]);
    // Another store's hour is its own.
    await s.pos('otherCashier').get('/customers/sr-4');
    const elsewhere = await s.pos('otherCashier').post('/redemptions', { customerId: 'sr-4', hash: hash4, points: 100 });
    expect(elsewhere.status).toBe(201);
    // An hour on, the last lookup is too old (STAND_IN_SEEN_MINUTES 15); looked up again, the store has its 250 again.
    await s.advance(3_600_000);
    await outage(s); // the moved clock let the circuit try again: opened again
    const stale = await s.pos('cashier').post('/redemptions', { customerId: 'sr-4', hash: hash4, points: 100 });
    expect(stale.body.code).toBe('stand_in_not_seen');
    await clear(s);
    await s.advance(61_000); // past BREAKER_HALF_OPEN_AFTER_MS: the lookup is the probe that closes the circuit
    await s.pos('cashier').get('/customers/sr-4').expect(200);
    await outage(s);
    await s.pos('cashier').post('/redemptions', { customerId: 'sr-4', hash: hash4, points: 100 }).expect(201);
  });

  it('a stand-in voided before its payment: voided, its points given back to both floor limits; not voided twice, not paid', async () => {
    s = await startStack({ store: 'redis', env });
    const hash = await seen(s, 'sr-8', 1000);
    await outage(s);
    const first = await s.pos('cashier').post('/redemptions', { customerId: 'sr-8', hash, points: 200 }).expect(201);
    const full = await s.pos('cashier').post('/redemptions', { customerId: 'sr-8', hash, points: 200 });
    expect(full.body.code).toBe('stand_in_customer_limit');
    const otherStore = await s.pos('otherCashier').post(`/redemptions/${first.body.id}/void`);
    expect([otherStore.status, otherStore.body.code]).toEqual([404, 'redemption_not_found']);
    const voided = await s.pos('cashier').post(`/redemptions/${first.body.id}/void`).expect(200);
    expect(voided.body).toMatchObject({ id: first.body.id, state: 'voided' });
    // Both counters given back: 200 more fit the customer's 300 and the store's 250 again.
    await s.pos('cashier').post('/redemptions', { customerId: 'sr-8', hash, points: 200 }).expect(201);
    const again = await s.pos('cashier').post(`/redemptions/${first.body.id}/void`);
    expect([again.status, again.body.code]).toEqual([409, 'redemption_not_held']);
    const paid = await s.pos('cashier').post('/payments', { customerId: 'sr-8', paymentId: 'sr-sale-8', totalPaid: 10, redemptionId: first.body.id });
    expect(paid.status).toBeGreaterThanOrEqual(400);
    expect(s.sentUpstream().filter((e) => e.path.endsWith('/transactions/redeem'))).toHaveLength(0);
  });

  it('a stand-in not paid within HOLD_PERIOD_MINUTES lapses: swept expired, its payment refused, its points given back to both floor limits and the cap', async () => {
    // A cap of 350 a day: the second 200 is refused by it first; the first's 200 must come back to both the cap and the limits.
    s = await startStack({ store: 'redis', env: { ...env, HOLD_PERIOD_MINUTES: '10', REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '350' } });
    const hash = await seen(s, 'sr-11', 1000);
    await outage(s);
    const first = await s.pos('cashier').post('/redemptions', { customerId: 'sr-11', hash, points: 200 }).expect(201);
    expect(first.body).toMatchObject({ state: 'stand_in', secondsLeft: expect.any(Number) });
    expect(first.body.secondsLeft).toBeGreaterThan(9 * 60);
    const full = await s.pos('cashier').post('/redemptions', { customerId: 'sr-11', hash, points: 200 });
    expect(full.body.code).toBe('redemption_cap_reached');
    // Within the hour the store's 250 holds; the lookup is kept 15 minutes, so 10 on it still counts.
    await s.advance(10 * 60_000 + 1000);
    // The sweeper lapses it on its own (nobody reads it): its log line, heard once.
    const lapsed = await until(
      async () => s.logs.filter((l) => l.includes('stand-in lapsed unpaid') && l.includes(first.body.id)),
      (lines) => lines.length > 0,
    );
    expect(lapsed).toHaveLength(1);
    expect(JSON.parse(lapsed[0])).toMatchObject({ via: 'sweep', redemptionId: first.body.id });
    expect((await s.pos('cashier').get(`/redemptions/${first.body.id}`)).body).toMatchObject({ state: 'expired', secondsLeft: 0 });
    // The trail says it lapsed, and who rang it up; the day's reconciliation lists it lapsed, not open.
    const day = new Date().toISOString().slice(0, 10);
    const trail = await s.pos('manager').get(`/audit?date=${day}`).expect(200);
    expect(trail.body.entries.filter((e: { action: string }) => e.action === 'stand_in_lapsed')).toEqual([
      expect.objectContaining({ redemptionId: first.body.id, pointsHeld: 200, code: 'stand_in', terminalId: 'till-cashier' }),
    ]);
    const report = await s.pos('manager').get(`/reconciliation?date=${day}`).expect(200);
    expect(report.body.rows.find((r: { id: string }) => r.id === first.body.id)).toMatchObject({ status: 'lapsed', flags: [] });
    const late = await s.pos('cashier').post('/payments', { customerId: 'sr-11', paymentId: 'sr-sale-11', totalPaid: 10, redemptionId: first.body.id });
    expect([late.status, late.body.code, late.body.detail]).toEqual([
      409,
      'redemption_not_held',
      `Redemption ${first.body.id} is expired; start a new redemption`,
    ]);
    // Given back: 200 fit the cap's 350, the customer's 300 and the store's 250 again.
    await outage(s); // the moved clock let the circuit try again: opened again
    await s.pos('cashier').post('/redemptions', { customerId: 'sr-11', hash, points: 200 }).expect(201);
    expect(s.sentUpstream().filter((e) => e.path.endsWith('/transactions/redeem'))).toHaveLength(0);
  });

  it('a payment whose sale id is refused leaves the stand-in to be paid by another', async () => {
    s = await startStack({ store: 'redis', env });
    await s.seed('sr-9', 1000);
    await s.pos('cashier').get('/customers/sr-9').expect(200);
    await s.pos('cashier').post('/payments', { customerId: 'sr-9', paymentId: 'sr-sale-9', totalPaid: 10 }).expect(201);
    const hash = await s.hash('sr-9');
    await outage(s);
    const started = await s.pos('cashier').post('/redemptions', { customerId: 'sr-9', hash, points: 100 }).expect(201);
    const reused = await s.pos('cashier').post('/payments', { customerId: 'sr-9', paymentId: 'sr-sale-9', totalPaid: 20, redemptionId: started.body.id });
    expect(reused.status).toBeGreaterThanOrEqual(400);
    expect((await s.pos('cashier').get(`/redemptions/${started.body.id}`)).body).toMatchObject({ state: 'stand_in', paymentId: null });
    const paid = await s.pos('cashier').post('/payments', { customerId: 'sr-9', paymentId: 'sr-sale-10', totalPaid: 20, redemptionId: started.body.id });
    expect([paid.status, paid.body.redemption?.state]).toEqual([202, 'stand_in_paid']);
    // Paid, it is refused to another sale and to another customer as a held redemption is: lasting refusals, not "busy, try again".
    const another = await s.pos('cashier').post('/payments', { customerId: 'sr-9', paymentId: 'sr-sale-11', totalPaid: 20, redemptionId: started.body.id });
    expect([another.status, another.body.code]).toEqual([409, 'redemption_in_use']);
    const stranger = await s.pos('cashier').post('/payments', { customerId: 'sr-x', paymentId: 'sr-sale-12', totalPaid: 20, redemptionId: started.body.id });
    expect([stranger.status, stranger.body.code]).toEqual([409, 'redemption_customer_mismatch']);
  });

  it('a busy loyalty service (429, the budget refusing) stands in only once refusals have lasted STAND_IN_AFTER_SECONDS', async () => {
    s = await startStack({ store: 'redis', env: { ...env, STAND_IN_AFTER_SECONDS: '1' } });
    const hash = await seen(s, 'sr-10', 1000);
    await faults(s, [{ operation: 'hold', status: 429 }]);
    const first = await s.pos('cashier').post('/redemptions', { customerId: 'sr-10', hash, points: 100 });
    expect([first.status, first.body.code]).toEqual([503, 'upstream_busy']);
    // The BFF's clock, not a wait: refusals 1.2 s apart make one streak longer than STAND_IN_AFTER_SECONDS.
    await s.advance(1200);
    const later = await s.pos('cashier').post('/redemptions', { customerId: 'sr-10', hash, points: 100 });
    expect([later.status, later.body.state]).toEqual([201, 'stand_in']);
  });

  it('a refusal a minute after the last one starts a new streak: not stood in for at once', async () => {
    s = await startStack({ store: 'redis', env: { ...env, STAND_IN_AFTER_SECONDS: '1' } });
    const hash = await seen(s, 'sr-11', 1000);
    await faults(s, [{ operation: 'hold', status: 429 }]);
    expect((await s.pos('cashier').post('/redemptions', { customerId: 'sr-11', hash, points: 100 })).body.code).toBe('upstream_busy');
    await s.advance(61_000);
    // Refused again after a quiet minute: a new streak, so still busy (the lookup is well within STAND_IN_SEEN_MINUTES).
    const again = await s.pos('cashier').post('/redemptions', { customerId: 'sr-11', hash, points: 100 });
    expect([again.status, again.body.code]).toEqual([503, 'upstream_busy']);
  });

  it('an account that checks one-time codes cannot be served offline: said so, with the code given or not', async () => {
    s = await startStack({ store: 'redis', env });
    await s.seed('sr-5', 500);
    await s.pos('cashier').get('/customers/sr-5').expect(200);
    await s.setAccount({ otpEnabled: true });
    const hash = await s.hash('sr-5');
    await outage(s);
    const withoutCode = await s.pos('cashier').post('/redemptions', { customerId: 'sr-5', hash, points: 100 });
    expect([withoutCode.status, withoutCode.body.code]).toEqual([409, 'stand_in_otp_account']);
    const withCode = await s.pos('cashier').post('/redemptions', { customerId: 'sr-5', hash, points: 100, otp: '123456' });
    expect([withCode.status, withCode.body.code]).toEqual([409, 'stand_in_otp_account']);
  });

  it('a hold that timed out (it may have landed) never starts stand-in for that customer; another customer is served', async () => {
    s = await startStack({ store: 'redis', env });
    await s.seed('sr-6', 500);
    await s.seed('sr-7', 500);
    await s.pos('cashier').get('/customers/sr-6').expect(200);
    await s.pos('cashier').get('/customers/sr-7').expect(200);
    const hash = await s.hash('sr-6');
    const hash7 = await s.hash('sr-7');
    await faults(s, [{ operation: 'hold', drop: true, after: true, times: 1 }]);
    const unknown = await s.pos('cashier').post('/redemptions', { customerId: 'sr-6', hash, points: 100 });
    expect(unknown.status).toBeGreaterThanOrEqual(500);
    await outage(s);
    const barred = await s.pos('cashier').post('/redemptions', { customerId: 'sr-6', hash, points: 100 });
    expect([barred.status, barred.body.code]).toEqual([409, 'stand_in_hold_unsettled']);
    const other = await s.pos('cashier').post('/redemptions', { customerId: 'sr-7', hash: hash7, points: 100 });
    expect(other.status).toBe(201);
  });
});

describe("a manager's approval of a stand-in over the floor limits", () => {
  let s: Stack;
  const env = {
    STAND_IN: 'on',
    BREAKER_FAILURE_THRESHOLD: '2',
    BREAKER_HALF_OPEN_AFTER_MS: '1500',
    OUTBOX_POLL_INTERVAL_MS: '200',
    STAND_IN_APPROVAL_MINUTES: '5',
  };

  afterEach(async () => {
    await s?.close();
  });

  it('once, by a manager terminal of the same store; the cashier sends the same start again and gets the stand-in, redeemed once when the service is back', async () => {
    s = await startStack({ store: 'redis', env });
    const hash = await seen(s, 'ap-1', 1000);
    await outage(s);
    const ask = { customerId: 'ap-1', hash, points: 500 };
    const key = 'ap-1-start';
    const asked = await s.pos('cashier').post('/redemptions', ask).set('Idempotency-Key', key);
    expect([asked.status, asked.body.code]).toEqual([409, 'stand_in_needs_approval']);
    const id: string = asked.body.redemptionId;
    expect(id).toMatch(/^rdm_/);
    expect((await s.pos('cashier').get(`/redemptions/${id}`).expect(200)).body.state).toBe('stand_in_approval');
    // Asked again before the approval: the same redemption waits.
    const again = await s.pos('cashier').post('/redemptions', ask);
    expect([again.body.code, again.body.redemptionId]).toEqual(['stand_in_needs_approval', id]);
    // Over the last known balance a manager cannot help: refused outright.
    const overBalance = await s.pos('cashier').post('/redemptions', { ...ask, points: 1001 });
    expect(overBalance.body.code).toBe('stand_in_over_balance');

    expect((await s.pos('cashier').post(`/redemptions/${id}/approve`)).status).toBe(403);
    const otherStore = await s.pos('otherManager').post(`/redemptions/${id}/approve`);
    expect([otherStore.status, otherStore.body.code]).toEqual([404, 'redemption_not_found']);
    const approved = await s.pos('manager').post(`/redemptions/${id}/approve`).expect(200);
    expect(approved.body).toMatchObject({ id, state: 'stand_in', standIn: { points: 500, lastKnownBalance: 1000 } });
    const trail = await s
      .pos('manager')
      .get(`/audit?date=${new Date().toISOString().slice(0, 10)}`)
      .expect(200);
    expect(trail.body.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'stand_in_approve', terminalId: 'till-manager', redemptionId: id, outcome: 'applied' })]),
    );
    const twice = await s.pos('manager').post(`/redemptions/${id}/approve`);
    expect([twice.status, twice.body.code]).toEqual([409, 'stand_in_not_pending']);

    // The same request again, with its own key: the approved stand-in.
    const retried = await s.pos('cashier').post('/redemptions', ask).set('Idempotency-Key', key).expect(201);
    expect(retried.body).toMatchObject({ id, state: 'stand_in', points: 500 });
    await s.pos('cashier').post('/payments', { customerId: 'ap-1', paymentId: 'ap-sale-1', totalPaid: 20, redemptionId: id }).expect(202);
    await clear(s);
    const settled = await until(
      () => s.pos('cashier').get(`/redemptions/${id}`),
      (r) => r.body.state === 'redeemed',
    );
    expect(settled.body.state).toBe('redeemed');
    expect((await s.balance('ap-1')).availablePointsBalance).toBe(1000 - 500 + 20);
  });

  it('an approval counts the stand-in against the redemption cap, once: refused over the cap; asked again, not counted twice; voided, given back', async () => {
    s = await startStack({ store: 'redis', env: { ...env, REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '600' } });
    const hash = await seen(s, 'ap-3', 1000);
    await outage(s);
    const ask = { customerId: 'ap-3', hash, points: 500 };
    const asked = await s.pos('cashier').post('/redemptions', ask);
    expect(asked.body.code).toBe('stand_in_needs_approval');
    const id: string = asked.body.redemptionId;
    // Another 250 in stand-in meanwhile (within the floor limits): 750 would be over the cap of 600, so the approval is refused.
    const other = await s
      .pos('cashier')
      .post('/redemptions', { ...ask, points: 250 })
      .expect(201);
    const overCap = await s.pos('manager').post(`/redemptions/${id}/approve`);
    expect([overCap.status, overCap.body.code, overCap.body.usedPoints]).toEqual([409, 'redemption_cap_reached', 250]);
    expect((await s.pos('cashier').get(`/redemptions/${id}`)).body.state).toBe('stand_in_approval');
    await s.pos('cashier').post(`/redemptions/${other.body.id}/void`).expect(200);
    await s.pos('manager').post(`/redemptions/${id}/approve`).expect(200);
    // The same start twice more: the approved stand-in each time, its 500 points counted once.
    for (let n = 0; n < 2; n++) expect((await s.pos('cashier').post('/redemptions', ask).expect(201)).body).toMatchObject({ id, state: 'stand_in' });
    const over = await s.pos('cashier').post('/redemptions', { ...ask, points: 200 });
    expect([over.status, over.body.code, over.body.usedPoints]).toEqual([409, 'redemption_cap_reached', 500]);
    // Voided, its points come back to the cap: 200 fit again (within the customer's floor limit of 300).
    await s.pos('cashier').post(`/redemptions/${id}/void`).expect(200);
    const last = await s
      .pos('cashier')
      .post('/redemptions', { ...ask, points: 200 })
      .expect(201);
    // A stand-in a till may still pay is points in flight: the customer's erasure waits for it.
    const erasure = await s.pos('manager').delete('/customers/ap-3');
    expect([erasure.status, erasure.body.code, erasure.body.open]).toEqual([409, 'customer_has_open_work', [`redemption ${last.body.id} (stand_in)`]]);
  });

  it("once approved, the cashier's same start finds it until it lapses unpaid, not only within the wait's minutes", async () => {
    s = await startStack({ store: 'redis', env });
    const hash = await seen(s, 'ap-4', 1000);
    await outage(s);
    const ask = { customerId: 'ap-4', hash, points: 400 };
    const asked = await s.pos('cashier').post('/redemptions', ask);
    expect(asked.body.code).toBe('stand_in_needs_approval');
    await s.pos('manager').post(`/redemptions/${asked.body.redemptionId}/approve`).expect(200);
    // Redis keeps the ask's key on its own (wall) clock: kept for the hold period (10 min), past the wait's 5.
    const redis = await testRedis();
    try {
      expect(await redis.pttl(`${s.redisPrefix}stand-in:pending:store-001:till-cashier:ap-4:400`)).toBeGreaterThan(5 * 60_000);
    } finally {
      await redis.quit();
    }
    expect((await s.pos('cashier').post('/redemptions', ask).expect(201)).body).toMatchObject({ id: asked.body.redemptionId, state: 'stand_in' });
  });

  it('lapses after STAND_IN_APPROVAL_MINUTES: the approval refused, the redemption expired, the start asks again', async () => {
    s = await startStack({ store: 'redis', env });
    const hash = await seen(s, 'ap-2', 1000);
    await outage(s);
    const ask = { customerId: 'ap-2', hash, points: 400 };
    const asked = await s.pos('cashier').post('/redemptions', ask);
    expect(asked.body.code).toBe('stand_in_needs_approval');
    await s.advance(5 * 60_000 + 1000);
    // The sweeper lapses the wait by itself; the manager's late approval finds it lapsed.
    await until(
      async () => s.logs.filter((l) => l.includes('stand-in lapsed unpaid') && l.includes(asked.body.redemptionId)),
      (lines) => lines.length > 0,
    );
    const late = await s.pos('manager').post(`/redemptions/${asked.body.redemptionId}/approve`);
    expect([late.status, late.body.code]).toEqual([409, 'stand_in_approval_expired']);
    expect((await s.pos('cashier').get(`/redemptions/${asked.body.redemptionId}`)).body.state).toBe('expired');
    await outage(s); // the moved clock let the circuit try again: opened again
    const anew = await s.pos('cashier').post('/redemptions', ask);
    expect(anew.body.code).toBe('stand_in_needs_approval');
    expect(anew.body.redemptionId).not.toBe(asked.body.redemptionId);
    // One waiting for approval can be voided; then there is nothing to approve.
    await s.pos('cashier').post(`/redemptions/${anew.body.redemptionId}/void`).expect(200);
    const gone = await s.pos('manager').post(`/redemptions/${anew.body.redemptionId}/approve`);
    expect([gone.status, gone.body.code]).toEqual([409, 'stand_in_not_pending']);
  });
});

describe('stand-in across the fleet and per store', () => {
  let s: Stack;
  const env = { STAND_IN: 'on', BREAKER_FAILURE_THRESHOLD: '2', BREAKER_HALF_OPEN_AFTER_MS: '60000', STAND_IN_APPROVAL_MINUTES: '0' };

  afterEach(async () => {
    await s?.close();
  });

  it("two instances share the last known balance and the customer's limit", async () => {
    s = await startStack({ store: 'redis', instances: 2, env });
    await s.seed('fl-1', 1000);
    await s.pos('cashier', 0).get('/customers/fl-1').expect(200);
    const hash = await s.hash('fl-1');
    await outage(s, 0);
    await outage(s, 1);
    await s.pos('cashier', 0).post('/redemptions', { customerId: 'fl-1', hash, points: 200 }).expect(201);
    // Seen through instance 0, served by instance 1; the 200 taken there count here.
    const second = await s.pos('cashier', 1).post('/redemptions', { customerId: 'fl-1', hash, points: 200 });
    expect([second.status, second.body.code, second.body.used]).toEqual([409, 'stand_in_customer_limit', 200]);
    await s.pos('cashier', 1).post('/redemptions', { customerId: 'fl-1', hash, points: 100 }).expect(201);
  });

  it("a store's own standIn in the terminals file: on where the fleet is off, with its own customer limit", async () => {
    s = await startStack({ store: 'redis', env: { ...env, STAND_IN: 'off' } });
    const file = readTerminalsFile(s.terminalsFile)!;
    file.stores = file.stores.map((st) => (st.id === 'store-002' ? { ...st, standIn: { mode: 'on', maxPointsPerCustomer: 50 } } : st));
    writeTerminalsFile(s.terminalsFile, file);
    await s.restart(0);
    await s.seed('ov-1', 1000);
    // Looked up where stand-in is on (a lookup elsewhere keeps no balance).
    await s.pos('otherCashier').get('/customers/ov-1').expect(200);
    const hash = await s.hash('ov-1');
    await outage(s);
    const off = await s.pos('cashier').post('/redemptions', { customerId: 'ov-1', hash, points: 40 });
    expect([off.status, off.body.code]).toEqual([503, 'upstream_circuit_open']);
    await s.pos('otherCashier').post('/redemptions', { customerId: 'ov-1', hash, points: 40 }).expect(201);
    const over = await s.pos('otherCashier').post('/redemptions', { customerId: 'ov-1', hash, points: 20 });
    expect([over.status, over.body.code, over.body.limit]).toEqual([409, 'stand_in_customer_limit', 50]);
  });
});

describe('the redemption cap holds in stand-in too', () => {
  let s: Stack;
  afterEach(async () => {
    await s?.close();
  });

  it('a stand-in counts against the customer’s day: one more past the cap is refused redemption_cap_reached, before any stand-in check', async () => {
    s = await startStack({
      store: 'redis',
      env: { STAND_IN: 'on', BREAKER_FAILURE_THRESHOLD: '2', BREAKER_HALF_OPEN_AFTER_MS: '60000', REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY: '150' },
    });
    const hash = await seen(s, 'sic-1', 1000);
    await outage(s);
    const first = await s.pos('cashier').post('/redemptions', { customerId: 'sic-1', hash, points: 100 }).expect(201);
    expect(first.body.state).toBe('stand_in');
    const second = await s.pos('cashier').post('/redemptions', { customerId: 'sic-1', hash, points: 100 });
    expect([second.status, second.body.code, second.body.pointsLeft]).toEqual([409, 'redemption_cap_reached', 50]);
    // Voided, the stand-in gives its points back to the day.
    await s.pos('cashier').post(`/redemptions/${first.body.id}/void`).expect(200);
    const again = await s.pos('cashier').post('/redemptions', { customerId: 'sic-1', hash, points: 100 }).expect(201);
    expect(again.body.state).toBe('stand_in');
  });
});

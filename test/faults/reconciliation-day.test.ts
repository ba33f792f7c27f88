import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type request from 'supertest';
import { readAllAudit } from '../../src/pos/audit/query';
import { reconcileStore, reconciliationDepsOf, reconciliationCsv, reconciliationPrintout, type ReconciliationReport } from '../../src/pos/reconciliation';
import { FIGURES, type Figures } from '../../src/pos/reconciliation/types';
import { SALE_OPERATION, SANDBOX_KEYS, type Stack, startStack } from '../support/e2e';
import { freePort } from '../support/ports';
import { eventually } from './process-stack';
import { ThrowawayRedis } from './throwaway-redis';

/**
 * A scripted day: 200 cashier actions across two stores (redemptions paid and
 * voided, plain sales, coupon locks used and released, refunds, sale voids,
 * sign-ups, deletions, events, a refusal), with four faults injected: Redis
 * stopped in the middle of a payment, a lost answer, an outbox entry
 * dead-lettered, and a sale voided at the other branch (RETURNS_AT_ANY_BRANCH).
 * Each store's reconciliation must report every action, flag exactly the
 * injected anomalies, and its totals must be the sandbox's balances; running
 * it (twice) must change nothing.
 */
type StoreNo = '001' | '002';
const TILLS: Record<StoreNo, { cashier: 'cashier' | 'otherCashier'; manager: 'manager' | 'otherManager' }> = {
  '001': { cashier: 'cashier', manager: 'manager' },
  '002': { cashier: 'otherCashier', manager: 'otherManager' },
};
const CUSTOMERS_PER_STORE = 8;

interface Done {
  store: StoreNo;
  kind: 'sale' | 'refund' | 'sale_void' | 'redemption' | 'coupon_lock' | 'customer' | 'events';
  id: string;
  /** Landed upstream (false: refused, or a dead letter). */
  applied: boolean;
  paid?: number;
  refunded?: number;
}

describe('a day of 200 actions in two stores, with faults, reconciled against the loyalty service', () => {
  let redis: ThrowawayRedis;
  let s: Stack;
  const done: Done[] = [];
  const actions = { '001': 0, '002': 0 };
  let from = 0;
  let to = 0;
  const reports: Partial<Record<StoreNo, ReconciliationReport>> = {};
  const customers: string[] = [];
  const before = new Map<string, number>();

  beforeAll(async () => {
    redis = new ThrowawayRedis(await freePort());
    await redis.start();
    s = await startStack({
      store: 'redis',
      env: {
        REDIS_URL: redis.url,
        RETURNS_AT_ANY_BRANCH: 'true',
        // A lost answer must stay unknown (no retry settles it at once), and be lost in 1 s.
        LOYALTY_RETRIES: '0',
        LOYALTY_TIMEOUT_MS: '1000',
        BREAKER_FAILURE_THRESHOLD: '1000',
      },
    });
  }, 30_000);
  afterAll(async () => {
    await s?.close();
    await redis?.cleanup();
  });

  const headers = (store: StoreNo, n: number) => ({ 'X-Cashier-Id': `c-${store}-${n % 3}`, 'X-Shift-Id': `shift-${store}-am` });
  const post = (store: StoreNo, who: 'cashier' | 'manager', n: number, p: string, body?: object): request.Test => {
    actions[store] += 1;
    return s.pos(TILLS[store][who]).post(p, body).set(headers(store, n));
  };
  const put = (store: StoreNo, n: number, p: string, body: object): request.Test => {
    actions[store] += 1;
    return s.pos(TILLS[store].cashier).put(p, body).set(headers(store, n));
  };
  const del = (store: StoreNo, n: number, p: string): request.Test => {
    actions[store] += 1;
    return s.pos(TILLS[store].manager).delete(p).set(headers(store, n));
  };
  const faults = async (rules: object[]) => {
    const res = await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules });
    if (res.status !== 200) throw new Error(`faults: ${res.status}`);
  };
  const faultsApplied = async () =>
    ((await s.sandboxAdmin.get('/_sandbox/faults').set(SANDBOX_KEYS)).body.rules as { applied: number }[]).map((r) => r.applied);

  async function hold(store: StoreNo, n: number, customerId: string, points: number): Promise<string> {
    const res = await post(store, 'cashier', n, '/redemptions', { customerId, hash: await s.hash(customerId), points }).expect(201);
    done.push({ store, kind: 'redemption', id: res.body.id, applied: true });
    return res.body.id as string;
  }

  async function sale(store: StoreNo, n: number, body: { customerId: string; paymentId: string; totalPaid: number; [k: string]: unknown }) {
    await post(store, 'cashier', n, '/payments', body).expect(201);
    done.push({ store, kind: 'sale', id: body.paymentId, applied: true, paid: body.totalPaid });
  }

  /** One customer's ordinary day at a till: 11 actions. */
  async function ordinaryDay(store: StoreNo, c: number) {
    const customerId = `day-${store}-c${c}`;
    const n = c;
    // A redemption paid with.
    const rdm = await hold(store, n, customerId, 100);
    await sale(store, n, { customerId, paymentId: `${customerId}-p1`, totalPaid: 50, totalAmount: 60, redemptionId: rdm });
    // A plain sale, refunded in part later.
    await sale(store, n, { customerId, paymentId: `${customerId}-p2`, totalPaid: 30 });
    // A coupon locked and released (the sale was voided at the till), then locked again and used.
    const first = await post(store, 'cashier', n, '/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 50 }).expect(201);
    await post(store, 'cashier', n, `/coupon-locks/${first.body.id}/release`).expect(200);
    const lock = await post(store, 'cashier', n, '/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 50 }).expect(201);
    done.push({ store, kind: 'coupon_lock', id: first.body.id, applied: true }, { store, kind: 'coupon_lock', id: lock.body.id, applied: true });
    await sale(store, n, { customerId, paymentId: `${customerId}-p3`, totalPaid: 40, totalAmount: 50, couponLockId: lock.body.id });
    // A redemption started, then voided.
    const voided = await hold(store, n, customerId, 50);
    await post(store, 'cashier', n, `/redemptions/${voided}/void`).expect(200);
    // A refund of part of the plain sale, by the manager.
    await post(store, 'manager', n, '/refunds', { customerId, refundId: `${customerId}-r1`, paymentId: `${customerId}-p2`, amount: 10 }).expect(201);
    done.push({ store, kind: 'refund', id: `${customerId}-r1`, applied: true, refunded: 10 });
    // An event that earns nothing.
    await post(store, 'cashier', n, '/events', { customerId, events: { store_visit: { aisle: 3 } } }).expect(200);
    done.push({ store, kind: 'events', id: customerId, applied: true });
  }

  /** A sale voided by the manager: its full refund. */
  async function voidSale(store: StoreNo, n: number, customerId: string, paymentId: string, paid: number) {
    await post(store, 'manager', n, `/payments/${paymentId}/void`, { customerId }).expect(200);
    done.push({ store, kind: 'sale_void', id: `void-${paymentId}`, applied: true, refunded: paid });
  }

  async function signUpAndLeave(store: StoreNo) {
    const id = `day-${store}-newcomer`;
    await put(store, 1, `/customers/${id}`, { displayName: 'New Comer', email: `${id}@example.com` }).expect(200);
    await del(store, 1, `/customers/${id}`).expect(200);
    done.push({ store, kind: 'customer', id, applied: true }, { store, kind: 'customer', id, applied: true });
  }

  it('runs the day: 200 actions, four faults', async () => {
    for (const store of ['001', '002'] as StoreNo[]) {
      for (let c = 0; c < CUSTOMERS_PER_STORE; c++) customers.push(`day-${store}-c${c}`);
    }
    for (const c of customers) await s.seed(c, 1000);
    for (const c of customers) before.set(c, (await s.balance(c)).totalPointsBalance);
    from = Date.now() - 1000;

    for (let c = 0; c < CUSTOMERS_PER_STORE; c++) {
      await ordinaryDay('001', c);
      await ordinaryDay('002', c);
    }
    for (const store of ['001', '002'] as StoreNo[]) {
      await voidSale(store, 0, `day-${store}-c0`, `day-${store}-c0-p1`, 50);
      await voidSale(store, 1, `day-${store}-c1`, `day-${store}-c1-p3`, 40);
      await signUpAndLeave(store);
      // A refusal: a redemption that was voided cannot pay.
      const voided = done.filter((d) => d.store === store && d.kind === 'redemption')[1].id;
      await post(store, 'cashier', 2, '/payments', {
        customerId: `day-${store}-c0`,
        paymentId: `day-${store}-refused`,
        totalPaid: 20,
        redemptionId: voided,
      }).expect(409);
      done.push({ store, kind: 'sale', id: `day-${store}-refused`, applied: false });
    }
    for (let i = 0; i < 4; i++) await sale('001', i, { customerId: `day-001-c${i}`, paymentId: `day-001-extra-${i}`, totalPaid: 20 + i });
    for (let i = 0; i < 3; i++) await sale('002', i, { customerId: `day-002-c${i}`, paymentId: `day-002-extra-${i}`, totalPaid: 20 + i });

    // Fault 1 (store-001): a lost answer. The payment lands after 1.5 s; the BFF gave up at 1 s.
    const lostRdm = await hold('001', 4, 'day-001-c4', 100);
    await faults([{ operation: SALE_OPERATION, latencyMs: 1500, times: 1 }]);
    const lost = await post('001', 'cashier', 4, '/payments', {
      customerId: 'day-001-c4',
      paymentId: 'day-001-lost',
      totalPaid: 60,
      totalAmount: 70,
      redemptionId: lostRdm,
    });
    expect([lost.status, lost.body.code]).toEqual([503, 'retry_same_request']);
    await faults([]);
    done.push({ store: '001', kind: 'sale', id: 'day-001-lost', applied: true, paid: 60 });
    // The cashier does not send it again: the repair settles it from the loyalty service's record.
    await eventually(async () => (await s.pos('cashier').get(`/redemptions/${lostRdm}`)).body.state === 'redeemed', 15_000, 'the lost answer to be settled');

    // Fault 2 (store-002): Redis stops while a payment is at the loyalty service.
    const redisRdm = await hold('002', 5, 'day-002-c5', 100);
    await faults([{ operation: SALE_OPERATION, latencyMs: 700, times: 1 }]);
    const pending = post('002', 'cashier', 5, '/payments', {
      customerId: 'day-002-c5',
      paymentId: 'day-002-redis',
      totalPaid: 55,
      totalAmount: 65,
      redemptionId: redisRdm,
    }).then((r) => r);
    await eventually(async () => (await faultsApplied())[0] >= 1, 5000, 'the payment to reach the sandbox');
    await redis.kill();
    const cut = await pending;
    expect([cut.status, cut.body.code]).toEqual([503, 'retry_same_request']);
    await faults([]);
    await redis.start();
    done.push({ store: '002', kind: 'sale', id: 'day-002-redis', applied: true, paid: 55 });
    await eventually(async () => (await s.pos('otherCashier').get(`/redemptions/${redisRdm}`)).body.state === 'redeemed', 20_000, 'the payment to be repaired');

    // Fault 3 (store-001): a queued sale the loyalty service then refuses: a dead letter.
    await s.bff.outboxWorker.stop();
    await faults([{ operation: SALE_OPERATION, status: 503, times: 1 }]);
    const queued = await post('001', 'cashier', 6, '/payments', { customerId: 'day-001-c6', paymentId: 'day-001-dead', totalPaid: 25 }).expect(202);
    await faults([{ operation: SALE_OPERATION, status: 422, times: 1 }]);
    s.bff.outboxWorker.start();
    await eventually(async () => (await s.pos('cashier').get(`/outbox/${queued.body.outboxId}`)).body.state === 'dead', 10_000, 'the dead letter');
    await faults([]);
    done.push({ store: '001', kind: 'sale', id: 'day-001-dead', applied: false });

    // Fault 4: store-001's sale voided at store-002 (returns at any branch).
    await sale('001', 7, { customerId: 'day-001-c7', paymentId: 'day-001-elsewhere', totalPaid: 45 });
    await voidSale('002', 7, 'day-001-c7', 'day-001-elsewhere', 45);

    await eventually(async () => s.bff.deps.audit?.pendingCount === 0, 10_000, 'the audit entries kept during the outage to be written');
    await s.bff.deps.audit?.flush();
    to = Date.now() + 1000;
    expect(actions['001'] + actions['002']).toBe(200);
    console.log(`scripted day: ${actions['001']} actions at store-001, ${actions['002']} at store-002`);
  }, 120_000);

  it('each store reports every action: each audit entry in exactly one row, each action of the script in a row', async () => {
    const deps = reconciliationDepsOf(s.bff.deps)!;
    for (const store of ['001', '002'] as StoreNo[]) {
      const storeId = `store-${store}`;
      const report = await reconcileStore(deps, storeId, { from, to });
      reports[store] = report;
      const entries = await readAllAudit(deps.audit, storeId, from, to);
      const inRows = report.rows.flatMap((r) => r.entries);
      expect(inRows.slice().sort()).toEqual(entries.map((e) => e.id).sort());
      // Every request the script made is an entry (settled entries come on top: two per repaired sale).
      expect(entries.filter((e) => e.outcome !== 'settled')).toHaveLength(actions[store]);
      expect(Object.values(report.actions).reduce((a, b) => a + (b ?? 0), 0)).toBe(actions[store]);
      expect(report.settledLater).toBe(entries.length - actions[store]);
      for (const d of done.filter((x) => x.store === store)) {
        if (d.kind === 'customer' || d.kind === 'events') continue;
        expect(report.rows.some((r) => r.kind === d.kind && r.id === d.id)).toBe(true);
      }
      expect(report.rows.filter((r) => r.kind === 'customer')).toHaveLength(2);
      expect(report.rows.filter((r) => r.kind === 'events')).toHaveLength(CUSTOMERS_PER_STORE);
      // Every action carries the cashier and shift the till sent.
      expect(entries.every((e) => e.cashierId?.startsWith(`c-${store}-`) && e.shiftId === `shift-${store}-am`)).toBe(true);
    }
  });

  it('flags exactly the injected anomalies, each named', () => {
    const flagged = (store: StoreNo) => reports[store]!.anomalies.map((a) => `${a.kind} ${a.row} ${a.id}`).sort();
    expect(flagged('001')).toEqual(['dead_letter sale day-001-dead', 'unknown_then_settled sale day-001-lost', 'upstream_only refund void-day-001-elsewhere']);
    expect(flagged('002')).toEqual(['other_store_sale sale_void void-day-001-elsewhere', 'unknown_then_settled sale day-002-redis']);
    const note = (store: StoreNo, id: string) => reports[store]!.rows.find((r) => r.id === id)?.note ?? '';
    expect(note('001', 'day-001-lost')).toMatch(/outcome unknown at \d\d:\d\d; settled: .*recorded \(sale:payment:day-001-lost\)/);
    expect(note('002', 'day-002-redis')).toMatch(/settled: .*redeemed \(redemption:rdm_/);
    expect(note('001', 'day-001-dead')).toMatch(/dead in the outbox/);
    expect(note('002', 'void-day-001-elsewhere')).toContain('a sale of store-001');
    expect(reports['001']!.rows.find((r) => r.id === 'day-001-refused')?.status).toBe('refused');
  });

  it("its totals are the sandbox's balances, and this BFF's side differs only on flagged rows", async () => {
    const net = (f: Figures) => (f.earned as number) - (f.redeemed as number) + (f.givenBack as number) - (f.takenBack as number);
    const both = ['001', '002'] as StoreNo[];
    // The void at the other branch is on both stores' reports (done by one, on the other's sale): counted once.
    const elsewhere = reports['001']!.rows.find((r) => r.status === 'upstream_only')!;
    expect(elsewhere.upstream).toEqual(reports['002']!.rows.find((r) => r.id === elsewhere.id)!.upstream);
    const upstream = both.reduce((sum, st) => sum + net(reports[st]!.totals.upstream), 0) - net({ earned: 0, redeemed: 0, ...elsewhere.upstream });
    let deltas = 0;
    for (const c of customers) deltas += (await s.balance(c)).totalPointsBalance - (before.get(c) as number);
    expect(upstream).toBe(deltas);
    expect(deltas).not.toBe(0);

    const paid = done.filter((d) => d.kind === 'sale' && d.applied).reduce((a, d) => a + (d.paid as number), 0);
    const refunded = done.filter((d) => d.kind !== 'sale' && d.applied && d.refunded).reduce((a, d) => a + (d.refunded as number), 0);
    expect(both.reduce((a, st) => a + (reports[st]!.totals.upstream.paid as number), 0)).toBeCloseTo(paid, 2);
    expect(both.reduce((a, st) => a + (reports[st]!.totals.upstream.refunded as number), 0) - (elsewhere.upstream.refunded as number)).toBeCloseTo(refunded, 2);

    for (const st of both) {
      const r = reports[st]!;
      for (const row of r.rows.filter((x) => !x.flags.length)) {
        for (const f of FIGURES) {
          const [here, there] = [row.bff[f], row.upstream[f]];
          if (typeof here === 'number' && typeof there === 'number') expect([row.id, f, here]).toEqual([row.id, f, there]);
        }
      }
      // Figures this BFF could not know: the refunds' points given back (no answer carries them), and the repaired sales' points.
      expect(r.totals.notKnownHere.givenBack).toBe(
        r.rows.filter((x) => (x.kind === 'refund' || x.kind === 'sale_void') && x.status !== 'upstream_only').length,
      );
      expect(r.totals.notKnownHere.earned).toBe(1);
    }
  });

  it('changes nothing: run twice, the sandbox is as it was, and it only read order transactions and hold lookups', async () => {
    const snapshot = async () =>
      JSON.stringify(
        await Promise.all(
          customers.map(async (c) => [await s.balance(c), (await s.sandboxAdmin.get(`/_sandbox/customers/${c}/activity`).set(SANDBOX_KEYS)).body]),
        ),
      );
    const deps = reconciliationDepsOf(s.bff.deps)!;
    const was = await snapshot();
    const sentBefore = s.sentUpstream().length;
    const again = await reconcileStore(deps, 'store-001', { from, to });
    await reconcileStore(deps, 'store-002', { from, to });
    expect(await snapshot()).toBe(was);
    const sent = s.sentUpstream().slice(sentBefore);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((x) => x.method !== 'GET' || !/\/(orders\/[^/]+\/transactions|transactions\/hold\/[^/]+)$/.test(x.path))).toEqual([]);
    expect({ ...again, generatedAt: '' }).toEqual({ ...reports['001'], generatedAt: '' });
    console.log(`reconciliation reads: store-001 ${JSON.stringify(again.reads)}`);
  });

  it('lists as abuse signals the cashiers who refunded three or more of their own sales that earned points', () => {
    // The script sends the same cashier ids (c-<store>-<customer mod 3>) at the manager's till, so the cashier who rang a
    // sale also refunded it: customers 0, 3, 6 (and the void of c0-p1) and 1, 4, 7 (and the void of c1-p3) are four
    // each; 2 and 5 are two, one short; the void at the other branch was made by another cashier.
    for (const store of ['001', '002'] as StoreNo[]) {
      const c = (n: number, p = 'p2') => `day-${store}-c${n}-${p}`;
      const signals = reports[store]!.signals.map((x) => [x.signal, x.count, x.threshold, x.parts.map((p) => [p.cashierIds, p.paymentIds])]);
      expect(signals).toEqual([
        ['earn_then_refund', 4, 3, [[[`c-${store}-0`], [c(0, 'p1'), c(0), c(3), c(6)]]]],
        ['earn_then_refund', 4, 3, [[[`c-${store}-1`], [c(1), c(1, 'p3'), c(4), c(7)]]]],
      ]);
    }
  });

  it('prints on 40 columns and writes one CSV row per row', () => {
    const r = reports['001']!;
    const lines = reconciliationPrintout(r);
    expect(lines.every((l) => l.length <= 40)).toBe(true);
    expect(lines.join('\n')).toContain('day-001-dead');
    const csv = reconciliationCsv(r).trimEnd().split('\r\n');
    // One row per row, the two totals, then a row per abuse signal.
    expect(r.signals.length).toBeGreaterThan(0);
    expect(csv).toHaveLength(1 + r.rows.length + 2 + r.signals.length);
    expect(csv.filter((line) => line.includes(',signal,'))).toHaveLength(r.signals.length);
  });

  it('the terminal CLI reconciles and audits the same, from Redis and the loyalty service', async () => {
    const run = promisify(execFile);
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: s.redisPrefix,
      LOYALTY_BASE_URL: s.sandbox.url,
      LOYALTY_API_KEY: SANDBOX_KEYS.apikey,
      LOYALTY_SECRET_KEY: SANDBOX_KEYS.secretkey,
      TERMINALS_FILE: s.terminalsFile,
    };
    const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', path.join('scripts', 'terminal.ts'), ...args], { env, cwd: process.cwd() });
    const window = ['--from', new Date(from).toISOString(), '--to', new Date(to).toISOString()];
    const { stdout } = await cli('reconcile', '--store', 'store-001', ...window, '--format', 'json');
    const viaCli = JSON.parse(stdout) as ReconciliationReport;
    expect(viaCli.anomalies).toEqual(reports['001']!.anomalies);
    expect(viaCli.totals).toEqual(reports['001']!.totals);
    // "Which cashier redeemed this customer's points?": one command.
    const audit = await cli('audit', '--store', 'store-001', ...window, '--customer', 'day-001-c4', '--action', 'redemption_start,payment', '--format', 'json');
    const found = (JSON.parse(audit.stdout) as { entries: { action: string; cashierId: string; paymentId?: string }[] }).entries;
    expect(found.map((e) => [e.action, e.cashierId])).toEqual(expect.arrayContaining([['payment', 'c-001-1']]));
    expect(found.every((e) => e.cashierId.startsWith('c-001-'))).toBe(true);
  }, 60_000);
});

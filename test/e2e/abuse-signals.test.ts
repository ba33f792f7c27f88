import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { z } from 'zod';
import { SignalsPageSchema } from '../../src/pos/audit/schemas';
import { localDate } from '../../src/pos/audit/store-day';
import { addStore, addTerminal } from '../../src/pos/terminals/operations';
import { startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * The abuse signals over real HTTP, real Redis and the sandbox: a day of
 * ordinary trade at three stores with each pattern planted at places a seeded
 * random draw picks flags exactly those patterns, each store sees only its own
 * part, the day's reconciliation lists the same, and the daily job counts them
 * in pos_abuse_signals_total. A day of ordinary trade (with the managers' quick
 * refunds of sales that earned points), and the same day with each pattern one
 * step short of its threshold, flags nothing.
 */

const SEED = Number(process.env.SIGNALS_SEED ?? 31);

/** mulberry32: a small seeded generator, so a failing draw can be run again (SIGNALS_SEED). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(xs: T[], rnd: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

type Act = { name: string; run: () => Promise<void> };
/** Acts in any order, and refunds each to be played after its sale. */
type Acts = { acts: Act[]; undos: [sale: Act, refund: Act][] };
type Store = 'store-001' | 'store-002' | 'store-003';

/** A till of each store (cashier, manager), by token; store-003 is added to the stack's file. */
class Tills {
  constructor(
    private readonly s: Stack,
    private readonly extra: { cashier: string; manager: string },
  ) {}

  private token(store: Store, role: 'cashier' | 'manager'): string {
    if (store === 'store-003') return this.extra[role];
    const name = store === 'store-001' ? role : role === 'cashier' ? 'otherCashier' : 'otherManager';
    return this.s.tokens[name];
  }

  post(store: Store, role: 'cashier' | 'manager', p: string, body: object, who: { cashier: string; shift: string }) {
    return request(this.s.bff.url)
      .post(`/pos/v1${p}`)
      .set({
        Authorization: `Bearer ${this.token(store, role)}`,
        'Idempotency-Key': randomUUID(),
        'X-Cashier-Id': who.cashier,
        'X-Shift-Id': who.shift,
      })
      .send(body);
  }

  get(store: Store, p: string) {
    return request(this.s.bff.url)
      .get(`/pos/v1${p}`)
      .set({ Authorization: `Bearer ${this.token(store, 'manager')}` });
  }
}

async function stackWithThreeStores(env: Record<string, string> = {}): Promise<{ s: Stack; tills: Tills }> {
  const s = await startStack({
    store: 'redis',
    env: { RETURNS_AT_ANY_BRANCH: 'true', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '1000', STORE_TIME_ZONE: 'UTC', ...env },
  });
  addStore(s.terminalsFile, { id: 'store-003', merchant: { uniqueId: 'm-1', name: 'Test Retail' }, branch: { uniqueId: 'branch-003', name: 'Branch 003' } });
  const cashier = addTerminal(s.terminalsFile, { storeId: 'store-003', role: 'cashier', id: 'till-cashier-003' }).token;
  const manager = addTerminal(s.terminalsFile, { storeId: 'store-003', role: 'manager', id: 'till-manager-003' }).token;
  await s.restart(0);
  return { s, tills: new Tills(s, { cashier, manager }) };
}

let seq = 0;
const uid = (what: string) => `${what}-${++seq}`;

/** The acts of a day's trade: sales and refunds, redemptions with the QR code's hash or a typed id. */
function trade(s: Stack, tills: Tills) {
  const sale = (store: Store, customerId: string, who: { cashier: string; shift: string }, paymentId = uid('sale')): Act => ({
    name: `sale ${paymentId} of ${customerId} at ${store} (${who.cashier}/${who.shift})`,
    run: async () => {
      await s.seed(customerId, 1000);
      const res = await tills.post(store, 'cashier', '/payments', { customerId, paymentId, totalPaid: 20, totalAmount: 20 }, who);
      if (res.status !== 201) throw new Error(`sale ${paymentId}: ${res.status} ${res.text}`);
    },
  });
  const refund = (store: Store, customerId: string, paymentId: string, who: { cashier: string; shift: string }): Act => ({
    name: `refund of ${paymentId} at ${store} (${who.cashier})`,
    run: async () => {
      const res = await tills.post(store, 'manager', '/refunds', { customerId, refundId: uid('refund'), paymentId, amount: 20 }, who);
      if (res.status !== 201) throw new Error(`refund of ${paymentId}: ${res.status} ${res.text}`);
    },
  });
  const redemption = (store: Store, customerId: string, who: { cashier: string; shift: string }, proof: 'hash' | 'typed'): Act => ({
    name: `redemption of ${customerId} at ${store} (${who.cashier}, ${proof})`,
    run: async () => {
      await s.seed(customerId, 1000);
      const body = proof === 'hash' ? { customerId, hash: await s.hash(customerId), points: 50 } : { customerId, points: 50 };
      const res = await tills.post(store, 'cashier', '/redemptions', body, who);
      if (res.status !== 201) throw new Error(`redemption of ${customerId}: ${res.status} ${res.text}`);
    },
  });
  return { sale, refund, redemption };
}

const anna = { cashier: 'anna', shift: 'am-1' };
const piet = { cashier: 'piet', shift: 'pm-1' };
const omar = { cashier: 'omar', shift: 'x-1' };
const lena = { cashier: 'lena', shift: 'y-1' };

const mona = { cashier: 'mona', shift: 'office-1' };
const karim = { cashier: 'karim', shift: 'office-2' };

/** `n` sales of one cashier that earn points, each refunded at the store's manager till by `refunder`. */
function earnedAndRefunded(
  t: ReturnType<typeof trade>,
  store: Store,
  n: number,
  rung: typeof anna,
  refunder: typeof anna,
  customerId?: string,
): Acts & { paymentIds: string[] } {
  const paymentIds = Array.from({ length: n }, () => uid('sale'));
  const undos = paymentIds.map((paymentId): [Act, Act] => {
    const customer = customerId ?? uid('walk-in');
    return [t.sale(store, customer, rung, paymentId), t.refund(store, customer, paymentId, refunder)];
  });
  return { acts: undos.map(([sale]) => sale), undos, paymentIds };
}

/**
 * Ordinary trade: every customer seen once, every redemption from a QR code's
 * hash, and at two stores the manager's quick refunds of three of a cashier's
 * sales (ordinary returns: a refund by someone else than the cashier who rang
 * the sale is not counted).
 */
function ordinaryDay(t: ReturnType<typeof trade>): Acts {
  const acts: Act[] = [];
  for (let i = 0; i < 9; i++) acts.push(t.sale('store-001', uid('walk-in'), anna));
  for (let i = 0; i < 7; i++) acts.push(t.sale('store-002', uid('walk-in'), omar));
  for (let i = 0; i < 4; i++) acts.push(t.sale('store-003', uid('walk-in'), lena));
  for (const store of ['store-001', 'store-002', 'store-003'] as const) for (let i = 0; i < 2; i++) acts.push(t.redemption(store, uid('member'), lena, 'hash'));
  const returns = [earnedAndRefunded(t, 'store-001', 3, anna, mona), earnedAndRefunded(t, 'store-002', 3, omar, karim)];
  return { acts: [...acts, ...returns.flatMap((r) => r.acts)], undos: returns.flatMap((r) => r.undos) };
}

/** Each refund put at a random place after its sale (inserting elsewhere keeps the order of what is there). */
function withRefunds(day: Act[], undos: Acts['undos'], rnd: () => number): Act[] {
  for (const [sale, refund] of undos) {
    const after = day.indexOf(sale) + 1;
    day.splice(after + Math.floor(rnd() * (day.length - after + 1)), 0, refund);
  }
  return day;
}

async function play(acts: Act[]): Promise<void> {
  for (const act of acts) await act.run();
}

/** What a store's manager is shown, in short. */
async function shown(tills: Tills, s: Stack, store: Store) {
  await s.bff.deps.audit?.flush();
  const res = await tills.get(store, `/audit/signals?date=${localDate(Date.now(), 'UTC')}`).expect(200);
  return res.body as z.infer<typeof SignalsPageSchema>;
}

describe(`abuse signals of a scripted day (seed ${SEED})`, () => {
  let s: Stack;
  let tills: Tills;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-signals-'));
  beforeAll(async () => {
    ({ s, tills } = await stackWithThreeStores({ RECONCILIATION_REPORT_DIR: dir }));
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('flags exactly the planted patterns, each store its own part, in the signals page, the reconciliation and the metric', async () => {
    const rnd = seeded(SEED);
    const t = trade(s, tills);
    const ordinary = ordinaryDay(t);
    // customer_share: 3 of the 10 sales of piet's shift are one customer's.
    const shift = shuffled(
      [...Array.from({ length: 7 }, () => t.sale('store-001', uid('walk-in'), piet)), ...[1, 2, 3].map(() => t.sale('store-001', 'hoarder', piet))],
      rnd,
    );
    // multi_store_redemptions: one customer's redemptions at the three stores; typed_customer_id: three typed starts by one cashier.
    const roaming = (['store-001', 'store-002', 'store-003'] as const).map((st) => t.redemption(st, 'roamer', lena, 'hash'));
    const typist = { cashier: 'typist', shift: 'x-2' };
    const typed = [1, 2, 3].map(() => t.redemption('store-002', uid('typed'), typist, 'typed'));
    // earn_then_refund: a cashier rings three sales that earn points on one card, and refunds each at the manager's till.
    const refunder = { cashier: 'refunder', shift: 'x-3' };
    const own = earnedAndRefunded(t, 'store-002', 3, refunder, refunder, 'etr-customer');
    const day = shuffled([...ordinary.acts, ...roaming, ...typed, ...own.acts], rnd);
    // The shift's sales keep their own order among the rest, at random places; each refund somewhere after its sale.
    for (const act of shift) day.splice(Math.floor(rnd() * (day.length + 1)), 0, act);
    await play(withRefunds(day, [...ordinary.undos, ...own.undos], rnd));

    const one = await shown(tills, s, 'store-001');
    const two = await shown(tills, s, 'store-002');
    const three = await shown(tills, s, 'store-003');
    const brief = (v: Awaited<ReturnType<typeof shown>>) => v.signals.map((x) => [x.signal, x.customerId ?? x.parts[0].cashierIds.join(' ')]).sort();
    expect(brief(one)).toEqual([
      ['customer_share', 'hoarder'],
      ['multi_store_redemptions', 'roamer'],
    ]);
    expect(brief(two)).toEqual([
      ['earn_then_refund', 'etr-customer'],
      ['multi_store_redemptions', 'roamer'],
      ['typed_customer_id', 'typist'],
    ]);
    expect(brief(three)).toEqual([['multi_store_redemptions', 'roamer']]);

    const share = one.signals.find((x) => x.signal === 'customer_share');
    expect(share).toMatchObject({ shiftId: 'pm-1', count: 3, of: 10, parts: [expect.objectContaining({ storeId: 'store-001', cashierIds: ['piet'] })] });
    const refund = two.signals.find((x) => x.signal === 'earn_then_refund');
    const ownSales = [...own.paymentIds].sort();
    expect(refund).toMatchObject({ count: 3, threshold: 3 });
    expect(refund?.note).toMatch(
      /^Cashier refunder refunded or voided 3 of their own sales that earned points, each within 24 h, all to customer etr-customer/,
    );
    for (const id of ownSales) expect(refund?.note).toContain(id);
    expect(refund?.parts).toEqual([expect.objectContaining({ storeId: 'store-002', cashierIds: ['refunder'], paymentIds: ownSales })]);
    expect(refund?.parts[0].refundIds).toHaveLength(3);
    // A pattern across stores: every store sees how many stores, and only its own part.
    for (const [view, store] of [
      [one, 'store-001'],
      [two, 'store-002'],
      [three, 'store-003'],
    ] as const) {
      const roam = view.signals.find((x) => x.signal === 'multi_store_redemptions');
      expect(roam).toMatchObject({ count: 3, of: 3 });
      expect(roam?.parts.map((p) => p.storeId)).toEqual([store]);
      expect(roam?.parts[0].redemptionIds).toHaveLength(1);
    }

    // The day's reconciliation lists the same, in its report and its printout.
    const today = localDate(Date.now(), 'UTC');
    const report = await tills.get('store-002', `/reconciliation?date=${today}`).expect(200);
    expect(report.body.signals).toEqual(two.signals);
    expect(report.body.printout).toContain('------------ Abuse signals -------------');

    // The daily job of the next day counts each signal once, fleet-wide.
    await s.advance(86_400_000);
    await s.restart(0, { RECONCILIATION_DAILY_AT: '00:00' });
    await waitFor('the daily reports', () => s.logs.filter((l) => l.includes('daily reconciliation written')).length >= 3, 20_000);
    const metrics = await s.bff.deps.metrics.render();
    const counted = Object.fromEntries([...metrics.matchAll(/^pos_abuse_signals_total\{signal="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
    expect(counted).toEqual({ customer_share: 1, earn_then_refund: 1, multi_store_redemptions: 1, typed_customer_id: 1 });
    const written = JSON.parse(readFileSync(path.join(dir, `reconciliation-store-003-${today}.json`), 'utf8'));
    expect(written.signals.map((x: { signal: string }) => x.signal)).toEqual(['multi_store_redemptions']);
  });
});

describe(`a clean day, and each pattern one step short of its threshold (seed ${SEED})`, () => {
  let s: Stack;
  let tills: Tills;
  beforeAll(async () => {
    ({ s, tills } = await stackWithThreeStores());
  });
  afterAll(async () => {
    await s?.close();
  });

  const none = async () => {
    for (const store of ['store-001', 'store-002', 'store-003'] as const) expect((await shown(tills, s, store)).signals).toEqual([]);
  };

  it('flags nothing', async () => {
    const rnd = seeded(SEED + 1);
    const t = trade(s, tills);
    const ordinary = ordinaryDay(t);
    await play(withRefunds(shuffled(ordinary.acts, rnd), ordinary.undos, rnd));
    await none();
    const report = await tills.get('store-001', `/reconciliation?date=${localDate(Date.now(), 'UTC')}`).expect(200);
    expect(report.body.signals).toEqual([]);
    expect(report.body.printout).not.toContain('------------ Abuse signals -------------');

    const near = [
      // 3 of 11 sales (27 %), and 3 of 9 (too few sales for the share to count).
      ...Array.from({ length: 8 }, () => t.sale('store-001', uid('walk-in'), { cashier: 'near-1', shift: 'n-1' })),
      ...[1, 2, 3].map(() => t.sale('store-001', 'near-hoarder', { cashier: 'near-1', shift: 'n-1' })),
      ...Array.from({ length: 6 }, () => t.sale('store-002', uid('walk-in'), { cashier: 'near-2', shift: 'n-2' })),
      ...[1, 2, 3].map(() => t.sale('store-002', 'near-hoarder-2', { cashier: 'near-2', shift: 'n-2' })),
      // Two stores only; two typed starts only.
      t.redemption('store-001', 'near-roamer', lena, 'hash'),
      t.redemption('store-003', 'near-roamer', lena, 'hash'),
      ...[1, 2].map(() => t.redemption('store-003', uid('typed'), { cashier: 'near-typist', shift: 'n-3' }, 'typed')),
    ];
    // Two of a cashier's own sales refunded by them; a third refunded by the manager.
    const nearRefunder = { cashier: 'near-refunder', shift: 'n-4' };
    const twoOwn = earnedAndRefunded(t, 'store-003', 2, nearRefunder, nearRefunder, 'near-etr');
    const third = earnedAndRefunded(t, 'store-003', 1, nearRefunder, lena, 'near-etr');
    const acts = shuffled([...near, ...twoOwn.acts, ...third.acts], rnd);
    await play(withRefunds(acts, [...twoOwn.undos, ...third.undos], rnd));
    await none();
  });
});

import { silentLogger } from '../../../src/platform/logger';
import { createAuditStore } from '../../../src/pos/audit';
import { auditCsv, auditText, csvCell } from '../../../src/pos/audit/format';
import { readAllAudit, readAuditPage } from '../../../src/pos/audit/query';
import { AuditTrail } from '../../../src/pos/audit/trail';
import { MemoryAuditStore } from '../../../src/pos/audit/memory-store';
import { RedisAuditStore } from '../../../src/pos/audit/redis-store';
import type { AuditStore, NewAuditEntry } from '../../../src/pos/audit/types';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';
import type { Redis } from '../../../src/platform/redis';

// Now: a Redis Stream id is the server's clock.
const T0 = Date.now();
/** Every append time: a stream's ids are the server's clock, the memory store's the `now` given. */
const EVER = { fromMs: 0, untilMs: Number.MAX_SAFE_INTEGER };

const entry = (over: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  at: T0,
  storeId: 'store-001',
  terminalId: 'till-1',
  action: 'payment',
  outcome: 'applied',
  ...over,
});

interface Harness {
  store: AuditStore;
  /** A store of the same kind keeping entries `ms` long. */
  keeping(ms: number): AuditStore;
  redis?: Redis;
  cleanup(): Promise<void>;
}

const memory = async (): Promise<Harness> => ({
  store: createAuditStore({ prefix: '', retentionDays: 1 }),
  keeping: (ms) => new MemoryAuditStore(ms),
  cleanup: async () => undefined,
});
const redis = async (): Promise<Harness> => {
  const prefix = uniquePrefix('audit');
  const r = await testRedis();
  return {
    store: createAuditStore({ redis: r, prefix, retentionDays: 1 }),
    keeping: (ms) => new RedisAuditStore(r, { prefix: `${prefix}short:`, retentionMs: ms }),
    redis: r,
    cleanup: async () => {
      await deleteKeys(r, prefix);
      r.disconnect();
    },
  };
};

describe.each([
  ['memory', memory],
  ['redis', redis],
])('audit store (%s)', (_kind, make) => {
  let h: Harness;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => h.cleanup());

  it("keeps each store's entries apart and reads them back oldest first, with every field", async () => {
    await h.store.append(entry({ cashierId: 'c-1', customerId: 'ana', paymentId: 'P1', amountPaid: 12.5, pointsEarned: 12, names: ['a', 'b'] }), T0);
    await h.store.append(entry({ storeId: 'store-002', paymentId: 'P2' }), T0 + 1);
    await h.store.append(entry({ paymentId: 'P3', at: T0 + 2 }), T0 + 2);
    const page = await h.store.scan('store-001', { ...EVER, count: 10 });
    expect(page.done).toBe(true);
    expect(page.entries.map((e) => e.paymentId)).toEqual(['P1', 'P3']);
    expect(page.entries[0]).toMatchObject({ cashierId: 'c-1', customerId: 'ana', amountPaid: 12.5, pointsEarned: 12, names: ['a', 'b'], at: T0 });
    expect((await h.store.scan('store-002', { ...EVER, count: 10 })).entries.map((e) => e.paymentId)).toEqual(['P2']);
  });

  it('pages by id: each page starts after the last one, and says when the range is read', async () => {
    for (let i = 0; i < 5; i++) await h.store.append(entry({ paymentId: `P${i}` }), T0 + i);
    const first = await h.store.scan('store-001', { ...EVER, count: 2 });
    expect([first.entries.map((e) => e.paymentId), first.done]).toEqual([['P0', 'P1'], false]);
    const second = await h.store.scan('store-001', { ...EVER, count: 3, afterId: first.lastId });
    // A full page cannot tell the range ended: the next one, empty, does.
    expect([second.entries.map((e) => e.paymentId), second.done]).toEqual([['P2', 'P3', 'P4'], false]);
    const third = await h.store.scan('store-001', { ...EVER, count: 3, afterId: second.lastId });
    expect([third.entries, third.done]).toEqual([[], true]);
  });

  it('trims entries older than the retention as new ones are written', async () => {
    const store = h.keeping(100);
    for (let i = 0; i < 150; i++) await store.append(entry({ paymentId: `old-${i}` }), Date.now());
    await new Promise((r) => setTimeout(r, 250));
    await store.append(entry({ paymentId: 'new' }), Date.now());
    const all = await store.scan('store-001', { fromMs: 0, untilMs: Date.now() + 1000, count: 1000 });
    expect(all.entries.at(-1)?.paymentId).toBe('new');
    // Redis trims whole nodes of the stream (MINID ~, 100 entries a node): the first node goes, the one holding the newest stays.
    if (h.redis) expect(all.entries.length).toBeLessThanOrEqual(51);
    else expect(all.entries.length).toBe(1);
  });

  it('filters by time, terminal, cashier, customer and action, and finds an entry written late by its own time', async () => {
    await h.store.append(entry({ customerId: 'ana', cashierId: 'c-1', action: 'redemption_start', terminalId: 'till-1' }), T0);
    await h.store.append(entry({ customerId: 'ana', cashierId: 'c-2', action: 'payment', terminalId: 'till-2', at: T0 + 1000 }), T0 + 1000);
    await h.store.append(entry({ customerId: 'bob', cashierId: 'c-1', action: 'payment', at: T0 + 2000 }), T0 + 2000);
    // Kept in memory while Redis was away: written an hour later, about a moment of the range.
    await h.store.append(entry({ customerId: 'ana', cashierId: 'c-3', action: 'payment', at: T0 + 3000 }), T0 + 3600_000);
    const read = (f: Partial<Parameters<typeof readAuditPage>[2]>) =>
      readAuditPage(h.store, 'store-001', { from: T0, to: T0 + 5000, ...f }, { limit: 50 }).then((p) => p.entries.map((e) => e.cashierId));
    expect(await read({})).toEqual(['c-1', 'c-2', 'c-1', 'c-3']);
    expect(await read({ customerId: 'ana', actions: ['payment'] })).toEqual(['c-2', 'c-3']);
    expect(await read({ terminalId: 'till-2' })).toEqual(['c-2']);
    expect(await read({ cashierId: 'c-1' })).toEqual(['c-1', 'c-1']);
    expect(await read({ from: T0 + 500, to: T0 + 2500 })).toEqual(['c-2', 'c-1']);
    expect(await read({ actions: ['redemption_start', 'otp_step'] })).toEqual(['c-1']);
  });

  it('pages a filtered read with a cursor, and reads a whole day', async () => {
    for (let i = 0; i < 12; i++) await h.store.append(entry({ paymentId: `P${i}`, customerId: i % 2 ? 'ana' : 'bob', at: T0 + i }), T0 + i);
    const pages: string[][] = [];
    let after: string | undefined;
    do {
      const p = await readAuditPage(h.store, 'store-001', { from: T0, to: T0 + 100, customerId: 'ana' }, { limit: 4, after });
      pages.push(p.entries.map((e) => e.paymentId as string));
      after = p.next;
    } while (after);
    expect(pages).toEqual([
      ['P1', 'P3', 'P5', 'P7'],
      ['P9', 'P11'],
    ]);
    expect((await readAllAudit(h.store, 'store-001', T0, T0 + 100)).length).toBe(12);
  });
});

describe('audit formats', () => {
  const at = Date.parse('2026-11-24T09:00:00Z');
  const entries = [
    { ...entry({ at, cashierId: 'c-1', shiftId: 's-am', customerId: '=HYPERLINK("x")', paymentId: 'P,1', amountPaid: 130, pointsEarned: 260 }), id: '1-0' },
    { ...entry({ action: 'refund', outcome: 'refused', code: 'sale_not_found', refundId: 'R1', at: at + 60_000 }), id: '2-0' },
  ];

  it('CSV: one row per entry, quoted where needed, and a cell a spreadsheet would run as a formula is made text', () => {
    const lines = auditCsv(entries).trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[0].split(',').slice(0, 8)).toEqual(['at', 'storeId', 'terminalId', 'cashierId', 'shiftId', 'action', 'outcome', 'code']);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")"`);
    expect(lines[1]).toContain('"P,1"');
    expect(lines[2]).toContain('refused,sale_not_found');
  });

  it('CSV: a list cell (names from tills: order ids, coupon codes) is made text too when it starts like a formula', () => {
    expect(csvCell(['=HYPERLINK("x")', 'B-2'])).toBe(`"'=HYPERLINK(""x"") B-2"`);
    expect(csvCell(['WELCOME10'])).toBe('WELCOME10');
    expect(csvCell(-80)).toBe('-80');
  });

  it('text: one line per entry in the store time zone', () => {
    const text = auditText(entries, 'Africa/Cairo').split('\n');
    expect(text[0]).toMatch(/^TIME\s+TERMINAL\s+CASHIER\/SHIFT\s+ACTION\s+OUTCOME\s+CUSTOMER\s+DETAIL$/);
    expect(text[1]).toMatch(/^2026-11-24 11:00:00 {2}till-1 +c-1\/s-am +payment +applied .*payment P,1, paid 130, \+260 earned$/);
    expect(text[2]).toMatch(/refused \(sale_not_found\)/);
  });
});

describe('AuditTrail', () => {
  it('never throws or waits, and skips absent fields', async () => {
    const store = createAuditStore({ prefix: '', retentionDays: 1 });
    const trail = new AuditTrail({ store, logger: silentLogger, clock: () => T0 });
    expect(trail.record(entry({ customerId: undefined, paymentId: 'P1' }))).toBeUndefined();
    await trail.flush();
    const [e] = (await store.scan('store-001', { fromMs: 0, untilMs: T0, count: 5 })).entries;
    expect(Object.keys(e)).not.toContain('customerId');
  });
});

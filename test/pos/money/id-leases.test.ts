import type { Redis } from 'ioredis';
import pino from 'pino';
import { idClaim } from '../../../src/pos/money/ids/claims';
import { IdLeaseSweeper } from '../../../src/pos/money/ids/lease-sweep';
import { asTaker, setClaimLeaseMs } from '../../../src/pos/money/lease';
import { createSaleRecords, type SaleEntry, type SaleRecords } from '../../../src/pos/sales/records';
import { saleForVoid, type SaleClaimDeps } from '../../../src/pos/sales/claims';
import type { CallContext } from '../../../src/pos/context';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';

/*
 * The leases of sale and refund id claims, held by each store (a real
 * redis-server, and the memory twin): a claim carries who took it and until
 * when, is listed by its lease end, and leaves the list once settled, freed or
 * queued; the sweep settles only claims past their lease, each once across
 * sweepers, and asks again later, less often, about one that cannot say yet.
 */

const LEASE_MS = 1000;
const RECHECK_MS = 500;
const logger = pino({ level: 'silent' });
const sale = (id: string): SaleEntry => ({ kind: 'payment', id, storeId: 'store-001', customerId: 'c-1', paymentId: id, totalPaid: 40 });

let now = 1_790_000_000_000;
const clock = () => now;

const stores: [string, () => Promise<{ records: SaleRecords; done(): Promise<void> }>][] = [
  [
    'redis',
    async () => {
      const redis: Redis = await testRedis();
      const prefix = uniquePrefix('id-leases');
      return {
        records: createSaleRecords({ redis, prefix, ttlDays: 3, clock }),
        async done() {
          await deleteKeys(redis, prefix);
          await redis.quit();
        },
      };
    },
  ],
  ['memory', async () => ({ records: createSaleRecords({ prefix: 'unused:', ttlDays: 3, clock }), done: async () => undefined })],
];

describe.each(stores)('id claims carry a lease (%s)', (_name, make) => {
  let records: SaleRecords;
  let done: () => Promise<void>;
  let settled: SaleEntry[];
  let audited: [SaleEntry, string][];
  let givenUp: SaleEntry[];
  /** Settles as the upstream's record would show it: on record when `onRecord` says so. */
  let onRecord: (e: SaleEntry) => boolean;
  const sweeper = () =>
    new IdLeaseSweeper<SaleEntry>({
      records,
      settle: async (e) => {
        settled.push(e);
        if (!onRecord(e)) throw new Error('not on record yet');
        const r = await records.apply(e.kind, e.id, 'recorded');
        return r.ok ? 'recorded' : 'unchanged';
      },
      onSettled: (e, recorded) => audited.push([e, recorded]),
      onGivenUp: (e) => givenUp.push(e),
      intervalMs: 1000,
      recheckMs: RECHECK_MS,
      logger,
      clock,
    });

  beforeAll(() => setClaimLeaseMs(LEASE_MS));
  beforeEach(async () => {
    ({ records, done } = await make());
    settled = [];
    audited = [];
    givenUp = [];
    onRecord = () => true;
  });
  afterEach(() => done());

  it('stamps who took a claim and until when, and settles it only once that lease is over', async () => {
    const taken = await asTaker({ terminalId: 'till-1', cashierId: 'anna-07', shiftId: 's-1', requestId: 'req-1' }, () => records.claim(sale('P1')));
    expect(taken.entry.lease).toEqual({ at: now, until: now + LEASE_MS, terminalId: 'till-1', cashierId: 'anna-07', shiftId: 's-1', requestId: 'req-1' });
    now += LEASE_MS - 1;
    expect(await sweeper().sweepOnce()).toEqual({ settled: 0, full: false });
    expect(settled).toEqual([]);
    now += 1;
    expect(await sweeper().sweepOnce()).toEqual({ settled: 1, full: false });
    expect(await records.get('payment', 'P1')).toMatchObject({ state: 'recorded' });
    expect(await records.get('payment', 'P1')).not.toHaveProperty('lease');
    expect(audited).toEqual([[expect.objectContaining({ id: 'P1', lease: expect.objectContaining({ cashierId: 'anna-07' }) }), 'recorded']]);
  });

  it('unlists a claim settled, freed or queued before its lease ends', async () => {
    await records.claim(sale('P2'));
    await records.claim(sale('P3'));
    await records.claim(sale('P4'));
    await records.apply('payment', 'P2', 'recorded');
    await records.free('payment', 'P3', 'store-001');
    await records.change('payment', 'P4', (cur) => ({ ...cur, queued: true }));
    now += 10 * LEASE_MS;
    expect(await records.leases.takeDue(now, now + RECHECK_MS, 10)).toEqual([]);
    expect(settled).toEqual([]);
  });

  it('a void claims the sale with a lease of its own, settled once it is over', async () => {
    await records.claim(sale('P5'));
    await records.apply('payment', 'P5', 'recorded');
    now += 5000;
    const voiding = await records.apply('payment', 'P5', 'void', { args: { voidRefundId: 'void-P5' } });
    expect(voiding.ok && voiding.entry.lease?.until).toBe(now + LEASE_MS);
    expect(await records.leases.takeDue(now + LEASE_MS - 1, now + RECHECK_MS, 10)).toEqual([]);
    expect(await records.leases.takeDue(now + LEASE_MS, now + LEASE_MS + RECHECK_MS, 10)).toEqual(['payment:P5']);
  });

  it('asks again later, less often, about a claim its record cannot show yet', async () => {
    onRecord = () => false;
    await records.claim(sale('P6'));
    now += LEASE_MS;
    await sweeper().sweepOnce();
    expect(settled).toHaveLength(1);
    now += RECHECK_MS - 1;
    await sweeper().sweepOnce();
    expect(settled).toHaveLength(1);
    now += 1;
    await sweeper().sweepOnce();
    expect(settled).toHaveLength(2);
    // Long past its lease: the next ask waits as long as the lease has been over.
    now += 60_000;
    await sweeper().sweepOnce();
    expect(settled).toHaveLength(3);
    now += 30_000;
    await sweeper().sweepOnce();
    expect(settled).toHaveLength(3);
    now += 31_000;
    onRecord = () => true;
    await sweeper().sweepOnce();
    expect(settled).toHaveLength(4);
    expect(await records.get('payment', 'P6')).toMatchObject({ state: 'recorded' });
    expect(audited).toHaveLength(1);
  });

  it('settles each claim once across sweepers racing', async () => {
    for (const id of ['P7', 'P8', 'P9']) await records.claim(sale(id));
    now += LEASE_MS;
    const passes = await Promise.all([sweeper().sweepOnce(), sweeper().sweepOnce(), sweeper().sweepOnce()]);
    expect(passes.reduce((n, p) => n + p.settled, 0)).toBe(3);
    expect(settled.map((e) => e.id).sort()).toEqual(['P7', 'P8', 'P9']);
  });

  it('leaves a claim whose write was queued in the outbox to the outbox', async () => {
    const entry = sale('P10');
    const claim = idClaim({ records }, entry, () => entry, {
      sameWrite: () => true,
      taken: () => new Error('taken'),
      check: async () => ({ kind: 'same' }),
      settledElsewhere: (answer) => (answer as { queued?: boolean }).queued === true,
    });
    await claim.take();
    await claim.finish({ queued: true });
    expect(await records.get('payment', 'P10')).toMatchObject({ state: 'recording', queued: true });
    now += 10 * LEASE_MS;
    expect(await sweeper().sweepOnce()).toEqual({ settled: 0, full: false });
    expect(settled).toEqual([]);
  });

  it('leaves a void whose refund was queued in the outbox to the outbox, and sees the sale again once voided anew', async () => {
    await records.claim(sale('P11'));
    await records.apply('payment', 'P11', 'recorded');
    const ctx = { identity: { store: { id: 'store-001' } } } as unknown as CallContext;
    const voiding = saleForVoid({ sales: records } as unknown as SaleClaimDeps, ctx, 'P11', 'void-P11', false);
    await voiding.take();
    await voiding.finish({ queued: true });
    expect(await records.get('payment', 'P11')).toMatchObject({ state: 'voiding', queued: true });
    now += 10 * LEASE_MS;
    expect(await sweeper().sweepOnce()).toEqual({ settled: 0, full: false });
    expect(settled).toEqual([]);
    // The outbox's refund refused: the sale is recorded again, and a later void is a claim the sweep sees.
    await records.apply('payment', 'P11', 'voidRefused');
    const again = await records.apply('payment', 'P11', 'void', { args: { voidRefundId: 'void-P11' } });
    expect(again.ok && again.entry.queued).toBeUndefined();
    now += LEASE_MS;
    expect(await records.leases.takeDue(now, now + RECHECK_MS, 10)).toEqual(['payment:P11']);
  });

  it('gives up a day past its lease on a claim its record never shows: unlisted once, left claimed, reported', async () => {
    onRecord = () => false;
    await records.claim(sale('P12'));
    now += LEASE_MS;
    await sweeper().sweepOnce();
    expect(givenUp).toEqual([]);
    now += 24 * 3_600_000 - 1;
    await sweeper().sweepOnce();
    expect(givenUp).toEqual([]);
    now += 15 * 60_000;
    await sweeper().sweepOnce();
    expect(givenUp.map((e) => e.id)).toEqual(['P12']);
    const asked = settled.length;
    now += 24 * 3_600_000;
    await sweeper().sweepOnce();
    expect(settled).toHaveLength(asked);
    expect(givenUp).toHaveLength(1);
    expect(await records.get('payment', 'P12')).toMatchObject({ state: 'recording' });
  });

  it("renews a void's lease when the same void takes the sale again (a till's retry)", async () => {
    await records.claim(sale('P13'));
    await records.apply('payment', 'P13', 'recorded');
    const ctx = { identity: { store: { id: 'store-001' } } } as unknown as CallContext;
    const first = saleForVoid({ sales: records } as unknown as SaleClaimDeps, ctx, 'P13', 'void-P13', false);
    await asTaker({ requestId: 'req-1' }, () => first.take());
    now += LEASE_MS - 100;
    const retry = saleForVoid({ sales: records } as unknown as SaleClaimDeps, ctx, 'P13', 'void-P13', false);
    await asTaker({ requestId: 'req-2' }, () => retry.take());
    expect(retry.again).toBe(true);
    expect((await records.get('payment', 'P13'))?.lease).toEqual({ at: now, until: now + LEASE_MS, requestId: 'req-2' });
    // Not due at the first lease's end: the retry is settling it.
    now += 100;
    expect(await sweeper().sweepOnce()).toEqual({ settled: 0, full: false });
    expect(settled).toEqual([]);
  });
  it("renews a sale id's lease when the same write takes it again (a till's retry)", async () => {
    const entry = sale('P14');
    const rules = { sameWrite: () => true, taken: () => new Error('taken'), check: async () => ({ kind: 'same' as const }) };
    await asTaker({ requestId: 'req-1' }, () => idClaim({ records }, entry, () => entry, rules).take());
    now += LEASE_MS - 100;
    const retry = idClaim({ records }, entry, () => entry, rules);
    await asTaker({ requestId: 'req-2' }, () => retry.take());
    expect(retry.again).toBe(true);
    expect((await records.get('payment', 'P14'))?.lease).toMatchObject({ at: now, until: now + LEASE_MS, requestId: 'req-2' });
    now += 100;
    expect(await sweeper().sweepOnce()).toEqual({ settled: 0, full: false });
  });
});

import type { Redis } from 'ioredis';
import { createSaleRecords, type SaleEntry, type SaleRecords } from '../../../src/pos/sales/records';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';

/*
 * Two money rules of the sale records, held by each store (a real
 * redis-server, and the one-instance memory store): the sale state machine
 * refuses going back, and a change is a compare-and-set (of two voids racing
 * on one sale, one wins).
 */

const TTL_DAYS = 1;
const sale = (id: string): SaleEntry => ({ kind: 'payment', id, storeId: 'store-001', customerId: 'c-1', paymentId: id, totalPaid: 40 });

/** Claims the sale and moves it to `recorded`, as a sale the upstream accepted. */
async function recordedSale(records: SaleRecords, id: string): Promise<void> {
  expect((await records.claim(sale(id))).ok).toBe(true);
  expect((await records.change('payment', id, (cur) => ({ ...cur, state: 'recorded' }))).ok).toBe(true);
}

/** A void's claim of the sale under `refundId`, as a compare-and-set from `recorded`. */
const voidClaim = (records: SaleRecords, id: string, refundId: string) =>
  records.change('payment', id, (cur) => (cur.state === 'recorded' ? { ...cur, state: 'voiding', voidRefundId: refundId } : `it is ${cur.state}`));

const stores: [string, () => Promise<{ records: SaleRecords; done(): Promise<void> }>][] = [
  [
    'redis',
    async () => {
      const redis: Redis = await testRedis();
      const prefix = uniquePrefix('sale-rules');
      return {
        records: createSaleRecords({ redis, prefix, ttlDays: TTL_DAYS }),
        async done() {
          await deleteKeys(redis, prefix);
          await redis.quit();
        },
      };
    },
  ],
  ['memory', async () => ({ records: createSaleRecords({ prefix: 'unused:', ttlDays: TTL_DAYS }), done: async () => undefined })],
];

describe.each(stores)('the sale state machine refuses going back (voided to recorded) (%s store)', (_name, open) => {
  let store: Awaited<ReturnType<typeof open>>;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(() => store.done());

  it('a voided sale cannot be moved back to recorded, nor claimed for another void', async () => {
    const { records } = store;
    await recordedSale(records, 'back-1');
    expect((await voidClaim(records, 'back-1', 'void-back-1')).ok).toBe(true);
    expect((await records.change('payment', 'back-1', (cur) => ({ ...cur, state: 'voided' }))).ok).toBe(true);

    const back = await records.change('payment', 'back-1', (cur) => ({ ...cur, state: 'recorded', voidRefundId: undefined }));
    expect(back).toMatchObject({ ok: false, detail: expect.stringContaining('cannot become recorded') });
    const again = await records.change('payment', 'back-1', (cur) => ({ ...cur, state: 'voiding', voidRefundId: 'another' }));
    expect(again.ok).toBe(false);
    expect(await records.get('payment', 'back-1')).toMatchObject({ state: 'voided', voidRefundId: 'void-back-1' });
  });
});

describe.each(stores)("the sale records' compare-and-set holds: two voids racing on one sale, one wins (%s store)", (_name, open) => {
  let store: Awaited<ReturnType<typeof open>>;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(() => store.done());

  it('of two claims from `recorded` made at once, exactly one succeeds, and the record names the winner', async () => {
    const { records } = store;
    for (let round = 0; round < 5; round++) {
      const id = `race-${round}`;
      await recordedSale(records, id);
      const results = await Promise.all([voidClaim(records, id, `void-a-${round}`), voidClaim(records, id, `void-b-${round}`)]);
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      const loser = results.find((r) => !r.ok);
      expect(loser).toMatchObject({ ok: false, detail: 'it is voiding' });
      expect(await records.get('payment', id)).toMatchObject({ state: 'voiding', voidRefundId: winners[0].ok ? winners[0].entry.voidRefundId : undefined });
    }
  });

  it('of two claims of one new id made at once (two stores), exactly one succeeds', async () => {
    const { records } = store;
    const results = await Promise.all([records.claim(sale('claim-race')), records.claim({ ...sale('claim-race'), storeId: 'store-002' })]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const winner = results.find((r) => r.ok)?.entry.storeId;
    expect(results.find((r) => !r.ok)?.entry.storeId).toBe(winner);
    expect((await records.get('payment', 'claim-race'))?.storeId).toBe(winner);
  });
});

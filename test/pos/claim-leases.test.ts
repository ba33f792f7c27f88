import pino from 'pino';
import { MemoryAuditStore } from '../../src/pos/audit/memory-store';
import { AuditTrail } from '../../src/pos/audit/trail';
import { saleLeaseSweeper } from '../../src/pos/claim-leases';
import { setClaimLeaseMs } from '../../src/pos/money/lease';
import { createSaleRecords, type SaleEntry } from '../../src/pos/sales/records';
import { deleteKeys, testRedis, uniquePrefix } from '../support/redis';

/*
 * A sale left `voiding` whose void's refund entry is gone (nothing can say
 * what became of the void) is not asked about for ever: the sale lease
 * sweeper gives it up past its limit, audits it `unknown` and counts it once.
 * A real redis-server.
 */
describe('the sale lease sweeper gives up a void nothing can settle', () => {
  it('audits it unknown and counts it once, then no longer asks', async () => {
    setClaimLeaseMs(1000);
    const redis = await testRedis();
    const prefix = uniquePrefix('claim-leases');
    let now = 1_790_000_000_000;
    const clock = () => now;
    const sales = createSaleRecords({ redis, prefix, ttlDays: 3, clock });
    const store = new MemoryAuditStore(86_400_000);
    const logger = pino({ level: 'silent' });
    const audit = new AuditTrail({ store, logger, clock });
    const givenUp: SaleEntry[] = [];
    try {
      const sale: SaleEntry = { kind: 'payment', id: 'P1', storeId: 'store-001', customerId: 'c-1', paymentId: 'P1', totalPaid: 40 };
      await sales.claim(sale);
      await sales.apply('payment', 'P1', 'recorded');
      await sales.apply('payment', 'P1', 'void', { args: { voidRefundId: 'void-P1' } });
      const sweeper = saleLeaseSweeper(
        { clock, logger, sales, audit, loyalty: undefined, repairs: undefined } as unknown as Parameters<typeof saleLeaseSweeper>[0],
        {
          intervalMs: 1000,
          recheckMs: 500,
          giveUpAfterMs: 60_000,
          onGivenUp: (e) => givenUp.push(e),
        },
      );
      now += 1000;
      await sweeper.sweepOnce();
      expect(givenUp).toEqual([]);
      for (let i = 0; i < 10; i++) {
        now += 30_000;
        await sweeper.sweepOnce();
      }
      expect(givenUp.map((e) => e.id)).toEqual(['P1']);
      expect(await sales.get('payment', 'P1')).toMatchObject({ state: 'voiding' });
      expect(await redis.zcard(`${prefix}sale-leases`)).toBe(0);
      await audit.flush();
      const entries = (await store.scan('store-001', { fromMs: 0, untilMs: now + 1, count: 100 })).entries;
      expect(entries).toEqual([
        expect.objectContaining({ action: 'sale_void', outcome: 'unknown', paymentId: 'P1', refundId: 'void-P1', repair: 'sale:payment:P1' }),
      ]);
    } finally {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });
});

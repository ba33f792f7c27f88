import { Writable } from 'node:stream';
import { createLogger, silentLogger } from '../../../src/platform/logger';
import { createMetrics } from '../../../src/platform/metrics';
import { connectRedis, waitForRedis, type Redis } from '../../../src/platform/redis';
import { RedisAuditStore } from '../../../src/pos/audit/redis-store';
import { AuditTrail } from '../../../src/pos/audit/trail';
import type { NewAuditEntry } from '../../../src/pos/audit/types';
import { eventually } from '../../faults/process-stack';
import { ThrowawayRedis } from '../../faults/throwaway-redis';
import { freePort } from '../../support/ports';

/**
 * The trail's store goes away (a real redis-server killed) and comes back:
 * recording never throws, each failed write is logged and counted, and the
 * entries are written once it is back, in order, with their own times.
 */
describe('audit trail while Redis is away', () => {
  let server: ThrowawayRedis;
  let redis: Redis;
  beforeAll(async () => {
    server = new ThrowawayRedis(await freePort());
    await server.start();
    redis = connectRedis(server.url, silentLogger);
    await waitForRedis(redis, 5000);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.cleanup();
  });

  it('keeps entries while it cannot write them, counts and logs each failure, and writes them in order when Redis is back', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', pretty: false, destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });
    const metrics = createMetrics({ defaultMetrics: false });
    const store = new RedisAuditStore(redis, { prefix: 'outage:', retentionMs: 86_400_000 });
    const trail = new AuditTrail({ store, logger, clock: Date.now, onFailure: (what) => metrics.auditFailures.inc({ what }), retryMs: 100 });
    const entry = (paymentId: string): NewAuditEntry => ({
      at: Date.now(),
      storeId: 'store-001',
      terminalId: 'till-1',
      action: 'payment',
      outcome: 'applied',
      paymentId,
    });

    trail.record(entry('before'));
    await trail.flush();
    await server.kill();
    expect(() => trail.record(entry('during-1'))).not.toThrow();
    await eventually(async () => trail.pendingCount === 1, 5000, 'the failed write to be kept');
    trail.record(entry('during-2'));
    expect(trail.pendingCount).toBe(2);
    const failed = await metrics.auditFailures.get();
    expect(failed.values.find((v) => v.labels.what === 'write_failed')?.value).toBeGreaterThanOrEqual(1);
    expect(lines.join('')).toContain('audit trail: an entry could not be written');

    await server.start();
    await eventually(async () => trail.pendingCount === 0, 10_000, 'the kept entries to be written');
    const { entries } = await store.scan('store-001', { fromMs: 0, untilMs: Number.MAX_SAFE_INTEGER, count: 10 });
    expect(entries.map((e) => e.paymentId)).toEqual(['before', 'during-1', 'during-2']);
    expect(entries[1].at).toBeLessThan(entries[2].at + 1);
    expect(lines.join('')).toContain('audit trail: the store is back');
    expect((await metrics.auditFailures.get()).values.find((v) => v.labels.what === 'entry_lost')).toBeUndefined();
    await trail.close();
  }, 30_000);
});

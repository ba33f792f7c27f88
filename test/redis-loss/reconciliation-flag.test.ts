import Redis from 'ioredis';
import { waitFor } from '../e2e/helpers';
import { startStack, type Stack } from '../support/e2e';
import { RedisServer } from './redis-server';

/** The day's reconciliation says when the Redis data set was lost within it: in the JSON header, the printout and the CSV. */
describe('the reconciliation of a window with a Redis data set loss', () => {
  let server: RedisServer;
  let s: Stack;

  beforeAll(async () => {
    server = await RedisServer.start({ persist: false });
    s = await startStack({ store: 'memory', env: { REDIS_URL: server.url, REDIS_DATASET_CHECK_MS: '200' } });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await server?.cleanup();
  });

  const report = (from: number, to: number, format = 'json') =>
    s
      .pos('manager')
      .get(`/reconciliation?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&format=${format}`)
      .expect(200);

  it('flags a window overlapping the loss, and not one before it', async () => {
    const start = Date.now();
    expect((await report(start - 60_000, start + 60_000)).body.redisLosses).toEqual([]);

    const admin = new Redis(server.url);
    const flushedAt = Date.now();
    await admin.flushall();
    admin.disconnect();
    await waitFor('the loss noticed', () => s.bff.redisDataset?.lastLoss !== undefined, 15_000);

    const day = await report(start - 3_600_000, Date.now() + 60_000);
    expect(day.body.redisLosses).toHaveLength(1);
    const [loss] = day.body.redisLosses as { from: string; to: string }[];
    expect(Date.parse(loss.from)).toBeLessThanOrEqual(flushedAt);
    expect(Date.parse(loss.to)).toBeGreaterThanOrEqual(flushedAt);
    expect((day.body.printout as string[]).join(' ')).toMatch(
      /REDIS DATA LOST \d{4}-\d\d-\d\d \d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d: what was recorded here before may be gone/,
    );
    expect(day.body.printout.every((l: string) => l.length <= 40)).toBe(true);
    const csv = (await report(start - 3_600_000, Date.now() + 60_000, 'csv')).text;
    expect(csv).toMatch(/,redis_loss,.*Redis data set lost between/);

    // A window that ended before the loss began is not flagged.
    const before = await report(start - 7_200_000, Date.parse(loss.from) - 1);
    expect(before.body.redisLosses).toEqual([]);
  }, 60_000);
});

import Redis from 'ioredis';
import request from 'supertest';
import { waitFor } from '../e2e/helpers';
import { startStack, type Stack } from '../support/e2e';
import { RedisServer } from './redis-server';

/**
 * The fleet notices when its Redis data set comes back empty or replaced: two
 * BFF instances on one real redis-server, emptied by FLUSHALL or by a restart
 * without persistence, each write one error line, count it, and show it in
 * readiness (still ready); the loss window is recorded once, in the new data set.
 */

const LOSS_MSG = /^Redis data set lost \(emptied or replaced\)/;

type Line = { instance?: number; level: number; msg: string; [k: string]: unknown };
const lines = (s: Stack): Line[] => s.logs.map((l) => JSON.parse(l) as Line);
const lossLines = (s: Stack, instance?: number) => lines(s).filter((l) => LOSS_MSG.test(l.msg) && (instance === undefined || l.instance === instance));

async function lossCount(s: Stack, i: number): Promise<number> {
  const text = await s.bffs[i].metrics.render();
  return Number(/^pos_redis_dataset_losses_total (\S+)$/m.exec(text)?.[1]);
}

async function stackOn(server: RedisServer, checkMs = '200'): Promise<Stack> {
  return startStack({ store: 'memory', instances: 2, env: { REDIS_URL: server.url, REDIS_DATASET_CHECK_MS: checkMs } });
}

describe('a Redis data set lost under two BFF instances', () => {
  let server: RedisServer;
  let s: Stack;
  let admin: Redis;

  afterEach(async () => {
    await s?.close();
    admin?.disconnect();
    await server?.cleanup();
  });

  const windows = async () =>
    (await admin.zrange(`${s.redisPrefix}dataset:losses`, 0, -1)).map((w) => JSON.parse(w) as { from: number; to: number; shards: string[] });

  it('a brand-new Redis is no loss; FLUSHALL is noticed by both instances (log, metric, readiness detail) and its window recorded once', async () => {
    server = await RedisServer.start({ persist: false });
    admin = new Redis(server.url);
    s = await stackOn(server);
    // First start on an empty Redis: the marker is made, nothing is recorded or logged as lost.
    expect(JSON.parse((await admin.get(`${s.redisPrefix}dataset`))!)).toMatchObject({ id: expect.any(String), createdAt: expect.any(Number) });
    await s.bffs[1].redisDataset!.check();
    expect(lossLines(s)).toEqual([]);
    // ... but said once, at warn: a data set lost while no instance ran would look the same.
    const firstMarker = s.logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => /Redis held no data set marker/.test(l.msg));
    expect(firstMarker).toEqual([expect.objectContaining({ level: 40 })]);
    expect(await windows()).toEqual([]);
    expect(await lossCount(s, 0)).toBe(0);
    const before = (await request(s.bffs[0].url).get('/readyz').expect(200)).body;
    expect(before.redisDataset).toBeUndefined();

    const flushedAt = Date.now();
    await admin.flushall();
    await waitFor('both instances to log the loss', () => lossLines(s, 0).length > 0 && lossLines(s, 1).length > 0, 15_000);
    for (const i of [0, 1]) {
      const [line] = lossLines(s, i);
      expect(line).toMatchObject({ level: 50, component: 'redis', lost: expect.arrayContaining(['Idempotency-Key records', 'queued outbox writes']) });
      expect(line.msg).toMatch(/Redis data set lost.*claims on redemptions.*coupon locks.*sale and refund owners.*OTP tickets.*the OTP mode/);
      expect(await lossCount(s, i)).toBe(1);
      const ready = await request(s.bffs[i].url).get('/readyz');
      // A detail, not a failing check: Redis works again.
      expect(ready.status).toBe(200);
      expect(Date.parse(ready.body.redisDataset.lostAt)).toBeGreaterThanOrEqual(flushedAt);
      expect(Date.parse(ready.body.redisDataset.lastSeenGoodAt)).toBeLessThanOrEqual(flushedAt);
    }
    const recorded = await windows();
    expect(recorded).toHaveLength(1);
    expect(recorded[0].from).toBeLessThanOrEqual(flushedAt);
    expect(recorded[0].to).toBeGreaterThanOrEqual(flushedAt);
    expect(await admin.ttl(`${s.redisPrefix}dataset:losses`)).toBeGreaterThan(300 * 86_400);

    // One line per loss: later checks find the new marker good.
    await s.bffs[0].redisDataset!.check();
    await s.bffs[1].redisDataset!.check();
    expect(lossLines(s)).toHaveLength(2);
    expect(await windows()).toHaveLength(1);
  }, 60_000);

  it('a marker written since by an instance that never saw the old one: the instance that did notices, and records the window', async () => {
    server = await RedisServer.start({ persist: false });
    admin = new Redis(server.url);
    // No periodic pass in the test's time: only start-up and the checks called here.
    s = await stackOn(server, '600000');
    const old = await admin.get(`${s.redisPrefix}dataset`);
    const flushedAt = Date.now();
    await admin.flushall();
    // Instance 1 starts again on the emptied Redis: to it this is a new Redis, and it writes the marker.
    await s.restart(1);
    const fresh = await admin.get(`${s.redisPrefix}dataset`);
    expect(fresh).not.toBe(old);
    expect(lossLines(s)).toEqual([]);
    // Instance 0 finds a marker with another id: the data set was replaced.
    await s.bffs[0].redisDataset!.check();
    expect(lossLines(s, 0)).toHaveLength(1);
    expect(await lossCount(s, 0)).toBe(1);
    const recorded = await windows();
    expect(recorded).toHaveLength(1);
    expect(recorded[0].to).toBeGreaterThanOrEqual(flushedAt);
    // Its next check finds the new marker good: no second line, no second window.
    await s.bffs[0].redisDataset!.check();
    expect(lossLines(s)).toHaveLength(1);
    expect(await windows()).toHaveLength(1);
  }, 60_000);

  it('a redis-server restarted without persistence is noticed on reconnect', async () => {
    server = await RedisServer.start({ persist: false });
    admin = new Redis(server.url);
    // No periodic pass in the test's time: the reconnect itself must set the check off.
    s = await stackOn(server, '600000');
    await server.kill();
    await server.start();
    await waitFor('both instances to log the loss', () => lossLines(s, 0).length > 0 && lossLines(s, 1).length > 0, 20_000);
    expect(await lossCount(s, 0)).toBe(1);
    await waitFor('the window recorded', async () => (await windows().catch(() => [])).length === 1, 10_000);
    expect(await windows()).toHaveLength(1);
  }, 60_000);

  it('a redis-server restarted with persistence (AOF) is not flagged', async () => {
    server = await RedisServer.start({ persist: true });
    admin = new Redis(server.url);
    s = await stackOn(server);
    const marker = await admin.get(`${s.redisPrefix}dataset`);
    const reconnected = () => lines(s).filter((l) => l.msg === 'redis reconnected').length;
    await server.kill();
    await server.start();
    await waitFor('both instances to reconnect', () => reconnected() >= 2, 20_000);
    // The check each reconnect wakes, run here too so it has surely happened.
    await s.bffs[0].redisDataset!.check();
    await s.bffs[1].redisDataset!.check();
    expect(await admin.get(`${s.redisPrefix}dataset`)).toBe(marker);
    expect(lossLines(s)).toEqual([]);
    expect(await lossCount(s, 0)).toBe(0);
    expect((await request(s.bffs[0].url).get('/readyz')).body.redisDataset).toBeUndefined();
    expect(await windows()).toEqual([]);
  }, 60_000);
});

describe('what Redis keeps, asked again on every reconnect', () => {
  let server: RedisServer;
  let s: Stack;
  let admin: Redis;
  afterEach(async () => {
    await s?.close();
    admin?.disconnect();
    await server?.cleanup();
  });

  it('a Redis that stops persisting is noticed at the next reconnect (a failover lands on such a server the same way): gauge and error line', async () => {
    server = await RedisServer.start({ persist: true });
    admin = new Redis(server.url);
    s = await stackOn(server, '600000');
    const durable = async () => Number(/^pos_redis_durable (\S+)$/m.exec(await s.bffs[0].metrics.render())?.[1]);
    await waitFor('the first answer', async () => (await durable()) === 1, 15_000);
    await admin.config('SET', 'appendonly', 'no');
    await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await waitFor('the reconnect to ask again', async () => (await durable()) === 0, 20_000);
    const lines = s.logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => /does not persist/.test(l.msg));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.level === 50)).toBe(true);
  });
});

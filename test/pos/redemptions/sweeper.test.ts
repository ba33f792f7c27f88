import { Writable } from 'node:stream';
import { ServiceUnavailableError } from '../../../src/platform/errors';
import { createLogger, silentLogger } from '../../../src/platform/logger';
import { connectRedis } from '../../../src/platform/redis';
import { HoldSweeper, type ExpiryVia, MemoryRedemptionStore, RedisRedemptionStore } from '../../../src/pos/redemptions';
import { freePort } from '../../support/ports';
import { aHold, HarnessFactory, memoryHarness, redisHarness, StoreHarness, T0 } from './harness';

const EXPIRY = T0 + 600_000;

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'debug', pretty: false, destination: sink }) };
}

/** Resolves once `predicate` holds, checking after each expiry the sweeper reports. */
function until(predicate: () => boolean): { hook: () => void; done: Promise<void> } {
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  return { hook: () => predicate() && resolve(), done };
}

describe.each<[string, HarnessFactory]>([
  ['memory', memoryHarness],
  ['redis', redisHarness],
])('HoldSweeper over the %s store', (_name, makeHarness) => {
  let h: StoreHarness;
  beforeEach(async () => {
    h = await makeHarness();
  });
  afterEach(() => h.cleanup());

  it('expires every due hold in one sweepOnce, batch after batch, logging and counting each', async () => {
    const due = Array.from({ length: 10 }, (_, i) => aHold({ expiresAt: T0 + i, email: 'ana@example.com' }));
    for (const r of [...due, aHold()]) await h.store.create(r);
    const { lines, logger } = capture();
    const heard: [string, ExpiryVia][] = [];
    const sweeper = new HoldSweeper({
      store: h.store,
      intervalMs: 1000,
      batchSize: 3,
      logger,
      clock: () => T0 + 100,
      onExpired: (r, via) => heard.push([r.id, via]),
    });

    expect(await sweeper.sweepOnce()).toBe(10);
    expect(sweeper.expiredCount).toBe(10);
    expect(heard.map(([id]) => id).sort()).toEqual(due.map((r) => r.id).sort());
    expect(heard.every(([, via]) => via === 'sweep')).toBe(true);
    const logged = lines.filter((l) => l.msg === 'hold expired');
    expect(logged).toHaveLength(10);
    expect(logged[0]).toMatchObject({ storeId: 'store-001', customerId: 'cust-000123', via: 'sweep', store: h.kind });
    expect(due.map((r) => r.id)).toContain(logged[0].redemptionId);
    expect(JSON.stringify(lines)).not.toContain('ana@example.com');
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(await h.store.countOpen()).toBe(1);
  });

  it('leaves nothing due when two instances sweep at once, each hold expired by one of them', async () => {
    const due = Array.from({ length: 300 }, (_, i) => aHold({ expiresAt: T0 + (i % 30) }));
    await Promise.all(due.map((r) => h.store.create(r)));
    const heard: string[] = [];
    const sweeperOn = (store: typeof h.store, batchSize: number) =>
      new HoldSweeper({ store, intervalMs: 1000, batchSize, logger: silentLogger, clock: () => T0 + 100, onExpired: (r) => heard.push(r.id) });
    // A short batch (the other sweeper took some of the ids this one read) must not end the sweep.
    const [a, b] = await Promise.all([sweeperOn(h.store, 7).sweepOnce(), sweeperOn(await h.twin(), 11).sweepOnce()]);
    expect(a + b).toBe(300);
    expect(heard.sort()).toEqual(due.map((r) => r.id).sort());
    expect(await h.store.countOpen()).toBe(0);
  });

  it('does not end a sweep on a short batch, which only means another instance took some of the ids read', async () => {
    const due = Array.from({ length: 20 }, (_, i) => aHold({ expiresAt: T0 + i }));
    for (const r of due) await h.store.create(r);
    // Every batch comes back short, as when a second sweeper claims part of each read.
    const raced = Object.assign(Object.create(h.store) as typeof h.store, {
      sweepDue: (now: number, limit: number) => h.store.sweepDue(now, Math.max(1, limit - 3)),
    });
    const sweeper = new HoldSweeper({ store: raced, intervalMs: 1000, batchSize: 5, logger: silentLogger, clock: () => T0 + 100 });
    expect(await sweeper.sweepOnce()).toBe(20);
    expect(await h.store.countOpen()).toBe(0);
  });

  it('sweeps on its timer once started, and counts holds expired on read once', async () => {
    const [a, b] = [aHold(), aHold()];
    await h.store.create(a);
    await h.store.create(b);
    let now = T0;
    const heard: [string, ExpiryVia][] = [];
    const twoExpired = until(() => heard.length === 2);
    const sweeper = new HoldSweeper({
      store: h.store,
      intervalMs: 5,
      logger: silentLogger,
      clock: () => now,
      onExpired: (r, via) => {
        heard.push([r.id, via]);
        twoExpired.hook();
      },
    });
    sweeper.start();
    try {
      // Read first (the read expires it), then let the timer find the other.
      expect((await h.store.get(a.id, EXPIRY))?.state).toBe('expired');
      now = EXPIRY;
      await twoExpired.done;
      expect(heard).toEqual([
        [a.id, 'read'],
        [b.id, 'sweep'],
      ]);
      expect(sweeper.expiredCount).toBe(2);
    } finally {
      await sweeper.stop();
    }
    // Stopped: no longer listening to reads.
    const c = aHold();
    await h.store.create(c);
    await h.store.get(c.id, EXPIRY);
    expect(sweeper.expiredCount).toBe(2);
  });

  it('stop() waits for a sweep in progress', async () => {
    for (let i = 0; i < 20; i++) await h.store.create(aHold({ expiresAt: T0 + i }));
    const sweeper = new HoldSweeper({ store: h.store, intervalMs: 1000, batchSize: 5, logger: silentLogger, clock: () => EXPIRY });
    let settled = false;
    const sweep = sweeper.sweepOnce().then((n) => {
      settled = true;
      return n;
    });
    await sweeper.stop();
    expect(settled).toBe(true);
    // Asked to stop, it finishes the batch in hand rather than draining everything.
    expect(await sweep).toBe(5);
    expect(sweeper.expiredCount).toBe(await sweep);
  });
});

describe('HoldSweeper with several instances on one Redis', () => {
  it('expires each of 300 holds once across three sweepers on their own connections', async () => {
    const h = await redisHarness();
    try {
      const holds = Array.from({ length: 300 }, (_, i) => aHold({ expiresAt: T0 + i }));
      await Promise.all(holds.map((r) => h.store.create(r)));
      const stores = [h.store, await h.twin(), await h.twin()];
      const seen: string[] = [];
      const sweepers = stores.map(
        (store) => new HoldSweeper({ store, intervalMs: 1000, batchSize: 7, logger: silentLogger, clock: () => EXPIRY, onExpired: (r) => seen.push(r.id) }),
      );
      const counts = await Promise.all(sweepers.map((s) => s.sweepOnce()));
      expect(counts.reduce((x, y) => x + y, 0)).toBe(300);
      expect(seen).toHaveLength(300);
      expect(new Set(seen).size).toBe(300);
    } finally {
      await h.cleanup();
    }
  });
});

describe('HoldSweeper when Redis is unreachable', () => {
  it('rejects sweepOnce with 503, and on its timer logs the outage once and keeps ticking', async () => {
    const port = await freePort();
    const redis = connectRedis(`redis://127.0.0.1:${port}`, silentLogger, { retryMaxMs: 20 });
    const store = new RedisRedemptionStore(redis, { prefix: 'down:' });
    const { lines, logger } = capture();
    let ticks = 0;
    const threeTicks = until(() => ticks >= 3);
    const sweeper = new HoldSweeper({
      store,
      intervalMs: 5,
      logger,
      clock: () => {
        ticks += 1;
        threeTicks.hook();
        return T0;
      },
    });
    try {
      await expect(sweeper.sweepOnce()).rejects.toBeInstanceOf(ServiceUnavailableError);
      sweeper.start();
      await threeTicks.done;
      await sweeper.stop();
      const failures = lines.filter((l) => l.msg === 'hold sweep failed; retrying every tick');
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ level: 50, err: { message: expect.any(String) } });
    } finally {
      await sweeper.stop();
      redis.disconnect();
    }
  });

  it('rejects bad settings', () => {
    const store = new MemoryRedemptionStore();
    expect(() => new HoldSweeper({ store, intervalMs: 0, logger: silentLogger })).toThrow(RangeError);
    expect(() => new HoldSweeper({ store, intervalMs: 10, batchSize: 0, logger: silentLogger })).toThrow(/batchSize/);
  });
});

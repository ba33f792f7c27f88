import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { createLogger } from '../../src/platform/logger';
import Redis from 'ioredis';
import { connectRedis } from '../../src/platform/redis';
import { silentLogger } from '../../src/platform/logger';
import { HoldSweeper, Redemption, RedisRedemptionStore } from '../../src/pos/redemptions';
import { median } from '../lib/load';

/**
 * Scenario 5: the hold tracker at a million open holds, in private Redis servers,
 * through the product's own store (RedisRedemptionStore: same scripts, same
 * record layout, same key prefix) and sweeper (HoldSweeper, logging each
 * expiry at info to a file as it would in production).
 */
export interface HoldScaleOptions {
  redisUrl: string;
  open: number;
  due: number;
  small: number;
  runs: number;
  /** Sequential expiry checks (store.get) per run. */
  checks: number;
  logFile: string;
  progress: (line: string) => void;
}

export interface ExpiryCheck {
  /** Median over runs of each run's median / p99, in microseconds. */
  p50Us: number;
  p99Us: number;
}

export interface HoldScaleResult {
  open: number;
  due: number;
  loadSeconds: number;
  loadPerSecond: number;
  usedMemoryBefore: number;
  usedMemoryAfter: number;
  bytesPerHold: number;
  /** Where the bytes go: one record (MEMORY USAGE of a sample key), its stored value's length, and the expiry index per member. */
  breakdown: { recordKeyBytes: number; recordValueChars: number; keyChars: number; indexBytesPerHold: number };
  sweepMs: number[];
  sweepMsMedian: number;
  sweptPerRun: number[];
  checkSmall: ExpiryCheck;
  checkLarge: ExpiryCheck;
  checkRatio: number;
}

const STORES = Array.from({ length: 50 }, (_, i) => `store-${String(i + 1).padStart(3, '0')}`);
const TERMINALS = Array.from({ length: 500 }, () => `term-${randomBytes(4).toString('hex')}`);

/**
 * A held redemption as startRedemption records it: the id of newRedemptionId
 * (rdm_ + 12 random bytes, base64url) and a sandbox-style hold reference
 * (hold_ + 10 random bytes, hex), their randomness drawn in bulk to load fast.
 */
function heldRedemption(n: number, now: number, expiresAt: number, random: Buffer): Redemption {
  return {
    id: `rdm_${random.subarray(0, 12).toString('base64url')}`,
    storeId: STORES[n % STORES.length],
    terminalId: TERMINALS[n % TERMINALS.length],
    customerId: `cust-${String(n).padStart(8, '0')}`,
    ask: { kind: 'points', points: 100 },
    state: 'held',
    holdReference: `hold_${random.subarray(12, 22).toString('hex')}`,
    holdAmount: 10,
    holdPoints: 100,
    expiresAt,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
}

/** Creates `count` holds through store.create, `window` in flight at a time (one pipelined connection). */
async function createHolds(
  store: RedisRedemptionStore,
  from: number,
  count: number,
  expiry: (n: number, now: number) => number,
  ids?: string[],
): Promise<void> {
  const window = 2000;
  for (let done = 0; done < count; done += window) {
    const now = Date.now();
    const batch: Promise<void>[] = [];
    const random = randomBytes(22 * window);
    for (let i = done; i < Math.min(count, done + window); i++) {
      const j = (i - done) * 22;
      const r = heldRedemption(from + i, now, expiry(from + i, now), random.subarray(j, j + 22));
      ids?.push(r.id);
      batch.push(store.create(r));
    }
    await Promise.all(batch);
  }
}

async function usedMemory(redis: ReturnType<typeof connectRedis>): Promise<number> {
  const info = await redis.info('memory');
  const m = /^used_memory:(\d+)/m.exec(info);
  if (!m) throw new Error('INFO memory has no used_memory');
  return Number(m[1]);
}

/** Sequential store.get of random held records: the read every payment's expiry check makes. */
async function expiryChecks(store: RedisRedemptionStore, ids: string[], checks: number, runs: number): Promise<ExpiryCheck> {
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (let run = 0; run < runs; run++) {
    const times = new Float64Array(checks);
    for (let i = 0; i < checks; i++) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const t0 = process.hrtime.bigint();
      const r = await store.get(id, Date.now());
      times[i] = Number(process.hrtime.bigint() - t0) / 1000;
      if (r?.state !== 'held') throw new Error(`expected a held record for ${id}, got ${r?.state}`);
    }
    times.sort();
    p50s.push(times[Math.floor(checks * 0.5)]);
    p99s.push(times[Math.floor(checks * 0.99)]);
  }
  return { p50Us: median(p50s), p99Us: median(p99s) };
}

/** The product's connection (measured) and an auto-pipelined one to the same keys (loading is not measured). */
function connect(url: string) {
  const redis = connectRedis(url, silentLogger);
  const loaderRedis = new Redis(url, { enableAutoPipelining: true });
  return {
    redis,
    store: new RedisRedemptionStore(redis, { prefix: 'posbff:' }),
    loader: new RedisRedemptionStore(loaderRedis, { prefix: 'posbff:' }),
    async close() {
      await redis.quit().catch(() => redis.disconnect());
      await loaderRedis.quit().catch(() => loaderRedis.disconnect());
    },
  };
}

/**
 * Two private Redis servers: one with `small` open holds, one with `open`
 * (`due` of them past expiry). Expiry checks alternate between them, run by
 * run, so both see the same machine noise; the sweeper works on the large one.
 */
export async function holdTrackerScale(o: HoldScaleOptions & { redisSmallUrl: string }): Promise<HoldScaleResult> {
  const small = connect(o.redisSmallUrl);
  const large = connect(o.redisUrl);
  const dest = pino.destination({ dest: o.logFile, sync: true });
  const sweeper = new HoldSweeper({ store: large.store, intervalMs: 1000, logger: createLogger({ level: 'info', pretty: false, destination: dest }) });
  const future = (n: number, now: number) => now + 10 * 60_000 + (n % 300_000); // 10-15 min ahead: open, not due
  const past = (n: number, now: number) => now - 1000 - (n % 1000);
  try {
    for (const c of [small, large]) await c.store.get('rdm_warmupwarmup', Date.now()); // loads the read script before the baseline
    const usedMemoryBefore = await usedMemory(large.redis);

    const smallIds: string[] = [];
    await createHolds(small.loader, 0, o.small, future, smallIds);
    const largeIds: string[] = [];
    const rest = o.open - o.due;
    o.progress(`loading ${rest.toLocaleString('en-US')} open holds and ${o.due.toLocaleString('en-US')} due ones through RedisRedemptionStore.create`);
    const loadStart = process.hrtime.bigint();
    await createHolds(large.loader, 0, rest, future, largeIds);
    await createHolds(large.loader, rest, o.due, past);
    const loadSeconds = Number(process.hrtime.bigint() - loadStart) / 1e9;
    const open = await large.store.countOpen();
    if (open !== o.open) throw new Error(`expected ${o.open} open holds, Redis has ${open}`);
    const usedMemoryAfter = await usedMemory(large.redis);
    const sampleKey = `posbff:{rdm}:r:${largeIds[0]}`;
    const breakdown = {
      recordKeyBytes: Number(await large.redis.memory('USAGE', sampleKey)),
      recordValueChars: (await large.redis.get(sampleKey))?.length ?? NaN,
      keyChars: sampleKey.length,
      indexBytesPerHold: Number(await large.redis.memory('USAGE', 'posbff:{rdm}:open', 'SAMPLES', '0')) / open,
    };

    o.progress(`expiry checks: ${o.small.toLocaleString('en-US')} vs ${open.toLocaleString('en-US')} open, alternating`);
    await expiryChecks(small.store, smallIds, o.checks, 1); // warm-up
    await expiryChecks(large.store, largeIds, o.checks, 1);
    const smallRuns: ExpiryCheck[] = [];
    const largeRuns: ExpiryCheck[] = [];
    // Each check is ~0.1 ms, so a few more rounds than the HTTP runs cost little and steady the ratio.
    for (let run = 0; run < Math.max(o.runs, 5); run++) {
      const order = run % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
      for (const which of order) {
        if (which === 'small') smallRuns.push(await expiryChecks(small.store, smallIds, o.checks, 1));
        else largeRuns.push(await expiryChecks(large.store, largeIds, o.checks, 1));
      }
    }
    const checkSmall = { p50Us: median(smallRuns.map((r) => r.p50Us)), p99Us: median(smallRuns.map((r) => r.p99Us)) };
    const checkLarge = { p50Us: median(largeRuns.map((r) => r.p50Us)), p99Us: median(largeRuns.map((r) => r.p99Us)) };

    const sweepMs: number[] = [];
    const sweptPerRun: number[] = [];
    for (let run = 0; run < o.runs; run++) {
      if (run > 0) await createHolds(large.loader, o.open + run * o.due, o.due, past); // back to `open`, `due` of them due
      const t0 = process.hrtime.bigint();
      const swept = await sweeper.sweepOnce();
      sweepMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      sweptPerRun.push(swept);
      if (swept !== o.due) throw new Error(`sweep expired ${swept} holds, expected ${o.due}`);
    }
    o.progress(
      `sweeps of ${o.due.toLocaleString('en-US')} due among ${o.open.toLocaleString('en-US')} open: ${sweepMs.map((m) => m.toFixed(0)).join(', ')} ms`,
    );
    return {
      open,
      due: o.due,
      loadSeconds,
      loadPerSecond: o.open / loadSeconds,
      usedMemoryBefore,
      usedMemoryAfter,
      bytesPerHold: (usedMemoryAfter - usedMemoryBefore) / open,
      breakdown,
      sweepMs,
      sweepMsMedian: median(sweepMs),
      sweptPerRun,
      checkSmall,
      checkLarge,
      checkRatio: checkLarge.p50Us / checkSmall.p50Us,
    };
  } finally {
    await sweeper.stop();
    dest.flushSync();
    await small.close();
    await large.close();
  }
}

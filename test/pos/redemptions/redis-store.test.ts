import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { createRedemptionStore, MemoryRedemptionStore, type Redemption, RedisRedemptionStore } from '../../../src/pos/redemptions';
import { decodeRedemption, encodeRedemption } from '../../../src/pos/redemptions/redis-codec';
import { REDEMPTION_MACHINE, type RedemptionState } from '../../../src/pos/money/machines';
import { deleteKeys, testRedis } from '../../support/redis';
import { aHold, redisHarness, T0, uniquePrefix } from './harness';
import { redemptionStoreSuite } from './store-suite';

redemptionStoreSuite('RedisRedemptionStore', redisHarness);

const HOUR = 3600_000;

describe('RedisRedemptionStore in Redis', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisRedemptionStore;
  beforeEach(async () => {
    redis = await testRedis();
    prefix = uniquePrefix();
    store = new RedisRedemptionStore(redis, { prefix });
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('keeps a record and the index under one hash tag, scored by expiresAt', async () => {
    const hold = aHold();
    await store.create(hold);
    expect(await redis.exists(`${prefix}{rdm}:r:${hold.id}`)).toBe(1);
    expect(await redis.zscore(`${prefix}{rdm}:open`, hold.id)).toBe(String(hold.expiresAt));
  });

  it('sets TTLs: held and paying until expiry + 24 h, ending 24 h, otp_required and confirming 15 min', async () => {
    const now = Date.now();
    const key = (id: string) => `${prefix}{rdm}:r:${id}`;
    const hold = aHold({ createdAt: now, updatedAt: now, expiresAt: now + 10 * 60_000 });
    const pending = aHold({ state: 'otp_required', expiresAt: undefined, createdAt: now, updatedAt: now });
    await store.create(hold);
    await store.create(pending);
    const heldTtl = await redis.pttl(key(hold.id));
    expect(heldTtl).toBeGreaterThan(24 * HOUR + 10 * 60_000 - 5000);
    expect(heldTtl).toBeLessThanOrEqual(24 * HOUR + 10 * 60_000);
    const pendingTtl = await redis.pttl(key(pending.id));
    expect(pendingTtl).toBeGreaterThan(15 * 60_000 - 5000);
    expect(pendingTtl).toBeLessThanOrEqual(15 * 60_000);
    await store.change(pending.id, now, (r) => ({ ...r, state: 'confirming' }));
    const confirmingTtl = await redis.pttl(key(pending.id));
    expect(confirmingTtl).toBeGreaterThan(15 * 60_000 - 5000);
    expect(confirmingTtl).toBeLessThanOrEqual(15 * 60_000);

    await store.change(hold.id, now, (r) => ({ ...r, state: 'paying', paymentId: 'sale-1' }));
    const payingTtl = await redis.pttl(key(hold.id));
    expect(payingTtl).toBeGreaterThan(24 * HOUR + 10 * 60_000 - 5000);
    expect(payingTtl).toBeLessThanOrEqual(24 * HOUR + 10 * 60_000);
    await store.change(hold.id, now, (r) => ({ ...r, state: 'redeemed' }));
    expect((await store.get(hold.id, now))?.state).toBe('redeemed');
    const endedTtl = await redis.pttl(key(hold.id));
    expect(endedTtl).toBeGreaterThan(24 * HOUR - 5000);
    expect(endedTtl).toBeLessThanOrEqual(24 * HOUR);
  });

  it('gives an expired hold the after-end TTL, on sweep and on read', async () => {
    const short = new RedisRedemptionStore(redis, { prefix, ttlAfterEndMs: 60_000 });
    const [a, b] = [aHold(), aHold({ expiresAt: T0 + 700_000 })];
    await short.create(a);
    await short.create(b);
    await short.sweepDue(a.expiresAt as number, 1);
    await short.get(b.id, b.expiresAt as number);
    for (const r of [a, b]) {
      const ttl = await redis.pttl(`${prefix}{rdm}:r:${r.id}`);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('gives up with 409 redemption_busy when every compare-and-set round loses', async () => {
    const once = new RedisRedemptionStore(redis, { prefix, maxAttempts: 1 });
    const hold = aHold({ holdPoints: 0 });
    await once.create(hold);
    const bump = (r: Redemption) => ({ ...r, holdPoints: (r.holdPoints ?? 0) + 1 });
    // Both read version 1 before either writes (one connection keeps order), so the second write loses.
    const [first, second] = await Promise.allSettled([once.change(hold.id, T0, bump), once.change(hold.id, T0, bump)]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { ok: true } });
    expect(second).toMatchObject({ status: 'rejected', reason: { status: 409, code: 'redemption_busy' } });
    expect(await once.get(hold.id, T0)).toMatchObject({ holdPoints: 1, version: 2 });
  });

  it('drops index entries whose record is gone, without returning them', async () => {
    const hold = aHold();
    await store.create(hold);
    await redis.del(`${prefix}{rdm}:r:${hold.id}`);
    expect(await store.sweepDue(hold.expiresAt as number, 10)).toEqual([]);
    expect(await store.countOpen()).toBe(0);
  });

  it('works on a client with an ioredis keyPrefix (the sweep builds record keys itself)', async () => {
    const prefixed = await testRedis(prefix);
    try {
      const inner = new RedisRedemptionStore(prefixed, { prefix: 'app:' });
      const hold = aHold();
      await inner.create(hold);
      expect(await redis.exists(`${prefix}app:{rdm}:r:${hold.id}`)).toBe(1);
      expect((await inner.sweepDue(hold.expiresAt as number, 10)).map((r) => r.state)).toEqual(['expired']);
      expect(await inner.get(hold.id, T0)).toMatchObject({ state: 'expired', version: 2 });
    } finally {
      await prefixed.quit();
    }
  });

  it('stores a typical hold compactly (MEMORY USAGE of its key < 256 bytes)', async () => {
    const hold = aHold();
    await store.create(hold);
    const value = (await redis.get(`${prefix}{rdm}:r:${hold.id}`)) as string;
    expect(value.length).toBeLessThan(120);
    const bytes = await redis.memory('USAGE', `${prefix}{rdm}:r:${hold.id}`);
    expect(bytes).toBeLessThan(256);
  });

  it('sweeps 10,000 due holds in well under a second', async () => {
    const holds = Array.from({ length: 10_000 }, (_, i) => aHold({ expiresAt: T0 + i }));
    for (let i = 0; i < holds.length; i += 2000) await Promise.all(holds.slice(i, i + 2000).map((r) => store.create(r)));
    const started = performance.now();
    let swept = 0;
    for (let got = -1; got !== 0; swept += got) got = (await store.sweepDue(T0 + 20_000, 1000)).length;
    const ms = performance.now() - started;
    expect(swept).toBe(10_000);
    expect(ms).toBeLessThan(1000);
  });

  it('createRedemptionStore picks Redis when given a connection, memory otherwise', () => {
    expect(createRedemptionStore({ redis, prefix }).kind).toBe('redis');
    expect(createRedemptionStore({ prefix })).toBeInstanceOf(MemoryRedemptionStore);
  });
});

describe('redis-codec', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 20 });
  const ms = fc.integer({ min: 0, max: 4_102_444_800_000 });
  const ask = fc.oneof(
    fc.record({ kind: fc.constant('amount' as const), amount: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
    fc.record({ kind: fc.constant('points' as const), points: fc.integer() }),
    fc.record({ kind: fc.constant('rule' as const), ruleId: text }),
  );
  const redemption = fc.record(
    {
      id: text.filter((s) => s.length > 0),
      storeId: text,
      terminalId: text,
      customerId: text,
      email: text,
      mobile: text,
      ask,
      state: fc.constantFrom(...(Object.keys(REDEMPTION_MACHINE) as RedemptionState[])),
      holdReference: text,
      holdAmount: fc.double({ noNaN: true, noDefaultInfinity: true }),
      holdPoints: fc.integer(),
      expiresAt: ms,
      paymentId: text,
      createdAt: ms,
      updatedAt: ms,
      version: fc.integer({ min: 1, max: 1e9 }),
    },
    { requiredKeys: ['id', 'storeId', 'terminalId', 'customerId', 'ask', 'state', 'createdAt', 'updatedAt', 'version'] },
  );

  it("round-trips a record in each of the machine's states", () => {
    for (const state of Object.keys(REDEMPTION_MACHINE) as RedemptionState[]) {
      const r = aHold({ state, paymentId: 'sale-1' });
      expect(decodeRedemption(r.id, encodeRedemption(r))).toEqual(r);
    }
  });

  it('reads a claim written by the earlier version (state letter c): paying when a payment holds it, voiding otherwise', () => {
    const paying = aHold({ state: 'paying', paymentId: 'sale-1' });
    const voiding = aHold({ state: 'voiding' });
    const legacy = (r: Redemption) => encodeRedemption(r).replace(/^(\d+)\|[a-z]\|/, '$1|c|');
    expect(legacy(paying)).toMatch(/^1\|c\|/);
    expect(decodeRedemption(paying.id, legacy(paying))).toEqual(paying);
    expect(decodeRedemption(voiding.id, legacy(voiding))).toEqual(voiding);
  });

  it('round-trips any record exactly (strings with "|", quotes, unicode; full-precision numbers)', () => {
    fc.assert(
      fc.property(redemption, (r) => {
        const back = decodeRedemption(r.id, encodeRedemption(r as Redemption));
        // -0 does not survive JSON; the store never sees it from real amounts.
        expect(back).toEqual(JSON.parse(JSON.stringify(r)));
      }),
    );
  });
});

import Redis from 'ioredis';
import { AppError } from '../../src/platform/errors';
import { MemoryRedemptionStore, type Redemption } from '../../src/pos/redemptions';
import { MemoryTerminalSets, openRedemptionCap, RedisTerminalSets, type TerminalSets } from '../../src/pos/redemptions/open-redemptions';

/**
 * The cap's bookkeeping on its own, over both set stores (real Redis): what
 * counts as open, what is pruned, and that concurrent starts never exceed it.
 */
const T0 = 1_800_000_000_000;
const GRACE = 60_000;

function record(id: string, state: Redemption['state'], terminalId = 'till-1'): Redemption {
  return {
    id,
    storeId: 'store-001',
    terminalId,
    customerId: 'alice',
    ask: { kind: 'points', points: 10 },
    state,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    ...(state === 'held' ? { holdReference: `h-${id}`, expiresAt: T0 + 600_000 } : {}),
  };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'admitted',
    (e: AppError) => `${e.status} ${e.code}`,
  );

let redis: Redis;
const prefix = `sec-cap-${process.pid}:`;
beforeAll(() => {
  redis = new Redis(process.env.TEST_REDIS_URL as string);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe.each([
  ['memory', () => new MemoryTerminalSets() as TerminalSets],
  ['redis', () => new RedisTerminalSets(redis, `${prefix}${Math.random().toString(36).slice(2)}:`) as TerminalSets],
])('open redemption cap (%s sets)', (_kind, makeSets) => {
  it('counts held and otp_required records and reservations still in their grace period; prunes the rest', async () => {
    const store = new MemoryRedemptionStore();
    const cap = openRedemptionCap({ limit: 3, store, sets: makeSets(), pendingGraceMs: GRACE });
    for (const [id, state] of [
      ['r1', 'held'],
      ['r2', 'otp_required'],
      ['r3', 'voided'],
    ] as const) {
      await cap.admit('till-1', id, T0);
      await store.create(record(id, state));
    }
    // r3 ended: two open, so a third is admitted (its record not written yet: pending).
    await cap.admit('till-1', 'r4', T0);
    expect(await refusal(cap.admit('till-1', 'r5', T0 + 1))).toBe('409 too_many_open_redemptions');
    // Another terminal has its own count.
    expect(await refusal(cap.admit('till-2', 'x1', T0))).toBe('admitted');
    // r4 never got a record (its hold failed and nobody released it): after the grace period it no longer counts.
    expect(await refusal(cap.admit('till-1', 'r6', T0 + GRACE + 1))).toBe('admitted');
  });

  it('frees a place when a redemption ends, and when its hold expires', async () => {
    const store = new MemoryRedemptionStore();
    const cap = openRedemptionCap({ limit: 2, store, sets: makeSets(), pendingGraceMs: GRACE });
    for (const id of ['a', 'b']) {
      await cap.admit('till-1', id, T0);
      await store.create(record(id, 'held'));
    }
    expect(await refusal(cap.admit('till-1', 'c', T0))).toBe('409 too_many_open_redemptions');
    // A payment under way keeps its place; the redemption's end frees it.
    await store.change('a', T0, (r) => ({ ...r, state: 'paying', paymentId: 'sale-a' }));
    expect(await refusal(cap.admit('till-1', 'c', T0))).toBe('409 too_many_open_redemptions');
    await store.change('a', T0, (r) => ({ ...r, state: 'redeemed' }));
    expect(await refusal(cap.admit('till-1', 'c', T0))).toBe('admitted');
    await store.create(record('c', 'held'));
    expect(await refusal(cap.admit('till-1', 'd', T0))).toBe('409 too_many_open_redemptions');
    // Ten minutes on, b and c are past their expiry: read as expired, so no longer open.
    expect(await refusal(cap.admit('till-1', 'd', T0 + 600_001))).toBe('admitted');
  });

  it('release gives the place back at once (a start whose hold failed)', async () => {
    const store = new MemoryRedemptionStore();
    const cap = openRedemptionCap({ limit: 1, store, sets: makeSets(), pendingGraceMs: GRACE });
    const release = await cap.admit('till-1', 'a', T0);
    expect(await refusal(cap.admit('till-1', 'b', T0))).toBe('409 too_many_open_redemptions');
    await release();
    expect(await refusal(cap.admit('till-1', 'b', T0))).toBe('admitted');
  });

  it('admits exactly the first `limit` of a burst of concurrent starts', async () => {
    const store = new MemoryRedemptionStore();
    const cap = openRedemptionCap({ limit: 3, store, sets: makeSets(), pendingGraceMs: GRACE });
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => refusal(cap.admit('till-1', `race-${i}`, T0))));
    const admitted = outcomes.filter((o) => o === 'admitted').length;
    expect(admitted).toBe(3);
    expect(outcomes.filter((o) => o !== 'admitted').every((o) => o === '409 too_many_open_redemptions')).toBe(true);
  });
});

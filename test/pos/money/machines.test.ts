import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  COUPON_LOCK_MACHINE,
  type CouponLockState,
  isFinal,
  type Machine,
  MACHINES,
  machinesAsMarkdown,
  REDEMPTION_MACHINE,
  type RedemptionState,
  SALE_MACHINE,
  transitionRefusal,
} from '../../../src/pos/money/machines';
import { type CouponLock, type CouponLockStore, MemoryCouponLockStore, OPEN_LOCK_STATES, RedisCouponLockStore } from '../../../src/pos/coupons/locks';
import { ENDING_STATES, MemoryRedemptionStore, OPEN_STATES, type RedemptionStore, RedisRedemptionStore } from '../../../src/pos/redemptions';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';
import { aHold, T0 } from '../redemptions/harness';

const statesOf = <S extends string>(m: Machine<S>) => Object.keys(m) as S[];

/** Every ordered pair of two different states, split by whether the table has it. */
function pairs<S extends string>(m: Machine<S>): { allowed: [S, S][]; refused: [S, S][] } {
  const allowed: [S, S][] = [];
  const refused: [S, S][] = [];
  for (const from of statesOf(m)) {
    for (const to of statesOf(m)) {
      if (from !== to) (m[from].includes(to) ? allowed : refused).push([from, to]);
    }
  }
  return { allowed, refused };
}

describe('transitionRefusal', () => {
  describe.each(Object.entries(MACHINES) as [string, Machine<string>][])('the %s machine', (name, machine) => {
    const { allowed, refused } = pairs(machine);

    it('names only its own states', () => {
      for (const targets of Object.values(machine)) for (const to of targets) expect(statesOf(machine)).toContain(to);
    });

    it('allows every transition in the table', () => {
      expect(allowed.length).toBeGreaterThan(0);
      for (const [from, to] of allowed) expect(transitionRefusal(machine, name, from, to)).toBeNull();
    });

    it('refuses every transition not in the table, saying what it is and what it cannot become', () => {
      expect(refused.length).toBeGreaterThan(0);
      for (const [from, to] of refused) expect(transitionRefusal(machine, `${name} x1`, from, to)).toBe(`${name} x1 is ${from}; it cannot become ${to}`);
    });

    it('always allows staying in the same state (a field changing), final states included', () => {
      for (const s of statesOf(machine)) expect(transitionRefusal(machine, name, s, s)).toBeNull();
    });

    it('lets nothing out of a final state', () => {
      const finals = statesOf(machine).filter((s) => isFinal(machine, s));
      expect(finals.length).toBeGreaterThan(0);
      for (const from of finals) for (const to of statesOf(machine)) if (to !== from) expect(transitionRefusal(machine, name, from, to)).not.toBeNull();
    });
  });

  it('refuses a state the table does not know', () => {
    expect(transitionRefusal(REDEMPTION_MACHINE, 'redemption', 'claimed' as RedemptionState, 'held')).toBe('redemption is claimed; it cannot become held');
  });

  it('redemption: a payment goes through paying, a void through voiding, a code check through confirming', () => {
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'held', 'redeemed')).not.toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'held', 'voided')).not.toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'otp_required', 'held')).not.toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'redeemed', 'held')).not.toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'held', 'paying')).toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'paying', 'redeemed')).toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'held', 'voiding')).toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'voiding', 'voided')).toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'otp_required', 'confirming')).toBeNull();
    expect(transitionRefusal(REDEMPTION_MACHINE, 'r', 'confirming', 'held')).toBeNull();
    expect(ENDING_STATES).toEqual(['redeemed', 'voided', 'expired', 'short']);
    expect([...OPEN_STATES].sort()).toEqual(['held', 'paying', 'voiding']);
  });

  it('coupon lock: a payment goes through paying, a release through releasing; only a locked lock is abandoned by its time running out', () => {
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'locked', 'used')).not.toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'locked', 'released')).not.toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'used', 'locked')).not.toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'releasing', 'used')).not.toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'paying', 'released')).not.toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'locked', 'paying')).toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'paying', 'used')).toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'locked', 'releasing')).toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'releasing', 'released')).toBeNull();
    expect(transitionRefusal(COUPON_LOCK_MACHINE, 'l', 'locked', 'abandoned')).toBeNull();
    expect([...OPEN_LOCK_STATES].sort()).toEqual(['locked', 'paying', 'releasing']);
    expect(
      statesOf(COUPON_LOCK_MACHINE)
        .filter((s) => isFinal(COUPON_LOCK_MACHINE, s))
        .sort(),
    ).toEqual(['abandoned', 'released', 'used']);
  });

  it('sale: recorded only after recording, voided only through voiding', () => {
    expect(transitionRefusal(SALE_MACHINE, 's', 'recording', 'voided')).not.toBeNull();
    expect(transitionRefusal(SALE_MACHINE, 's', 'recorded', 'voided')).not.toBeNull();
    expect(transitionRefusal(SALE_MACHINE, 's', 'voided', 'recorded')).not.toBeNull();
    expect(transitionRefusal(SALE_MACHINE, 's', 'voiding', 'recorded')).toBeNull();
  });

  it('machinesAsMarkdown lists every state of every machine with what it may become', () => {
    const md = machinesAsMarkdown();
    for (const machine of Object.values(MACHINES) as Machine<string>[]) {
      for (const [from, to] of Object.entries(machine)) {
        expect(md).toContain(`| \`${from}\` | ${to.length ? to.map((s) => `\`${s}\``).join(', ') : '(final)'} |`);
      }
    }
    expect(md).toContain('## Redemption');
    expect(md).toContain('## Coupon lock');
    expect(md).toContain('## Sale');
  });
});

function aLock(state: CouponLockState): CouponLock {
  return {
    id: `cpl_${randomBytes(12).toString('base64url')}`,
    storeId: 'store-001',
    terminalId: 'till-03',
    customerId: 'cust-000123',
    lockReference: `LCK-${randomBytes(6).toString('hex')}`,
    basketTotal: 30,
    coupons: [{ code: 'WELCOME10', type: 'fixed', value: 10, worth: 10 }],
    state,
    expiresAt: T0 + 600_000,
    releaseAt: T0 + 570_000,
    // Only a payment's states carry its id (an earlier version's `locked` with one reads as `paying`).
    ...(state === 'paying' || state === 'used' ? { paymentId: 'sale-1', paidTotal: 20 } : {}),
    createdAt: T0,
    updatedAt: T0,
    version: 1,
  };
}

interface Stores {
  redemptions: RedemptionStore;
  locks: CouponLockStore;
  cleanup(): Promise<void>;
}

const memoryStores = async (): Promise<Stores> => ({
  redemptions: new MemoryRedemptionStore(),
  locks: new MemoryCouponLockStore(),
  cleanup: async () => undefined,
});

async function redisStores(): Promise<Stores> {
  const redis: Redis = await testRedis();
  const prefix = uniquePrefix('machines');
  return {
    redemptions: new RedisRedemptionStore(redis, { prefix }),
    locks: new RedisCouponLockStore(redis, { prefix }),
    cleanup: async () => {
      await deleteKeys(redis, prefix);
      await redis.quit();
    },
  };
}

describe.each([
  ['memory', memoryStores],
  ['redis', redisStores],
] as const)('the %s stores enforce the tables inside their compare-and-set', (_kind, makeStores) => {
  let s: Stores;
  beforeEach(async () => {
    s = await makeStores();
  });
  afterEach(() => s.cleanup());

  const redemptionIn = (state: RedemptionState) => aHold({ state, paymentId: 'sale-1' });

  it.each([
    ['held', 'redeemed'],
    ['otp_required', 'held'],
    ['redeemed', 'held'],
    ['held', 'voided'],
    ['expired', 'held'],
  ] as [RedemptionState, RedemptionState][])('redemption: refuses %s -> %s, writing nothing', async (from, to) => {
    const r = redemptionIn(from);
    await s.redemptions.create(r);
    const result = await s.redemptions.change(r.id, T0, (cur) => ({ ...cur, state: to }));
    expect(result).toEqual({ ok: false, reason: 'rejected', redemption: r, detail: `redemption ${r.id} is ${from}; it cannot become ${to}` });
    expect(await s.redemptions.get(r.id, T0)).toEqual(r);
  });

  it('redemption: every transition of the table is made, every other is refused', async () => {
    const { allowed, refused } = pairs(REDEMPTION_MACHINE);
    for (const [from, to] of [...allowed, ...refused]) {
      const r = redemptionIn(from);
      await s.redemptions.create(r);
      const result = await s.redemptions.change(r.id, T0 + 1, (cur) => ({ ...cur, state: to }));
      const expected = REDEMPTION_MACHINE[from].includes(to);
      expect([from, to, result.ok]).toEqual([from, to, expected]);
      expect(await s.redemptions.get(r.id, T0 + 1)).toMatchObject({ state: expected ? to : from, version: expected ? 2 : 1 });
    }
  });

  it.each([
    ['locked', 'used'],
    ['used', 'locked'],
    ['releasing', 'used'],
    ['abandoned', 'locked'],
    ['paying', 'released'],
  ] as [CouponLockState, CouponLockState][])('coupon lock: refuses %s -> %s, writing nothing', async (from, to) => {
    const l = aLock(from);
    await s.locks.create(l);
    const result = await s.locks.change(l.id, T0, (cur) => ({ ...cur, state: to }));
    expect(result).toEqual({ ok: false, reason: 'rejected', lock: l, detail: `coupon lock ${l.id} is ${from}; it cannot become ${to}` });
    expect(await s.locks.get(l.id)).toEqual(l);
  });

  it('coupon lock: every transition of the table is made, every other is refused', async () => {
    const { allowed, refused } = pairs(COUPON_LOCK_MACHINE);
    for (const [from, to] of [...allowed, ...refused]) {
      const l = aLock(from);
      await s.locks.create(l);
      // A payment's claim names the payment; the table alone is what is under test.
      const result = await s.locks.change(l.id, T0 + 1, (cur) => ({ ...cur, state: to, ...(to === 'paying' ? { paymentId: 'sale-1', paidTotal: 20 } : {}) }));
      const expected = COUPON_LOCK_MACHINE[from].includes(to);
      expect([from, to, result.ok]).toEqual([from, to, expected]);
      expect(await s.locks.get(l.id)).toMatchObject({ state: expected ? to : from, version: expected ? 2 : 1 });
    }
  });

  it("redemption: of a payment's and a void's claim racing (neither checking the state itself), the table lets exactly one win", async () => {
    const r = redemptionIn('held');
    await s.redemptions.create(r);
    const [pay, release] = await Promise.all([
      s.redemptions.change(r.id, T0, (cur) => ({ ...cur, state: 'paying', paymentId: 'sale-2' })),
      s.redemptions.change(r.id, T0, (cur) => ({ ...cur, state: 'voiding' })),
    ]);
    expect([pay.ok, release.ok].filter(Boolean)).toHaveLength(1);
    const loser = pay.ok ? release : pay;
    expect(loser).toMatchObject({ ok: false, reason: 'rejected', detail: expect.stringMatching(/is (paying|voiding); it cannot become (paying|voiding)$/) });
    expect(await s.redemptions.get(r.id, T0)).toMatchObject({ version: 2 });
  });

  it("coupon lock: of a payment's and a release's claim racing (neither checking the state itself), the table lets exactly one win", async () => {
    const l = aLock('locked');
    await s.locks.create(l);
    const [pay, release] = await Promise.all([
      s.locks.change(l.id, T0, (cur) => ({ ...cur, state: 'paying', paymentId: 'sale-2', paidTotal: 20 })),
      s.locks.change(l.id, T0, (cur) => ({ ...cur, state: 'releasing' })),
    ]);
    expect([pay.ok, release.ok].filter(Boolean)).toHaveLength(1);
    const loser = pay.ok ? release : pay;
    expect(loser).toMatchObject({
      ok: false,
      reason: 'rejected',
      detail: expect.stringMatching(/is (paying|releasing); it cannot become (paying|releasing)$/),
    });
    expect(await s.locks.get(l.id)).toMatchObject({ version: 2 });
  });
});

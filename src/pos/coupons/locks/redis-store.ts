import { defineScripts, type RedisClient } from '../../../platform/redis';
import { compareAndSetLua, sweepLua } from '../../money/records/redis-scripts';
import { RedisRecordStore, type RecordScripts, type RedisLayout } from '../../money/records/redis-store';
import { CouponLockRecords } from './store';
import { couponLockRules, DEFAULT_USED_KEEP_MS, fromStored, RECHECK_MS, type CouponLock } from './types';

/*
 * Keys: `<prefix>{cpl}:r:<id>` (the record: JSON with its version),
 * `<prefix>{cpl}:due` (open locks scored by releaseAt) and
 * `<prefix>{cpl}:paid:<paymentId>` (the codes a payment burned, JSON, written
 * with the lock becoming `used`). Every script gets every key it touches in
 * KEYS, all under the one `{cpl}` hash tag, so Redis Cluster keeps them in one slot.
 */

/** The shared compare-and-set, reading the version out of the JSON. */
const WRITE = compareAndSetLua('tostring(cjson.decode(cur).version)');

/**
 * The shared sweep. ARGV: now, recheck time, the candidates' ids. A lock's
 * JSON is not rewritten in Lua (cjson would not give back the same text), so
 * every due lock is handed over as it is, rescored to the recheck time: the
 * store abandons a free one with a compare-and-set, whose write takes it out
 * of the index; one a payment or a release holds is the sweeper's to settle.
 * If that write fails (or a crash comes first) it is looked at again then.
 */
const CLAIM = sweepLua({
  args: 0,
  lua: `
local function hand_over(cur) return true end
local function end_due(key, cur) return false end
`,
});

interface Scripts {
  cplWrite: RecordScripts['write'];
  cplClaim: RecordScripts['sweep'];
}

function couponLockScripts(redis: RedisClient): RecordScripts {
  const s = defineScripts<Scripts>(redis, { cplWrite: { keys: 3, lua: WRITE }, cplClaim: { lua: CLAIM } });
  return { write: (...args) => s.cplWrite(...args), sweep: (...args) => s.cplClaim(...args) };
}

/** How coupon locks sit in Redis, for the shared store. */
export const COUPON_LOCK_LAYOUT: RedisLayout<CouponLock> = {
  tag: 'cpl',
  index: 'due',
  side: 'paid',
  what: 'coupon lock store',
  encode: (l) => JSON.stringify(l),
  decode: (_id, json) => fromStored(JSON.parse(json) as CouponLock),
  scripts: couponLockScripts,
  ends: { by: 'compare-and-set' },
};

export class RedisCouponLockStore extends CouponLockRecords {
  constructor(redis: RedisClient, opts: { prefix: string; recheckMs?: number; usedKeepMs?: number }) {
    const options = { prefix: opts.prefix, maxAttempts: 8, recheckMs: opts.recheckMs ?? RECHECK_MS };
    super('redis', new RedisRecordStore(redis, couponLockRules(opts.usedKeepMs ?? DEFAULT_USED_KEEP_MS), COUPON_LOCK_LAYOUT, options));
  }
}

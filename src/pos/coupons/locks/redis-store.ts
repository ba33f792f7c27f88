import { problem } from '../../../platform/problem';
import { defineScripts, redisUnavailable, type RedisClient } from '../../../platform/redis';
import { CouponLock, CouponLockChange, CouponLockStore, DEFAULT_USED_KEEP_MS, fromStored, isOpenLock, nextVersion, RECHECK_MS, retentionMs } from './types';

/*
 * Keys: `<prefix>{cpl}:r:<id>` (the record: JSON with its version),
 * `<prefix>{cpl}:due` (open locks scored by releaseAt) and
 * `<prefix>{cpl}:paid:<paymentId>` (the codes a payment burned, JSON). Every
 * script gets every key it touches in KEYS, all under the one `{cpl}` hash
 * tag, so Redis Cluster keeps them in one slot.
 */

/**
 * Compare-and-set. KEYS: record, due index, the payment's used codes (the
 * record key again when there are none). ARGV: expected version ("0": must
 * not exist), new record JSON, ttl ms, id, index score ("" = not open), used
 * codes JSON ("" = none), their ttl ms. The used codes are written with the
 * record, so a lock never reads `used` without them.
 * Returns 1 written, 0 version changed (or exists, for "0"), -1 not found.
 */
const WRITE = `
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if cur then return 0 end
else
  if not cur then return -1 end
  if tostring(cjson.decode(cur).version) ~= ARGV[1] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[5] == '' then redis.call('ZREM', KEYS[2], ARGV[4]) else redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4]) end
if ARGV[6] ~= '' then redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[7]) end
return 1
`;

/**
 * Claims due locks. KEYS: due index, then one record key per candidate.
 * ARGV: now, recheck time, then the candidates' ids (same order as their
 * keys). A candidate is claimed only if it is still in the index and due, so
 * exactly one caller claims it. A claimed lock is rescored to the recheck
 * time, not dropped: the caller's write of its end takes it out of the index,
 * and if that write fails (or a payment holds the lock) it is looked at again
 * then, so a failure or crash meanwhile loses nothing. A candidate whose
 * record is gone leaves the index. Returns the claimed records' JSON (as
 * stored; the caller writes what they become with a version check).
 */
const CLAIM = `
local out = {}
for i = 2, #KEYS do
  local id = ARGV[i + 1]
  local score = redis.call('ZSCORE', KEYS[1], id)
  if score and tonumber(score) <= tonumber(ARGV[1]) then
    local cur = redis.call('GET', KEYS[i])
    if cur then
      redis.call('ZADD', KEYS[1], ARGV[2], id)
      out[#out + 1] = cur
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
return out
`;

interface Scripts {
  cplWrite(
    record: string,
    due: string,
    used: string,
    expected: string,
    json: string,
    ttl: string,
    id: string,
    score: string,
    usedJson: string,
    usedTtl: string,
  ): Promise<number>;
  cplClaim(numberOfKeys: number, ...args: string[]): Promise<string[]>;
}

export class RedisCouponLockStore implements CouponLockStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient & Scripts;
  private readonly recordPrefix: string;
  private readonly dueKey: string;
  private readonly usedPrefix: string;
  private readonly recheckMs: number;
  private readonly usedKeepMs: number;

  constructor(redis: RedisClient, opts: { prefix: string; recheckMs?: number; usedKeepMs?: number }) {
    this.recheckMs = opts.recheckMs ?? RECHECK_MS;
    this.usedKeepMs = opts.usedKeepMs ?? DEFAULT_USED_KEEP_MS;
    this.redis = defineScripts<Scripts>(redis, { cplWrite: { keys: 3, lua: WRITE }, cplClaim: { lua: CLAIM } });
    this.recordPrefix = `${opts.prefix}{cpl}:r:`;
    this.dueKey = `${opts.prefix}{cpl}:due`;
    this.usedPrefix = `${opts.prefix}{cpl}:paid:`;
  }

  async create(lock: CouponLock): Promise<void> {
    const record = { ...structuredClone(lock), version: 1 };
    if ((await this.write(record, '0', lock.updatedAt)) !== 1) throw problem('coupon_lock_exists', `Coupon lock ${lock.id} already exists`);
  }

  async get(id: string): Promise<CouponLock | null> {
    const json = await this.call(() => this.redis.get(this.recordPrefix + id));
    return json ? fromStored(JSON.parse(json) as CouponLock) : null;
  }

  async change(id: string, now: number, change: (current: CouponLock) => CouponLock | string): Promise<CouponLockChange> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const current = await this.get(id);
      if (!current) return { ok: false, reason: 'not_found' };
      const proposed = change(structuredClone(current));
      const next = typeof proposed === 'string' ? proposed : nextVersion(current, proposed, now);
      if (typeof next === 'string') return { ok: false, reason: 'rejected', lock: current, detail: next };
      const written = await this.write(next, String(current.version), now);
      if (written === 1) return { ok: true, lock: next };
      if (written === -1) return { ok: false, reason: 'not_found' };
    }
    throw problem('coupon_lock_busy', `Coupon lock ${id} is being changed by another request; try again`);
  }

  async sweepDue(now: number, limit: number): Promise<CouponLock[]> {
    const ids = await this.call(() => this.redis.zrangebyscore(this.dueKey, '-inf', now, 'LIMIT', 0, Math.max(1, Math.floor(limit))));
    if (ids.length === 0) return [];
    const keys = [this.dueKey, ...ids.map((id) => this.recordPrefix + id)];
    const claimed = await this.call(() => this.redis.cplClaim(keys.length, ...keys, String(now), String(now + this.recheckMs), ...ids));
    const out: CouponLock[] = [];
    for (const json of claimed) {
      const lock = fromStored(JSON.parse(json) as CouponLock);
      if (!isOpenLock(lock)) continue;
      // Claimed by a payment or a release: handed over as it is, for the sweeper to settle.
      if (lock.state !== 'locked') {
        out.push(lock);
        continue;
      }
      const result = await this.change(lock.id, now, (cur) => (cur.state === 'locked' ? { ...cur, state: 'abandoned' } : `it is ${cur.state}`));
      if (result.ok) out.push(result.lock);
    }
    return out;
  }

  async countOpen(): Promise<number> {
    return this.call(() => this.redis.zcard(this.dueKey));
  }

  async usedBy(paymentId: string): Promise<string[] | null> {
    const json = await this.call(() => this.redis.get(this.usedPrefix + paymentId));
    return json ? (JSON.parse(json) as string[]) : null;
  }

  private write(l: CouponLock, expected: string, now: number): Promise<number> {
    const ttl = String(Math.max(1, Math.ceil(retentionMs(l, now))));
    const score = isOpenLock(l) ? String(l.releaseAt) : '';
    const record = this.recordPrefix + l.id;
    const paid = l.state === 'used' && l.paymentId ? l.paymentId : undefined;
    const usedKey = paid ? this.usedPrefix + paid : record;
    const usedJson = paid ? JSON.stringify(l.coupons.map((c) => c.code)) : '';
    return this.call(() => this.redis.cplWrite(record, this.dueKey, usedKey, expected, JSON.stringify(l), ttl, l.id, score, usedJson, String(this.usedKeepMs)));
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw redisUnavailable(err, 'coupon lock store');
    }
  }
}

import { defineScripts, redisUnavailable, type RedisClient } from '../../../platform/redis';

/**
 * The id claims by lease end: a sorted set `<prefix>sale-leases` of
 * `<kind>:<id>` scored by the claim's lease end, beside the `sale:` keys. The
 * `sale:` keys carry no hash tag (the layout of every release so far), so no
 * one script can write an entry and this set on a Redis Cluster; instead a
 * claim is listed before its entry is written and unlisted after its entry
 * left the claim state, so a crash in between leaves at most a member whose
 * entry says it is no longer claimed, which the sweep drops. The entry is the
 * truth; the set only says when to look at it.
 */
export interface IdLeaseIndex {
  /** Lists a claim at its lease end; `keep`: leaves a member already listed as it is (a claim another holds). */
  list(member: string, until: number, keep?: boolean): Promise<void>;
  /** Unlists it, unless it was listed again since (its score is no longer `score`). */
  unlist(member: string, score: number): Promise<void>;
  /** Moves it to `to`, unless it was listed again since (its score is no longer `from`). */
  move(member: string, from: number, to: number): Promise<void>;
  /** Takes up to `limit` members due by `now`, each for one caller only: each is moved to `recheckAt` first, so a crash loses none. */
  takeDue(now: number, recheckAt: number, limit: number): Promise<string[]>;
}

/** `<kind>:<id>`, and back: a kind has no colon. */
export const leaseMember = (kind: string, id: string) => `${kind}:${id}`;
export function fromLeaseMember(member: string): { kind: string; id: string } {
  const colon = member.indexOf(':');
  return { kind: member.slice(0, colon), id: member.slice(colon + 1) };
}

/** Scores compared as numbers (ZSCORE answers a string). */
const IF_SCORE = `local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) ~= tonumber(ARGV[2]) then return 0 end`;
const UNLIST = `${IF_SCORE}
return redis.call('ZREM', KEYS[1], ARGV[1])`;
const MOVE = `${IF_SCORE}
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1`;
/** ARGV: now, recheck time, limit. */
const TAKE_DUE = `local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], m) end
return due`;

type Scripts = {
  idLeaseUnlist(key: string, member: string, score: string): Promise<number>;
  idLeaseMove(key: string, member: string, from: string, to: string): Promise<number>;
  idLeaseTakeDue(key: string, now: string, recheckAt: string, limit: string): Promise<string[]>;
};

export class RedisIdLeaseIndex implements IdLeaseIndex {
  private readonly redis: RedisClient & Scripts;
  private readonly key: string;

  constructor(redis: RedisClient, prefix: string) {
    this.redis = defineScripts<Scripts>(redis, {
      idLeaseUnlist: { keys: 1, lua: UNLIST },
      idLeaseMove: { keys: 1, lua: MOVE },
      idLeaseTakeDue: { keys: 1, lua: TAKE_DUE },
    });
    this.key = `${prefix}sale-leases`;
  }

  async list(member: string, until: number, keep = false) {
    await this.call(() => (keep ? this.redis.zadd(this.key, 'NX', until, member) : this.redis.zadd(this.key, until, member)));
  }

  async unlist(member: string, score: number) {
    await this.call(() => this.redis.idLeaseUnlist(this.key, member, String(score)));
  }

  async move(member: string, from: number, to: number) {
    await this.call(() => this.redis.idLeaseMove(this.key, member, String(from), String(to)));
  }

  takeDue(now: number, recheckAt: number, limit: number): Promise<string[]> {
    return this.call(() => this.redis.idLeaseTakeDue(this.key, String(now), String(recheckAt), String(Math.floor(limit))));
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw redisUnavailable(err, 'sale records');
    }
  }
}

/** The memory twin: the same answers, in this process. */
export class MemoryIdLeaseIndex implements IdLeaseIndex {
  readonly scores = new Map<string, number>();

  async list(member: string, until: number, keep = false) {
    if (!(keep && this.scores.has(member))) this.scores.set(member, until);
  }

  async unlist(member: string, score: number) {
    if (this.scores.get(member) === score) this.scores.delete(member);
  }

  async move(member: string, from: number, to: number) {
    if (this.scores.get(member) === from) this.scores.set(member, to);
  }

  async takeDue(now: number, recheckAt: number, limit: number): Promise<string[]> {
    const due = [...this.scores]
      .filter(([, s]) => s <= now)
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, Math.floor(limit))
      .map(([m]) => m);
    for (const m of due) this.scores.set(m, recheckAt);
    return due;
  }
}

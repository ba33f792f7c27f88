import { readStrings, scanKeys } from '../../platform/redis-scan';
import { defineScripts, redisUnavailable, type RedisClient } from '../../platform/redis';
import type { BeginResult, Claim, IdempotencySlot, IdempotencyStore, StoredResponse } from './types';

/*
 * Records are JSON strings: running {s:'r', o: owner, f, e: lease end} or
 * done {s:'d', f, e: ttl end, r: response}. Expiry is judged against the
 * caller's clock (`e`), like the redemption store; the Redis TTL only
 * collects garbage, a little after `e`.
 */

/** KEYS: record. ARGV: running record, now, px. Returns nil when claimed, else the live record. */
const BEGIN = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local ok, rec = pcall(cjson.decode, cur)
  if ok and type(rec) == 'table' and tonumber(rec.e) and tonumber(rec.e) > tonumber(ARGV[2]) then return cur end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return false
`;

/**
 * Only the owner of a running record may change it. KEYS: record. ARGV: owner,
 * 'set' | 'del', new record, px. Returns 1 done, 0 not this owner's (lease lost or gone).
 */
const OWNED = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local ok, rec = pcall(cjson.decode, cur)
if not ok or type(rec) ~= 'table' or rec.s ~= 'r' or rec.o ~= ARGV[1] then return 0 end
if ARGV[2] == 'del' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
end
return 1
`;

/** KEYS: record. ARGV: the value read. Deletes it only if nothing wrote it since. */
const FORGET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

/** The Redis TTL outlives the logical expiry by this much, so a lagging clock never loses a live record. */
const GC_SLACK_MS = 5_000;

interface IdempotencyScripts {
  idemBegin(key: string, record: string, now: string, px: string): Promise<string | null>;
  idemOwned(key: string, owner: string, op: 'set' | 'del', record: string, px: string): Promise<number>;
  idemForget(key: string, read: string): Promise<number>;
}

const withScripts = (redis: RedisClient) =>
  defineScripts<IdempotencyScripts>(redis, { idemBegin: { keys: 1, lua: BEGIN }, idemOwned: { keys: 1, lua: OWNED }, idemForget: { keys: 1, lua: FORGET } });

function unavailable(err: unknown): unknown {
  return redisUnavailable(err, 'idempotency store');
}

interface RunningRecord {
  s: 'r';
  o: string;
  f: string;
  e: number;
}
interface DoneRecord {
  s: 'd';
  f: string;
  e: number;
  r: StoredResponse;
}

/**
 * Idempotency records in Redis, shared by every BFF instance, so a retry that
 * lands on another instance (or after a restart) still finds the first answer.
 * Keys: `<prefix>idem:{<terminalId>}:<key>`. Each script touches that one key
 * (passed in KEYS); the hash tag per terminal keeps a terminal's records
 * together on a cluster while terminals spread over every master. The
 * connection belongs to the caller.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient & IdempotencyScripts;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.redis = withScripts(redis);
  }

  key(slot: IdempotencySlot): string {
    return `${this.prefix}idem:{${slot.terminalId}}:${slot.key}`;
  }

  async begin(slot: IdempotencySlot, claim: Claim): Promise<BeginResult> {
    const running: RunningRecord = { s: 'r', o: claim.owner, f: claim.fingerprint, e: claim.now + claim.leaseMs };
    const found = await this.call(() => this.redis.idemBegin(this.key(slot), JSON.stringify(running), String(claim.now), String(claim.leaseMs + GC_SLACK_MS)));
    if (found === null) return { kind: 'claimed' };
    const rec = JSON.parse(found) as RunningRecord | DoneRecord;
    return rec.s === 'd' ? { kind: 'done', fingerprint: rec.f, response: rec.r } : { kind: 'running', fingerprint: rec.f, expiresAt: rec.e };
  }

  async renew(slot: IdempotencySlot, owner: string, now: number, leaseMs: number): Promise<boolean> {
    // The fingerprint is not known here and not needed while running: keep the stored one.
    const key = this.key(slot);
    const cur = await this.call(() => this.redis.get(key));
    if (!cur) return false;
    const rec = JSON.parse(cur) as RunningRecord | DoneRecord;
    if (rec.s !== 'r' || rec.o !== owner) return false;
    const next: RunningRecord = { ...rec, e: now + leaseMs };
    return (await this.call(() => this.redis.idemOwned(key, owner, 'set', JSON.stringify(next), String(leaseMs + GC_SLACK_MS)))) === 1;
  }

  async complete(slot: IdempotencySlot, owner: string, fingerprint: string, response: StoredResponse, now: number, ttlMs: number): Promise<boolean> {
    const done: DoneRecord = { s: 'd', f: fingerprint, e: now + ttlMs, r: response };
    return (await this.call(() => this.redis.idemOwned(this.key(slot), owner, 'set', JSON.stringify(done), String(ttlMs + GC_SLACK_MS)))) === 1;
  }

  async release(slot: IdempotencySlot, owner: string): Promise<boolean> {
    return (await this.call(() => this.redis.idemOwned(this.key(slot), owner, 'del', '', '0'))) === 1;
  }

  async forgetAnswers(names: (answer: StoredResponse) => boolean): Promise<number> {
    let forgotten = 0;
    await this.call(() =>
      scanKeys(this.redis, `${this.prefix}idem:*`, async (keys, node) => {
        const stored = await readStrings(this.redis, node, keys);
        for (const [i, raw] of stored.entries()) {
          const rec = raw ? (JSON.parse(raw) as RunningRecord | DoneRecord) : undefined;
          if (rec?.s === 'd' && names(rec.r)) forgotten += await this.redis.idemForget(keys[i], raw as string);
        }
      }),
    );
    return forgotten;
  }

  async close(): Promise<void> {
    // The connection is shared; its owner quits it.
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw unavailable(err);
    }
  }
}

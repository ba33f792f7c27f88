import { defineScripts, type RedisClient } from '../../platform/redis';
import { CLAIMED_CODES, HELD_CODE } from './redis-codec';

/*
 * The Lua side of RedisRedemptionStore. Each script runs atomically, so the
 * record, its TTL and its place in the expiry index always change together.
 * Records are strings in the redis-codec format: "<version>|<state>|<updatedAt>|<expiresAt>|...".
 */

/** Shared by the read and sweep paths, so a hold is expired the same way (and once) whichever gets there first. */
const EXPIRE_FN = `
local function expire(key, cur, now36, ttl)
  local v, rest = string.match(cur, '^(%d+)|${HELD_CODE}|[^|]*|(.*)$')
  if not v then return false end
  local nxt = (tonumber(v) + 1) .. '|e|' .. now36 .. '|' .. rest
  redis.call('SET', key, nxt, 'PX', ttl)
  return nxt
end
`;

/**
 * KEYS: record, open index. ARGV: id, now, now (base 36), ttl after end.
 * Returns nil, or {expiredNow (0|1), record}. A due hold is expired here.
 */
const READ = `${EXPIRE_FN}
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local expires = tonumber(string.match(cur, '^%d+|${HELD_CODE}|[^|]*|([^|]*)|') or '', 36)
if expires and expires <= tonumber(ARGV[2]) then
  local nxt = expire(KEYS[1], cur, ARGV[3], ARGV[4])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {1, nxt}
end
return {0, cur}
`;

/**
 * Compare-and-set. KEYS: record, open index. ARGV: expected version ("0": must
 * not exist), id, new record, ttl ms, index score ("" = not held: leave the index).
 * Returns 1 written, 0 version changed (or exists, for "0"), -1 not found.
 */
const WRITE = `
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if cur then return 0 end
else
  if not cur then return -1 end
  if string.match(cur, '^(%d+)|') ~= ARGV[1] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[2], ARGV[2])
else
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
end
return 1
`;

/**
 * Claims due holds. KEYS: open index, then the record of each candidate
 * (found due by the caller's ZRANGEBYSCORE just before; Redis Cluster needs
 * every key in KEYS). ARGV: now, now (base 36), ttl after end, recheck time
 * (epoch ms), then the candidates' ids in KEYS order. A candidate is taken only
 * if it is still in the index and due, so two sweepers racing on the same
 * candidates handle each hold once. Returns {id, record, ...} of the holds this
 * call expired, and of the claimed ones (state letters ${CLAIMED_CODES}: a payment or
 * void was under way), which are not expired but put back in the index at the
 * recheck time, for the sweeper to ask the upstream about. Entries whose record
 * is gone or no longer held are just dropped from the index.
 */
const SWEEP = `${EXPIRE_FN}
local out = {}
for i = 2, #KEYS do
  local id = ARGV[i + 3]
  local score = redis.call('ZSCORE', KEYS[1], id)
  if score and tonumber(score) <= tonumber(ARGV[1]) then
    redis.call('ZREM', KEYS[1], id)
    local cur = redis.call('GET', KEYS[i])
    if cur and (string.match(cur, '^%d+|${CLAIMED_CODES}|') or string.match(cur, '^%d+|c|')) then
      redis.call('ZADD', KEYS[1], ARGV[4], id)
      out[#out + 1] = id
      out[#out + 1] = cur
    elseif cur then
      local nxt = expire(KEYS[i], cur, ARGV[2], ARGV[3])
      if nxt then
        out[#out + 1] = id
        out[#out + 1] = nxt
      end
    end
  end
end
return out
`;

export interface RedemptionScripts {
  rdmRead(record: string, open: string, id: string, now: string, now36: string, ttl: string): Promise<[number, string] | null>;
  rdmWrite(record: string, open: string, expected: string, id: string, value: string, ttl: string, score: string): Promise<number>;
  /** numberOfKeys first: one key per candidate. */
  rdmSweep(numberOfKeys: number, ...keysThenArgs: string[]): Promise<string[]>;
}

/** Registers the scripts on the client (EVALSHA, falling back to EVAL once per connection). */
export function withRedemptionScripts(redis: RedisClient): RedisClient & RedemptionScripts {
  return defineScripts<RedemptionScripts>(redis, { rdmRead: { keys: 2, lua: READ }, rdmWrite: { keys: 2, lua: WRITE }, rdmSweep: { lua: SWEEP } });
}

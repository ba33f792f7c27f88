import { defineScripts, type RedisClient } from '../../platform/redis';
import { compareAndSetLua, sweepLua } from '../money/records/redis-scripts';
import type { RecordScripts } from '../money/records/redis-store';
import { CLAIMED_CODES, HELD_CODE, LAPSING_CODES, VERSION_LUA } from './redis-codec';

/*
 * The Lua side of RedisRedemptionStore: the shared store's compare-and-set and
 * sweep (../money/records/redis-scripts.ts) over this feature's records, and
 * the read that expires a due hold. Each script runs atomically, so the
 * record, its TTL and its place in the expiry index always change together.
 * Records are strings in the redis-codec format: "<version>|<state>|<updatedAt>|<expiresAt>|...".
 */

/** Shared by the read and sweep paths, so a hold (or an unpaid stand-in) is expired the same way (and once) whichever gets there first. */
const EXPIRE_FN = `
local function expire(key, cur, now36, ttl)
  local v, rest = string.match(cur, '^(%d+)|${LAPSING_CODES}|[^|]*|(.*)$')
  if not v then return false end
  local nxt = (tonumber(v) + 1) .. '|e|' .. now36 .. '|' .. rest
  redis.call('SET', key, nxt, 'PX', ttl)
  return nxt
end
`;

/**
 * KEYS: record, open index. ARGV: id, now, now (base 36), ttl after end.
 * Returns nil, or {expiredNow (0|1), record}. A due hold or unpaid stand-in is expired here.
 */
const READ = `${EXPIRE_FN}
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local expires = tonumber(string.match(cur, '^%d+|${LAPSING_CODES}|[^|]*|([^|]*)|') or '', 36)
if expires and expires <= tonumber(ARGV[2]) then
  local nxt = expire(KEYS[1], cur, ARGV[3], ARGV[4])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {1, nxt}
end
return {0, cur}
`;

const WRITE = compareAndSetLua(VERSION_LUA);

/**
 * The shared sweep. ARGV: now, now (base 36), ttl after end, hand over unclaimed
 * holds too ('1': the sweeper asks upstream before ending them), recheck time, the
 * candidates' ids. A claimed hold (a payment or a void under way: state letter
 * p or x, or c as earlier versions wrote either) is handed over as it is, for
 * the sweeper to ask the upstream about; an unclaimed one is expired here, as
 * on read (an unpaid stand-in too). Entries whose record is gone or no longer
 * lapsing are just dropped from the index.
 */
const SWEEP = sweepLua({
  args: 3,
  lua: `${EXPIRE_FN}
local function hand_over(cur)
  if ARGV[4] == '1' and string.match(cur, '^%d+|${HELD_CODE}|') then return true end
  return string.match(cur, '^%d+|${CLAIMED_CODES}|') or string.match(cur, '^%d+|c|')
end
local function end_due(key, cur)
  return expire(key, cur, ARGV[2], ARGV[3])
end
`,
});

interface RedemptionScripts {
  rdmRead(record: string, open: string, id: string, now: string, now36: string, ttl: string): Promise<[number, string] | null>;
  /** The shared compare-and-set; a redemption has no side record (the record key stands in, with an empty value). */
  rdmWrite: RecordScripts['write'];
  rdmSweep: RecordScripts['sweep'];
}

/** Registers the scripts on the client (EVALSHA, falling back to EVAL once per connection). */
export function withRedemptionScripts(redis: RedisClient): RedisClient & RedemptionScripts {
  return defineScripts<RedemptionScripts>(redis, { rdmRead: { keys: 2, lua: READ }, rdmWrite: { keys: 3, lua: WRITE }, rdmSweep: { lua: SWEEP } });
}

/** The scripts as the shared store calls them. */
export function redemptionScripts(redis: RedisClient): RecordScripts {
  const s = withRedemptionScripts(redis);
  return {
    write: (...args) => s.rdmWrite(...args),
    sweep: (...args) => s.rdmSweep(...args),
    read: (record, open, id, now, now36, ttl) => s.rdmRead(record, open, id, now, now36, ttl),
  };
}

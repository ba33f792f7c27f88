/*
 * The Lua of the shared store, made once for every feature. A feature puts
 * these on the client under names of its own (its records have their own
 * format, so each gets its own script text): see RecordScripts. Each script
 * runs atomically, so a record, its TTL and its place in the due index always
 * change together; every key it touches is in KEYS, under the feature's one
 * hash tag (one cluster slot).
 */

/**
 * Compare-and-set. KEYS: record, due index, side record (the record key again
 * when there is none). ARGV: expected version ("0": must not exist), id, new
 * record, ttl ms, index score ("" = not open: out of the index), side value
 * ("" = none), its ttl ms. A side record is written with the record, so the
 * record is never seen without it. Returns 1 written, 0 version changed (or
 * exists, for "0"), -1 not found.
 *
 * `versionOf`: a Lua expression reading the stored version of `cur`, as a
 * string (each feature's format keeps it its own way).
 */
export function compareAndSetLua(versionOf: string): string {
  return `
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if cur then return 0 end
else
  if not cur then return -1 end
  if ${versionOf} ~= ARGV[1] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[2], ARGV[2])
else
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
end
if ARGV[6] ~= '' then redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[7]) end
return 1
`;
}

/**
 * Claims due records. KEYS: due index, then the record of each candidate
 * (found due by the caller's ZRANGEBYSCORE just before; Redis Cluster needs
 * every key in KEYS). ARGV: now, the feature's `args` arguments, the recheck
 * time (epoch ms), then the candidates' ids in KEYS order. A candidate is
 * taken only if it is still in the index and due, so two sweepers racing on
 * the same candidates take each once. One the feature's `hand_over(cur)` names
 * (claimed: its outcome is known only upstream) is returned as it is and
 * rescored to the recheck time, for the caller to settle and a crash meanwhile
 * to lose nothing. Any other leaves the index; `end_due(key, cur)` writes what
 * it becomes and returns that, or returns false (gone, or nothing to end).
 * Returns {id, record, ...} of the records taken.
 *
 * `lua` defines `hand_over` and `end_due`, reading its own arguments as ARGV[2]..ARGV[1 + args].
 */
export function sweepLua(feature: { args: number; lua: string }): string {
  return `${feature.lua}
local out = {}
local recheck_at = ARGV[${feature.args + 2}]
for i = 2, #KEYS do
  local id = ARGV[i + ${feature.args + 1}]
  local score = redis.call('ZSCORE', KEYS[1], id)
  if score and tonumber(score) <= tonumber(ARGV[1]) then
    local cur = redis.call('GET', KEYS[i])
    if cur and hand_over(cur) then
      redis.call('ZADD', KEYS[1], recheck_at, id)
      out[#out + 1] = id
      out[#out + 1] = cur
    else
      redis.call('ZREM', KEYS[1], id)
      local nxt = cur and end_due(KEYS[i], cur)
      if nxt then
        out[#out + 1] = id
        out[#out + 1] = nxt
      end
    end
  end
end
return out
`;
}

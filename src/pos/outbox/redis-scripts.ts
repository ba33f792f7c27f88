import { defineScripts, type RedisClient } from '../../platform/redis';

/*
 * The Lua side of RedisOutboxStore. Every key a script touches is passed in
 * KEYS (Redis Cluster routes a script by its KEYS and refuses keys of other
 * slots). Keys:
 *   stream        the outbox stream; each stream entry is {id, key}; consumer group "delivery"
 *   dead          the dead-letter stream; each entry is {id, storeId}
 *   e:<id>        the entry's record (hash): request, state, attempts, times, last error, result
 *   q:<orderKey>  undelivered ids of one order key, oldest first (the head is next to deliver)
 *   l:<orderKey>  the lease: which consumer is delivering that key's head (PX)
 * All of them share the one `{obx}` hash tag, so on a cluster the whole outbox
 * lives in one slot (one master). That is deliberate: one stream with one
 * consumer group is what hands each entry to one instance and lets a live
 * instance claim a dead one's entries, and enqueueing (stream + record + queue)
 * and picking (record + queue + lease + stream) must each be atomic. Spreading
 * it by customer would need a stream per customer. The outbox only fills while
 * the loyalty service is out of reach, so one master carries it easily.
 * A record has no TTL while its entry is queued, in delivery or dead; it gets
 * one when delivered or discarded.
 */

/** KEYS: stream, record, queue. ARGV: id, orderKey, field, value, ... Returns the stream id, or nil if the id exists. */
const ENQUEUE = `
if redis.call('EXISTS', KEYS[2]) == 1 then return false end
local sid = redis.call('XADD', KEYS[1], '*', 'id', ARGV[1], 'key', ARGV[2])
redis.call('HSET', KEYS[2], 'streamId', sid, unpack(ARGV, 3))
redis.call('RPUSH', KEYS[3], ARGV[1])
return sid
`;

/**
 * Picks what a consumer may deliver now. KEYS: stream, then (record, queue,
 * lease) per candidate. ARGV: group, consumer, now, lease ms, max picks, then
 * (stream id, id) per candidate, oldest first. An entry is picked when its
 * record is queued/delivering under this stream id, it is due, it heads its
 * key's queue (so an older entry waiting for its retry is never overtaken by
 * a younger one another instance holds), and no consumer holds the key.
 * Stream entries whose record has moved on are acknowledged and deleted here.
 * Returns a flat list of ('pick', id) and ('stale', stream id).
 */
const PICK = `
local group, me, now, lease, max = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local out, picked = {}, 0
for c = 0, (#KEYS - 1) / 3 - 1 do
  local rec, queue, lk = KEYS[2 + 3 * c], KEYS[3 + 3 * c], KEYS[4 + 3 * c]
  local sid, id = ARGV[6 + 2 * c], ARGV[7 + 2 * c]
  local f = redis.call('HMGET', rec, 'state', 'streamId', 'nextAttemptAt')
  if (f[1] ~= 'queued' and f[1] ~= 'delivering') or f[2] ~= sid then
    redis.call('XACK', KEYS[1], group, sid)
    redis.call('XDEL', KEYS[1], sid)
    -- A record that is gone must not block its key forever.
    if not f[1] then redis.call('LREM', queue, 1, id) end
    out[#out + 1] = 'stale'
    out[#out + 1] = sid
  elseif picked < max and tonumber(f[3] or '0') <= now and redis.call('LINDEX', queue, 0) == id then
    -- Any holder, this consumer too, is delivering the key's head right now.
    if redis.call('SET', lk, me, 'PX', lease, 'NX') then
      redis.call('HSET', rec, 'state', 'delivering', 'updatedAt', ARGV[3])
      picked = picked + 1
      out[#out + 1] = 'pick'
      out[#out + 1] = id
    end
  end
end
return out
`;

/** KEYS: lease. ARGV: consumer, lease ms. 1 if still ours (and extended). */
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/**
 * Records how a delivery ended. KEYS: stream, dead, record, queue, lease.
 * ARGV: group, consumer, stream id, id, outcome (delivered|retry|dead), ttl s,
 * then field, value, ... to set. A retry stays in the consumer's pending list;
 * delivered and dead leave the stream (dead joins the dead-letter stream).
 * Returns 0 when the entry was already finished by someone else.
 */
const FINISH = `
local function release()
  if redis.call('GET', KEYS[5]) == ARGV[2] then redis.call('DEL', KEYS[5]) end
end
local f = redis.call('HMGET', KEYS[3], 'state', 'streamId', 'storeId')
if f[2] ~= ARGV[3] or (f[1] ~= 'queued' and f[1] ~= 'delivering') then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  release()
  return 0
end
redis.call('HSET', KEYS[3], unpack(ARGV, 7))
if ARGV[5] == 'retry' then
  release()
  return 1
end
redis.call('LREM', KEYS[4], 1, ARGV[4])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
redis.call('XDEL', KEYS[1], ARGV[3])
if ARGV[5] == 'dead' then
  local did = redis.call('XADD', KEYS[2], '*', 'id', ARGV[4], 'storeId', f[3])
  redis.call('HSET', KEYS[3], 'deadId', did)
else
  redis.call('EXPIRE', KEYS[3], ARGV[6])
end
release()
return 1
`;

/** KEYS: stream, dead, record, queue. ARGV: id, storeId, now. Returns the new stream id, or nil. */
const RETRY_DEAD = `
local f = redis.call('HMGET', KEYS[3], 'state', 'storeId', 'deadId', 'orderKey')
if f[1] ~= 'dead' or f[2] ~= ARGV[2] then return false end
redis.call('XDEL', KEYS[2], f[3])
local sid = redis.call('XADD', KEYS[1], '*', 'id', ARGV[1], 'key', f[4])
redis.call('RPUSH', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[3], 'state', 'queued', 'streamId', sid, 'attempts', '0', 'nextAttemptAt', '0', 'updatedAt', ARGV[3])
redis.call('HDEL', KEYS[3], 'deadId', 'deadAt')
return sid
`;

/** KEYS: dead, record. ARGV: storeId, now, ttl s. 1 if discarded. */
const DISCARD_DEAD = `
local f = redis.call('HMGET', KEYS[2], 'state', 'storeId', 'deadId')
if f[1] ~= 'dead' or f[2] ~= ARGV[1] then return 0 end
redis.call('XDEL', KEYS[1], f[3])
redis.call('HSET', KEYS[2], 'state', 'discarded', 'updatedAt', ARGV[2])
redis.call('HDEL', KEYS[2], 'deadId')
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
`;

export interface OutboxScripts {
  obxEnqueue(stream: string, record: string, queue: string, ...args: string[]): Promise<string | null>;
  /** numberOfKeys first: the key count depends on the candidates. */
  obxPick(numberOfKeys: number, ...keysThenArgs: string[]): Promise<string[]>;
  obxRenew(lease: string, consumer: string, leaseMs: string): Promise<number>;
  obxFinish(stream: string, dead: string, record: string, queue: string, lease: string, ...args: string[]): Promise<number>;
  obxRetryDead(stream: string, dead: string, record: string, queue: string, id: string, storeId: string, now: string): Promise<string | null>;
  obxDiscardDead(dead: string, record: string, storeId: string, now: string, ttl: string): Promise<number>;
}

export function withOutboxScripts(redis: RedisClient): RedisClient & OutboxScripts {
  return defineScripts<OutboxScripts>(redis, {
    obxEnqueue: { keys: 3, lua: ENQUEUE },
    obxPick: { lua: PICK },
    obxRenew: { keys: 1, lua: RENEW },
    obxFinish: { keys: 5, lua: FINISH },
    obxRetryDead: { keys: 4, lua: RETRY_DEAD },
    obxDiscardDead: { keys: 2, lua: DISCARD_DEAD },
  });
}

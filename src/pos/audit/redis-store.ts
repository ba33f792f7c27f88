import { defineScripts, redisUnavailable, type RedisClient } from '../../platform/redis';
import { scanKeys } from '../../platform/redis-scan';

/**
 * KEYS: one store's stream. ARGV: the text to find in an entry, its
 * replacement. A stream entry cannot be edited, and one added again goes to
 * the end (out of its day's place, where reads by time would miss it), so a
 * stream that has the text is rebuilt in one step: every entry added back
 * under its own id, in order, with the text replaced, and the stream's last
 * id put back so new entries still come after. Nothing else runs meanwhile
 * (a script is atomic): no entry is lost or read half-rewritten. Returns how
 * many entries changed.
 */
const PSEUDONYMISE = `
local rows = redis.call('XRANGE', KEYS[1], '-', '+')
local function replaced(v)
  local out, from, n = {}, 1, 0
  while true do
    local s, e = string.find(v, ARGV[1], from, true)
    if not s then break end
    out[#out + 1] = string.sub(v, from, s - 1)
    out[#out + 1] = ARGV[2]
    from, n = e + 1, n + 1
  end
  out[#out + 1] = string.sub(v, from)
  return table.concat(out), n
end
local hit = false
for _, r in ipairs(rows) do
  for i = 2, #r[2], 2 do if string.find(r[2][i], ARGV[1], 1, true) then hit = true end end
  if hit then break end
end
if not hit then return 0 end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last
for i = 1, #info, 2 do if info[i] == 'last-generated-id' then last = info[i + 1] end end
redis.call('DEL', KEYS[1])
local changed = 0
for _, r in ipairs(rows) do
  local fields, touched = {}, false
  for i = 1, #r[2], 2 do
    local v, n = replaced(r[2][i + 1])
    if n > 0 then touched = true end
    fields[#fields + 1] = r[2][i]
    fields[#fields + 1] = v
  end
  if touched then changed = changed + 1 end
  redis.call('XADD', KEYS[1], r[1], unpack(fields))
end
redis.call('XSETID', KEYS[1], last)
return changed
`;
import type { AuditScan, AuditScanned, AuditStore, NewAuditEntry } from './types';

/**
 * The trail in Redis: one stream per store, `<prefix>audit:<storeId>`, so a
 * store's entries are read without touching another's (and spread over a
 * cluster's masters; every command names one key). Each entry is one field
 * holding its JSON, under an id Redis gives it (its own clock, so instances
 * whose clocks differ never refuse each other's entries). XADD trims what is
 * older than the retention (MINID ~, whole stream nodes at a time). The
 * connection belongs to the caller.
 */
export class RedisAuditStore implements AuditStore {
  readonly kind = 'redis' as const;

  private readonly scripts: { auditPseudonymise(stream: string, find: string, replacement: string): Promise<number> };

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: { prefix: string; retentionMs: number },
  ) {
    this.scripts = defineScripts<{ auditPseudonymise(stream: string, find: string, replacement: string): Promise<number> }>(redis, {
      auditPseudonymise: { keys: 1, lua: PSEUDONYMISE },
    });
  }

  private key(storeId: string): string {
    return `${this.opts.prefix}audit:${storeId}`;
  }

  async append(entry: NewAuditEntry, now: number): Promise<void> {
    const oldest = Math.max(0, now - this.opts.retentionMs);
    try {
      await this.redis.xadd(this.key(entry.storeId), 'MINID', '~', String(oldest), '*', 'e', JSON.stringify(entry));
    } catch (err) {
      throw redisUnavailable(err, 'audit trail');
    }
  }

  async scan(storeId: string, range: AuditScan): Promise<AuditScanned> {
    const start = range.afterId !== undefined ? `(${range.afterId}` : String(range.fromMs);
    let rows: [string, string[]][];
    try {
      rows = await this.redis.xrange(this.key(storeId), start, String(range.untilMs), 'COUNT', range.count);
    } catch (err) {
      throw redisUnavailable(err, 'audit trail');
    }
    const entries = rows.flatMap(([id, fields]) => {
      try {
        return [{ ...(JSON.parse(fields[fields.indexOf('e') + 1]) as NewAuditEntry), id }];
      } catch {
        // Not written by this trail: skipped, the scan carries on after it.
        return [];
      }
    });
    return { entries, lastId: rows.at(-1)?.[0], done: rows.length < range.count };
  }

  /** Entries are written by JSON.stringify (append): the id's field reads exactly so, whatever characters the id has. */
  async pseudonymise(customerId: string, pseudonym: string): Promise<number> {
    const field = (id: string) => `"customerId":${JSON.stringify(id)}`;
    let changed = 0;
    try {
      await scanKeys(this.redis, `${this.opts.prefix}audit:*`, async (keys) => {
        for (const key of keys) changed += await this.scripts.auditPseudonymise(key, field(customerId), field(pseudonym));
      });
    } catch (err) {
      throw redisUnavailable(err, 'audit trail');
    }
    return changed;
  }

  async close(): Promise<void> {}
}

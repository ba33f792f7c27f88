import { redisUnavailable, type RedisClient } from '../../platform/redis';
import { compareStreamIds, decodeRecord, newRecordFields, outcomeFields } from './redis-codec';
import { OutboxScripts, withOutboxScripts } from './redis-scripts';
import {
  FINISHED_STATES,
  type DeliveryOutcome,
  type NewOutboxEntry,
  type OutboxCounts,
  type OutboxEntry,
  type OutboxStore,
  type OutboxStoreOptions,
} from './types';
import { defineScripts } from '../../platform/redis';
import { scanKeys } from '../../platform/redis-scan';

/**
 * KEYS: record. ARGV: updatedAt as read, then field, value, ... Rewrites a
 * delivered or discarded record that nothing changed since it was read; an
 * empty value deletes its field.
 */
const REWRITE_FINISHED = `
local f = redis.call('HMGET', KEYS[1], 'state', 'updatedAt')
if (f[1] ~= 'delivered' and f[1] ~= 'discarded') or f[2] ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`;

export interface RedisOutboxStoreOptions extends OutboxStoreOptions {
  /** Key prefix, e.g. "posbff:". Keys are `<prefix>{obx}:...` (see redis-scripts). */
  prefix: string;
}

const GROUP = 'delivery';
/** Stream entries read per command. */
const PAGE = 200;
/** Entries one consumer holds before it stops reading new ones (the rest are left to other instances). */
const MAX_HELD = 2000;
/** Candidates per pick script. */
const MAX_CANDIDATES = 500;
/** Consumers that died with nothing pending are forgotten after this long. */
const FORGET_CONSUMER_MS = 3600_000;

interface Held {
  id: string;
  orderKey: string;
  /** Not worth offering to the pick script before (our own last retry's backoff). */
  notBefore: number;
}

/** One consumer's view of its pending entries (its part of the group's PEL). */
interface Consumer {
  held: Map<string, Held>;
  streamIdOf: Map<string, string>;
  syncedAt: number;
  claimedAt: number;
  cleanedAt: number;
  cursor: string;
}

type StreamEntries = [string, string[] | null][];

/**
 * The outbox in Redis, shared by every BFF instance. Each instance's worker
 * is a consumer of the group: it reads new stream entries (XREADGROUP >),
 * re-reads its own pending ones now and then (which keeps them from looking
 * idle), and claims entries idle for longer than the lease from consumers
 * that died (XAUTOCLAIM). What may be delivered is decided atomically by the
 * pick script (head of the order key, due, key not leased by another), so
 * order per key and one deliverer at a time hold across instances.
 *
 * The connection belongs to the caller: `close()` does not quit it.
 */
export class RedisOutboxStore implements OutboxStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient & OutboxScripts;
  private readonly base: string;
  private readonly stream: string;
  private readonly deadStream: string;
  private readonly consumers = new Map<string, Consumer>();
  private groupReady = false;
  private readonly rewrites: { obxRewriteFinished(key: string, updatedAt: string, ...fields: string[]): Promise<number> };

  constructor(
    redis: RedisClient,
    private readonly opts: RedisOutboxStoreOptions,
  ) {
    this.redis = withOutboxScripts(redis);
    this.rewrites = defineScripts<{ obxRewriteFinished(key: string, updatedAt: string, ...fields: string[]): Promise<number> }>(redis, {
      obxRewriteFinished: { keys: 1, lua: REWRITE_FINISHED },
    });
    this.base = `${opts.prefix}{obx}:`;
    this.stream = `${this.base}stream`;
    this.deadStream = `${this.base}dead`;
  }

  async enqueue(entry: NewOutboxEntry, now: number): Promise<OutboxEntry> {
    const sid = await this.call(() =>
      this.redis.obxEnqueue(this.stream, this.record(entry.id), this.queue(entry.orderKey), entry.id, entry.orderKey, ...newRecordFields(entry, now)),
    );
    if (!sid) throw new Error(`outbox entry ${entry.id} already exists`);
    return { ...entry, state: 'queued', attempts: 0, nextAttemptAt: 0, createdAt: now, updatedAt: now };
  }

  async get(id: string, _now?: number): Promise<OutboxEntry | null> {
    return decodeRecord(id, await this.call(() => this.redis.hgetall(this.record(id))));
  }

  async hasPending(orderKey: string): Promise<boolean> {
    return (await this.call(() => this.redis.exists(this.queue(orderKey)))) === 1;
  }

  async take(consumer: string, now: number, limit: number): Promise<OutboxEntry[]> {
    const c = this.consumer(consumer);
    const wall = Date.now();
    await this.call(async () => {
      await this.ensureGroup();
      if (wall - c.syncedAt >= this.opts.leaseMs / 3) await this.sync(consumer, c, wall);
      if (wall - c.claimedAt >= Math.min(1000, this.opts.leaseMs / 2)) await this.autoclaim(consumer, c, wall);
      if (c.held.size < MAX_HELD) this.hold(c, await this.read(consumer, '>'));
    });

    // Only the oldest held entry of a key can be its head.
    const seen = new Set<string>();
    const keys: string[] = [this.stream];
    const args: string[] = [GROUP, consumer, String(now), String(this.opts.leaseMs), String(limit)];
    for (const sid of [...c.held.keys()].sort(compareStreamIds)) {
      const h = c.held.get(sid)!;
      if (seen.has(h.orderKey)) continue;
      seen.add(h.orderKey);
      if (h.notBefore > now) continue;
      keys.push(this.record(h.id), this.queue(h.orderKey), this.lease(h.orderKey));
      args.push(sid, h.id);
      if (keys.length >= 1 + MAX_CANDIDATES * 3) break;
    }
    if (keys.length === 1) return [];
    const reply = await this.call(() => this.redis.obxPick(keys.length, ...keys, ...args));
    const picked: string[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      if (reply[i] === 'stale') c.held.delete(reply[i + 1]);
      else picked.push(reply[i + 1]);
    }
    if (!picked.length) return [];
    const records = await this.call(() => Promise.all(picked.map((id) => this.redis.hgetall(this.record(id)))));
    const entries: OutboxEntry[] = [];
    records.forEach((h, i) => {
      const e = decodeRecord(picked[i], h);
      if (!e) return;
      c.streamIdOf.set(e.id, h.streamId);
      entries.push(e);
    });
    return entries;
  }

  async renew(entry: OutboxEntry, consumer: string): Promise<boolean> {
    return (await this.call(() => this.redis.obxRenew(this.lease(entry.orderKey), consumer, String(this.opts.leaseMs)))) === 1;
  }

  async finish(entry: OutboxEntry, consumer: string, outcome: DeliveryOutcome, now: number): Promise<void> {
    const c = this.consumer(consumer);
    const sid = c.streamIdOf.get(entry.id) ?? (await this.call(() => this.redis.hget(this.record(entry.id), 'streamId'))) ?? '';
    await this.call(() =>
      this.redis.obxFinish(
        this.stream,
        this.deadStream,
        this.record(entry.id),
        this.queue(entry.orderKey),
        this.lease(entry.orderKey),
        GROUP,
        consumer,
        sid,
        entry.id,
        outcome.kind,
        String(this.opts.statusTtlSeconds),
        ...outcomeFields(outcome, entry.attempts, now),
      ),
    );
    c.streamIdOf.delete(entry.id);
    const held = c.held.get(sid);
    if (outcome.kind !== 'retry') c.held.delete(sid);
    else if (held) held.notBefore = outcome.nextAttemptAt;
  }

  async listDead(storeId: string, limit: number, _now?: number): Promise<OutboxEntry[]> {
    const ids: string[] = [];
    let end = '+';
    for (let scanned = 0; ids.length < limit && scanned < 20_000; scanned += PAGE) {
      const page = (await this.call(() => this.redis.xrevrange(this.deadStream, end, '-', 'COUNT', PAGE))) as [string, string[]][];
      for (const [, fields] of page) {
        if (field(fields, 'storeId') === storeId && ids.length < limit) ids.push(field(fields, 'id')!);
      }
      if (page.length < PAGE) break;
      end = `(${page[page.length - 1][0]}`;
    }
    const records = await this.call(() => Promise.all(ids.map((id) => this.redis.hgetall(this.record(id)))));
    return records.map((h, i) => decodeRecord(ids[i], h)).filter((e): e is OutboxEntry => e !== null && e.state === 'dead');
  }

  async retryDead(id: string, storeId: string, now: number): Promise<OutboxEntry | null> {
    const orderKey = await this.call(() => this.redis.hget(this.record(id), 'orderKey'));
    if (!orderKey) return null;
    const sid = await this.call(() => this.redis.obxRetryDead(this.stream, this.deadStream, this.record(id), this.queue(orderKey), id, storeId, String(now)));
    return sid ? this.get(id) : null;
  }

  async discardDead(id: string, storeId: string, now: number): Promise<OutboxEntry | null> {
    const done = await this.call(() => this.redis.obxDiscardDead(this.deadStream, this.record(id), storeId, String(now), String(this.opts.statusTtlSeconds)));
    return done === 1 ? this.get(id) : null;
  }

  async startSend(id: string): Promise<boolean> {
    const set = await this.call(() => this.redis.set(this.sending(id), '1', 'EX', this.opts.statusTtlSeconds, 'NX'));
    return set === 'OK';
  }

  async sendNotStarted(id: string): Promise<void> {
    await this.call(() => this.redis.del(this.sending(id)));
  }

  /** `<prefix>{obx}:sending:<id>`: a send of the entry started (see startSend). */
  private sending(id: string): string {
    return `${this.base}sending:${id}`;
  }

  async release(consumer: string): Promise<void> {
    const c = this.consumers.get(consumer);
    this.consumers.delete(consumer);
    if (!c || !this.groupReady) return;
    const sids = [...c.held.keys()];
    await this.call(async () => {
      // Marked as idle for a full lease: any other instance claims them on its next round.
      for (let i = 0; i < sids.length; i += PAGE) {
        await this.redis.xclaim(this.stream, GROUP, consumer, 0, ...sids.slice(i, i + PAGE), 'IDLE', this.opts.leaseMs * 2, 'JUSTID');
      }
      const pending = (await this.redis.xpending(this.stream, GROUP, '-', '+', 1, consumer)) as unknown[];
      if (pending.length === 0) await this.redis.xgroup('DELCONSUMER', this.stream, GROUP, consumer);
    });
  }

  async counts(): Promise<OutboxCounts> {
    const [pending, dead] = await this.call(() => Promise.all([this.redis.xlen(this.stream), this.redis.xlen(this.deadStream)]));
    return { pending, dead };
  }

  async close(): Promise<void> {
    this.consumers.clear();
  }

  private consumer(name: string): Consumer {
    let c = this.consumers.get(name);
    if (!c) {
      c = { held: new Map(), streamIdOf: new Map(), syncedAt: 0, claimedAt: 0, cleanedAt: Date.now(), cursor: '0-0' };
      this.consumers.set(name, c);
    }
    return c;
  }

  private async ensureGroup(): Promise<void> {
    if (this.groupReady) return;
    try {
      await this.redis.xgroup('CREATE', this.stream, GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!/BUSYGROUP/.test((err as Error).message)) throw err;
    }
    this.groupReady = true;
  }

  /** Re-reads this consumer's whole pending list: refreshes what it holds and resets their idle time. */
  private async sync(consumer: string, c: Consumer, wall: number): Promise<void> {
    const old = c.held;
    c.held = new Map();
    for (let from = '0'; ;) {
      const page = await this.read(consumer, from);
      this.hold(c, page, old);
      if (page.length < PAGE) break;
      from = page[page.length - 1][0];
    }
    c.syncedAt = wall;
  }

  /** Takes over entries another consumer left idle for longer than a lease (it died). */
  private async autoclaim(consumer: string, c: Consumer, wall: number): Promise<void> {
    const [next, entries] = (await this.redis.xautoclaim(this.stream, GROUP, consumer, this.opts.leaseMs, c.cursor, 'COUNT', PAGE)) as [string, StreamEntries];
    this.hold(c, entries);
    c.cursor = next;
    c.claimedAt = wall;
    if (wall - c.cleanedAt >= 60_000) {
      c.cleanedAt = wall;
      await this.forgetDeadConsumers(consumer);
    }
  }

  private async forgetDeadConsumers(me: string): Promise<void> {
    const list = (await this.redis.xinfo('CONSUMERS', this.stream, GROUP)) as unknown[][];
    for (const info of list) {
      const f = Object.fromEntries(Array.from({ length: info.length / 2 }, (_, i) => [String(info[2 * i]), info[2 * i + 1]]));
      if (f.name !== me && Number(f.pending) === 0 && Number(f.idle) > Math.max(FORGET_CONSUMER_MS, this.opts.leaseMs * 10)) {
        await this.redis.xgroup('DELCONSUMER', this.stream, GROUP, String(f.name));
      }
    }
  }

  private async read(consumer: string, from: string): Promise<StreamEntries> {
    const reply = (await this.redis.xreadgroup('GROUP', GROUP, consumer, 'COUNT', PAGE, 'STREAMS', this.stream, from)) as [string, StreamEntries][] | null;
    return reply?.[0]?.[1] ?? [];
  }

  /** Adds stream entries to what `c` holds; entries deleted from the stream (null fields) are acknowledged away. */
  private hold(c: Consumer, entries: StreamEntries, previous?: Map<string, Held>): void {
    const gone: string[] = [];
    for (const [sid, fields] of entries) {
      if (!fields) {
        gone.push(sid);
        continue;
      }
      c.held.set(sid, { id: field(fields, 'id')!, orderKey: field(fields, 'key')!, notBefore: previous?.get(sid)?.notBefore ?? 0 });
    }
    if (gone.length) void this.redis.xack(this.stream, GROUP, ...gone).catch(() => undefined);
  }

  async list(each: (entries: OutboxEntry[]) => Promise<void>): Promise<void> {
    const start = `${this.base}e:`.length;
    await this.call(() =>
      scanKeys(this.redis, `${this.base}e:*`, async (keys) => {
        const records = await Promise.all(keys.map(async (k) => decodeRecord(k.slice(start), await this.redis.hgetall(k))));
        const entries = records.filter((e): e is OutboxEntry => e !== null);
        if (entries.length) await each(entries);
      }),
    );
  }

  async rewriteFinished(entry: OutboxEntry, scrub: (entry: OutboxEntry) => OutboxEntry): Promise<boolean> {
    if (!FINISHED_STATES.includes(entry.state)) return false;
    const next = scrub(structuredClone(entry));
    const json = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));
    const fields = ['request', json(next.work.request), 'orderKey', next.orderKey, 'result', json(next.result), 'lastError', json(next.lastError)];
    return (await this.call(() => this.rewrites.obxRewriteFinished(this.record(entry.id), String(entry.updatedAt), ...fields))) === 1;
  }

  private record(id: string): string {
    return `${this.base}e:${id}`;
  }

  private queue(orderKey: string): string {
    return `${this.base}q:${orderKey}`;
  }

  private lease(orderKey: string): string {
    return `${this.base}l:${orderKey}`;
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      if (err instanceof Error && /NOGROUP/.test(err.message)) this.groupReady = false;
      throw redisUnavailable(err, 'outbox');
    }
  }
}

function field(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

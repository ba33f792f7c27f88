import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Cluster } from 'ioredis';
import type { RedisClient } from './redis';

/**
 * Noticing that Redis came back empty or replaced (a restart without
 * persistence, FLUSHALL, a failover to an empty replica): each data set holds
 * a marker (a random id and when it was made; on a Cluster one per master,
 * its key's hash tag on that master's slots, so one shard lost alone shows),
 * and each instance remembers the ids it saw. A marker missing, or with
 * another id, means what Redis held is gone.
 */

/** What lives only in Redis, named in the loss's log line. */
export const LOST_WITH_REDIS = [
  'claims on redemptions',
  'coupon locks',
  'sale and refund owners',
  'Idempotency-Key records',
  'OTP tickets',
  'the OTP mode',
  'queued outbox writes',
  "the audit trail's recent entries",
] as const;

/** A span in which the data set was lost: from the last time a marker was seen good to the time it was found lost (epoch ms). */
export interface LossWindow {
  from: number;
  to: number;
  /** The shards (hash tags) lost; `''` is the one data set of a single node or Sentinel. */
  shards: string[];
}

/** Loss windows are kept this long in the new data set, for the fleet and the reconciliation. */
const LOSSES_TTL_SECONDS = 400 * 86_400;

const markerKey = (prefix: string, tag: string) => (tag ? `${prefix}dataset:{${tag}}` : `${prefix}dataset`);
const lossesKey = (prefix: string) => `${prefix}dataset:losses`;
/** Taken (SET NX) by the one instance that records the loss which this new marker follows. */
const recorderKey = (prefix: string, tag: string, id: string) => `${markerKey(prefix, tag)}:recorded:${id}`;

/** Sets KEYS[1] to ARGV[2] only while it still holds ARGV[1]. */
const REPLACE_IF = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

interface Marker {
  id: string;
  createdAt: number;
}

function parseMarker(raw: string | null): Marker | undefined {
  if (raw === null) return undefined;
  try {
    const m = JSON.parse(raw) as Partial<Marker>;
    return typeof m.id === 'string' && typeof m.createdAt === 'number' ? { id: m.id, createdAt: m.createdAt } : undefined;
  } catch {
    return undefined;
  }
}

/** The loss windows recorded in the data set that overlap [from, to] (epoch ms). */
export async function lossWindows(redis: RedisClient, prefix: string, from: number, to: number): Promise<LossWindow[]> {
  // Scored by `to` (when found): a window overlapping [from, to] was found at or after `from`.
  const raw = await redis.zrangebyscore(lossesKey(prefix), from, '+inf');
  return raw
    .map((r) => JSON.parse(r) as LossWindow)
    .filter((w) => w.from <= to && w.to >= from)
    .sort((a, b) => a.from - b.from);
}

export interface DatasetWatchOptions {
  redis: RedisClient;
  prefix: string;
  logger: Logger;
  clock?: () => number;
  /** Called once per loss this instance noticed (for the metric). */
  onLoss?: (window: LossWindow) => void;
}

/** One instance's memory of the data set's markers, and the check that compares them with Redis. */
export class DatasetWatch {
  private readonly seen = new Map<string, { id: string; goodAt: number }>();
  private readonly tags = new Map<string, string>();
  private checking?: Promise<void>;
  private readonly clock: () => number;
  /** The last loss this instance noticed, for readiness. */
  lastLoss?: LossWindow;

  constructor(private readonly opts: DatasetWatchOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  /** Compares every marker with the one remembered; concurrent calls share one check. */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async checkAll(): Promise<void> {
    const found: { tag: string; marker: Marker; loss?: { goodAt: number } }[] = [];
    for (const tag of await this.shardTags()) found.push({ tag, ...(await this.markerOf(tag)) });
    const now = this.clock();
    const lost = found.filter((f): f is typeof f & { loss: { goodAt: number } } => f.loss !== undefined);
    const window: LossWindow | undefined = lost.length
      ? { from: Math.min(...lost.map((l) => l.loss.goodAt)), to: now, shards: lost.map((l) => l.tag) }
      : undefined;
    if (window) {
      // Said before anything is remembered or written, so a failing write below cannot hide the loss from the next check.
      this.lastLoss = window;
      this.opts.onLoss?.(window);
      this.opts.logger.error(
        {
          component: 'redis',
          lost: LOST_WITH_REDIS,
          shards: window.shards,
          lastSeenGoodAt: new Date(window.from).toISOString(),
          foundLostAt: new Date(window.to).toISOString(),
        },
        `Redis data set lost (emptied or replaced): its marker is gone or new. Lost with it: ${LOST_WITH_REDIS.join(', ')}. ` +
          "Ids the BFF no longer knows are read from the loyalty service's records; the day's reconciliation flags the window",
      );
    }
    for (const f of found) this.seen.set(f.tag, { id: f.marker.id, goodAt: now });
    if (!window) return;
    const { redis, prefix } = this.opts;
    // The new marker may have been written by an instance that never saw the old one (started since), so the
    // recorder is not its writer: the first to take a key named by the new marker records, once for the fleet.
    const first: string[] = [];
    for (const l of lost) {
      if ((await redis.set(recorderKey(prefix, l.tag, l.marker.id), '1', 'EX', LOSSES_TTL_SECONDS, 'NX')) === 'OK') first.push(l.tag);
    }
    if (!first.length) return;
    const key = lossesKey(prefix);
    await redis.zadd(key, window.to, JSON.stringify({ ...window, shards: first } satisfies LossWindow));
    await redis.expire(key, LOSSES_TTL_SECONDS);
  }

  /**
   * The shard's marker now (written when none stands, or when what stands cannot be read), and a loss when it is
   * not the one this instance remembers. Remembers nothing itself: checkAll does, once every shard has answered.
   */
  private async markerOf(tag: string): Promise<{ marker: Marker; loss?: { goodAt: number } }> {
    const { redis, prefix } = this.opts;
    const key = markerKey(prefix, tag);
    const known = this.seen.get(tag);
    const raw = await redis.get(key);
    let marker = parseMarker(raw);
    if (marker && (!known || marker.id === known.id)) return { marker };
    if (!marker) {
      const fresh: Marker = { id: randomUUID(), createdAt: this.clock() };
      // A value that cannot be read (another release's format) is replaced only if it is still that value.
      const wrote =
        raw === null ? (await redis.set(key, JSON.stringify(fresh), 'NX')) === 'OK' : (await redis.eval(REPLACE_IF, 1, key, raw, JSON.stringify(fresh))) === 1;
      // Another instance wrote it first: take theirs.
      marker = wrote ? fresh : parseMarker(await redis.get(key));
      if (!marker) throw new Error(`the Redis data set marker ${key} could not be written or read back`);
      // No instance running remembers a marker, so a new data set and one lost while the whole fleet was down look
      // alike: said once, by the instance that writes the marker, so the second case is never silent.
      if (wrote && !known) {
        if (await this.holdsOtherKeys(key)) {
          // Keys of ours but no marker: a data set an earlier release kept (it wrote none), not an empty one.
          this.opts.logger.info({ component: 'redis', shard: tag || undefined, key }, 'Redis data set marker written beside the data already there');
        } else {
          this.opts.logger.warn(
            { component: 'redis', shard: tag || undefined, key },
            'Redis held no data set marker: a new Redis, or one that lost its data while no BFF instance was running; ' +
              'if this is not a first start, treat it as a loss of everything Redis held',
          );
        }
      }
    }
    // Never saw one before (a new Redis, or a new shard): nothing this instance knew was lost.
    return known ? { marker, loss: { goodAt: known.goodAt } } : { marker };
  }

  /**
   * Whether the data set holds keys under the prefix besides the marker: a bounded SCAN on one node; a Cluster is
   * not scanned node by node here (its shard may be empty of ours while others are not), so it answers false.
   */
  private async holdsOtherKeys(marker: string): Promise<boolean> {
    const redis = this.opts.redis;
    if (redis instanceof Cluster) return false;
    let cursor = '0';
    for (let round = 0; round < 50; round++) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.opts.prefix}*`, 'COUNT', 1000);
      if (keys.some((k) => k !== marker)) return true;
      if (next === '0') return false;
      cursor = next;
    }
    return false;
  }

  /** One hash tag per master of a Cluster, landing on a slot that master serves; `''` for one node. */
  private async shardTags(): Promise<string[]> {
    const redis = this.opts.redis;
    if (!(redis instanceof Cluster)) return [''];
    const byMaster = new Map<string, [number, number][]>();
    for (const [start, end, master] of await redis.cluster('SLOTS')) {
      const id = master[2] || `${master[0]}:${master[1]}`;
      byMaster.set(id, [...(byMaster.get(id) ?? []), [start, end]]);
    }
    const tags: string[] = [];
    for (const [id, ranges] of byMaster) {
      const rangesKey = `${id} ${JSON.stringify(ranges)}`;
      let tag = this.tags.get(rangesKey);
      for (let i = 0; tag === undefined && i < 100_000; i++) {
        const slot = Number(await redis.cluster('KEYSLOT', `s${i}`));
        if (ranges.some(([a, b]) => slot >= a && slot <= b)) tag = `s${i}`;
      }
      if (tag === undefined) throw new Error(`no hash tag found for the slots of Redis Cluster master ${id}`);
      this.tags.set(rangesKey, tag);
      tags.push(tag);
    }
    return tags.sort();
  }
}

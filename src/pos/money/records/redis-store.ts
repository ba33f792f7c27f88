import { readStrings, scanKeys } from '../../../platform/redis-scan';
import { problem } from '../../../platform/problem';
import { redisUnavailable, type RedisClient } from '../../../platform/redis';
import { dueOf, leaselessAdopted, proposeChange, tell, type RecordChange, type RecordRules, type RecordStore, type VersionedRecord } from './types';

/** A feature's scripts as put on the client under its own names (Lua from ./redis-scripts.ts, bar the read). */
export interface RecordScripts {
  /** compareAndSetLua: (record, index, side, expected, id, value, ttl, score, side value, side ttl). */
  write(
    record: string,
    index: string,
    side: string,
    expected: string,
    id: string,
    value: string,
    ttl: string,
    score: string,
    sideValue: string,
    sideTtl: string,
  ): Promise<number>;
  /** sweepLua: the key count first (one key per candidate), then the keys, then the arguments. */
  sweep(numberOfKeys: number, ...keysThenArgs: string[]): Promise<string[]>;
  /**
   * Only where the rules end on read: (record, index, id, now, ...the sweep's
   * arguments) reads a record, ending it first if due. Returns nil, or {ended
   * now (0|1), record}. Without it a read is a plain GET.
   */
  read?(record: string, index: string, id: string, now: string, ...endArgs: string[]): Promise<[number, string] | null>;
}

/** How a feature's records sit in Redis. */
export interface RedisLayout<R extends VersionedRecord> {
  /** The hash tag of every key (`rdm`): the sweep changes the index and many records in one script, so they share one cluster slot. */
  tag: string;
  /** The due index's name: `<prefix>{<tag>}:<index>`. Records are `<prefix>{<tag>}:r:<id>`. */
  index: string;
  /** The side records' name, where the rules have them: `<prefix>{<tag>}:<side>:<side id>`. */
  side?: string;
  /** Names the store in a 503: 'redemption store'. */
  what: string;
  encode(record: R): string;
  decode(id: string, stored: string): R;
  scripts(redis: RedisClient): RecordScripts;
  /**
   * Who ends a due record nobody claimed. `script`: the sweep (and read)
   * script itself, given `args(now)` after `now`. `compare-and-set`: the sweep
   * hands every due record over and the store ends the unclaimed ones with a
   * compare-and-set write (a format Lua would not rewrite to the same text).
   * With `compare-and-set` the sweep script's `hand_over` must be true for every
   * due record: one it is not for leaves the index without being ended.
   */
  ends: { by: 'script'; args(now: number): string[] } | { by: 'compare-and-set' };
}

export interface RedisRecordStoreOptions {
  /** Key prefix, e.g. "posbff:". */
  prefix: string;
  /** Compare-and-set rounds before `change` gives up with the busy problem. */
  maxAttempts: number;
  /** How long a due claimed record stays out of the sweeper's sight after a sweep returned it. */
  recheckMs: number;
}

/**
 * The shared store in Redis, shared by every BFF instance. Each record is one
 * string key with a TTL; open ones are also in a sorted set scored by their
 * due time, which the sweep claims from atomically.
 *
 * The connection belongs to the caller (it is shared with other stores):
 * `close()` does not quit it.
 */
export class RedisRecordStore<R extends VersionedRecord> implements RecordStore<R> {
  private readonly scripts: RecordScripts;
  private readonly recordPrefix: string;
  private readonly indexKey: string;
  private readonly sidePrefix: string;
  private readonly listeners = new Set<(record: R) => void>();

  constructor(
    private readonly redis: RedisClient,
    private readonly rules: RecordRules<R>,
    private readonly layout: RedisLayout<R>,
    private readonly opts: RedisRecordStoreOptions,
  ) {
    this.scripts = layout.scripts(redis);
    // Programmer errors: the rules (which the memory twin follows too) and the layout must agree.
    if (rules.endsOnRead !== Boolean(this.scripts.read && layout.ends.by === 'script'))
      throw new Error(`${rules.noun} records: ending on read takes a read script, and a sweep script that ends records`);
    if (Boolean(rules.side) !== Boolean(layout.side)) throw new Error(`${rules.noun} records: side records need a key name in the layout, and only they`);
    this.recordPrefix = `${opts.prefix}{${layout.tag}}:r:`;
    this.indexKey = `${opts.prefix}{${layout.tag}}:${layout.index}`;
    this.sidePrefix = `${opts.prefix}{${layout.tag}}:${layout.side}:`;
  }

  async create(record: R): Promise<void> {
    const first = this.rules.firstVersion(record);
    const written = await this.write(first, '0', first.updatedAt);
    if (written !== 1) throw problem(this.rules.problems.exists, `${this.rules.noun} ${first.id} already exists`);
  }

  async get(id: string, now?: number): Promise<R | null> {
    return this.read(id, now);
  }

  async change(id: string, now: number, change: (current: R) => R | string): Promise<RecordChange<R>> {
    for (let attempt = 0; attempt < this.opts.maxAttempts; attempt++) {
      const current = await this.read(id, now);
      if (!current) return { ok: false, reason: 'not_found' };
      const next = proposeChange(this.rules, current, now, change);
      if (typeof next === 'string') return { ok: false, reason: 'rejected', record: current, detail: next };
      const written = await this.write(next, String(current.version), now);
      if (written === 1) return { ok: true, record: next };
      if (written === -1) return { ok: false, reason: 'not_found' };
      // 0: another writer (a change, the sweeper) got there first; read again and re-decide.
    }
    throw problem(this.rules.problems.busy, `${this.rules.noun} ${id} is being changed by another request; try again`);
  }

  async sweepDue(now: number, limit: number): Promise<R[]> {
    if (!(limit > 0)) return [];
    const due = await this.call(() => this.redis.zrangebyscore(this.indexKey, '-inf', now, 'LIMIT', 0, Math.floor(limit)));
    if (!due.length) return [];
    const ends = this.layout.ends;
    const endArgs = ends.by === 'script' ? ends.args(now) : [];
    const records = due.map((id) => this.recordPrefix + id);
    const reply = await this.call(() =>
      this.scripts.sweep(1 + due.length, this.indexKey, ...records, String(now), ...endArgs, String(now + this.opts.recheckMs), ...due),
    );
    const taken: R[] = [];
    for (let i = 0; i < reply.length; i += 2) taken.push(this.layout.decode(reply[i], reply[i + 1]));
    return ends.by === 'script' ? taken : this.endTaken(taken, now);
  }

  async countOpen(): Promise<number> {
    return this.call(() => this.redis.zcard(this.indexKey));
  }

  async sideRecord(id: string): Promise<string | null> {
    return this.call(() => this.redis.get(this.sidePrefix + id));
  }

  async adoptLeaselessClaims(now: number, stopped: () => boolean = () => false): Promise<number> {
    let adopted = 0;
    let cursor = '0';
    do {
      if (stopped()) break;
      const [next, flat] = await this.call(() => this.redis.zscan(this.indexKey, cursor, 'COUNT', 500));
      cursor = next;
      const ids = flat.filter((_, i) => i % 2 === 0);
      if (!ids.length) continue;
      // One hash tag: the index and every record share a slot, so one MGET reads them on a Cluster too.
      const stored = await this.call(() => this.redis.mget(...ids.map((id) => this.recordPrefix + id)));
      for (const [i, raw] of stored.entries()) {
        if (!raw) continue;
        const r = this.layout.decode(ids[i], raw);
        if (!this.rules.isClaimed(r) || r.lease) continue;
        if ((await this.change(r.id, now, leaselessAdopted(this.rules))).ok) adopted += 1;
      }
    } while (cursor !== '0');
    return adopted;
  }

  async list(each: (records: R[]) => Promise<void>): Promise<void> {
    const start = this.recordPrefix.length;
    await this.call(() =>
      scanKeys(this.redis, `${this.recordPrefix}*`, async (keys, node) => {
        const stored = await readStrings(this.redis, node, keys);
        const records = stored.flatMap((raw, i) => (raw ? [this.layout.decode(keys[i].slice(start), raw)] : []));
        if (records.length) await each(records);
      }),
    );
  }

  onEndOnRead(listener: (record: R) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  /**
   * The records a sweep handed over, those nobody claimed ended here by a
   * compare-and-set. They stay in the index at the recheck time until that
   * write takes them out, so a failure or crash meanwhile loses nothing.
   */
  private async endTaken(taken: R[], now: number): Promise<R[]> {
    const unclaimed = (r: R) => this.rules.dueAt(r) !== undefined && !this.rules.isClaimed(r);
    const out: R[] = [];
    for (const r of taken) {
      if (this.rules.dueAt(r) === undefined) continue;
      if (!unclaimed(r)) {
        out.push(r);
        continue;
      }
      const result = await this.change(r.id, now, (cur) => (unclaimed(cur) ? this.rules.ended(cur, now) : `it is ${cur.state}`));
      if (result.ok) out.push(result.record);
    }
    return out;
  }

  /** Reads a record; given `now`, the feature's read script (if any) ends it first if due, as the sweep would. */
  private async read(id: string, now: number | undefined): Promise<R | null> {
    const { read } = this.scripts;
    const ends = this.layout.ends;
    if (read && now !== undefined && ends.by === 'script') {
      const reply = await this.call(() => read(this.recordPrefix + id, this.indexKey, id, String(now), ...ends.args(now)));
      if (!reply) return null;
      const record = this.layout.decode(id, reply[1]);
      if (Number(reply[0]) === 1) tell(this.listeners, record);
      return record;
    }
    const stored = await this.call(() => this.redis.get(this.recordPrefix + id));
    return stored ? this.layout.decode(id, stored) : null;
  }

  private write(r: R, expected: string, now: number): Promise<number> {
    const ttl = Math.max(1, Math.ceil(this.rules.retentionMs(r, now)));
    const due = dueOf(this.rules, r);
    const record = this.recordPrefix + r.id;
    const sides = this.rules.side;
    const side = sides?.of(r);
    return this.call(() =>
      this.scripts.write(
        record,
        this.indexKey,
        side ? this.sidePrefix + side.id : record,
        expected,
        r.id,
        this.layout.encode(r),
        String(ttl),
        due === undefined ? '' : String(due),
        side?.value ?? '',
        String(sides?.keepMs ?? 0),
      ),
    );
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw redisUnavailable(err, this.layout.what);
    }
  }
}

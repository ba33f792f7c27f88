import { readStrings, scanKeys } from '../../../platform/redis-scan';
import { defineScripts, type RedisClient } from '../../../platform/redis';
import { problem } from '../../../platform/problem';
import { redisUnavailable } from '../../../platform/redis';
import { applyTransition, SALE_MACHINE, SALE_TRANSITIONS, transitionRefusal, type Applied, type SaleState, type SaleTransition } from '../machines';
import { claimLeaseMs, newLease, withLease, type ClaimLease } from '../lease';
import { leaseMember, MemoryIdLeaseIndex, RedisIdLeaseIndex, type IdLeaseIndex } from './lease-index';

/**
 * Which store took an id the upstream deduplicates (a payment, a refund, a
 * batch-uploaded order; any kind a feature names). An id is claimed
 * (`recording`) before its write goes upstream and belongs to the store once
 * the upstream accepted it (`recorded`); a refused write deletes its claim, so
 * it leaves nothing that blocks or reveals the id. States: SALE_MACHINE. The
 * feature's entry type adds its own fields (stored as they are).
 */
export interface IdEntry<K extends string = string> {
  kind: K;
  id: string;
  storeId: string;
  /** Absent in entries written before states existed: those were recorded. */
  state?: SaleState;
  /** While claimed (isIdClaimed): see ../lease.ts. */
  lease?: ClaimLease;
  /** Its write waits in the outbox (or a job): whoever finishes it settles the id, not the lease sweep. */
  queued?: true;
}

export const stateOf = (e: { state?: SaleState }): SaleState => e.state ?? 'recorded';

/** A claim its taker settles (`recording`, `voiding`), not one whose write (a sale's, or a void's refund) waits in the outbox. */
export const isIdClaimed = (e: IdEntry): boolean => (stateOf(e) === 'recording' || stateOf(e) === 'voiding') && !e.queued;

export type IdChange<E> = { ok: true; entry: E } | { ok: false; entry: E | null; detail: string };

export interface IdRecords<E extends IdEntry> {
  /** Claims the id (`recording`) unless it is taken; answers the entry that holds it when it is. */
  claim(entry: E): Promise<{ ok: true; entry: E } | { ok: false; entry: E }>;
  /** Compare-and-set: `change` returns the next entry or why not; SALE_MACHINE is enforced. */
  change(kind: E['kind'], id: string, change: (current: E) => E | string): Promise<IdChange<E>>;
  /** Applies a named transition of SALE_TRANSITIONS inside the same compare-and-set. */
  apply(kind: E['kind'], id: string, name: SaleTransition, opts?: Applied<E>): Promise<IdChange<E>>;
  /** Deletes the claim if it is still this store's `recording` one (a refused write). */
  free(kind: E['kind'], id: string, storeId: string): Promise<void>;
  /** The entry, or null for an id this BFF never took (or one past its retention). */
  get(kind: E['kind'], id: string): Promise<E | null>;
  /** Every entry kept, in batches (a customer's erasure looks for theirs); a whole-store pass, never for a request's path. */
  list(each: (entries: E[]) => Promise<void>): Promise<void>;
  /** The claims by lease end (./lease-index.ts), kept in step by claim, change and free. */
  readonly leases: IdLeaseIndex;
  /**
   * Lists the claims a release before leases wrote (no lease, so not listed):
   * their entries keep no time, so each is due a lease from `now`. Returns how many.
   */
  adoptLeaselessClaims(now: number, stopped?: () => boolean): Promise<number>;
}

/** The next entry a change proposes, or why the state machine refuses it; entering a claim stamps its lease. */
function next<E extends IdEntry>(current: E, proposed: E, now: number): E | string {
  const refusal = transitionRefusal(SALE_MACHINE, `${current.kind} ${current.id}`, stateOf(current), stateOf(proposed));
  if (refusal) return refusal;
  const entry = { ...proposed, kind: current.kind, id: current.id };
  // `queued` marks one claim: a new state (a sale voided again after a refused void) is the sweep's to see again.
  if (entry.queued && stateOf(entry) !== stateOf(current)) delete entry.queued;
  return withLease(current, entry, isIdClaimed, now);
}

/** A claim is listed at its lease end before its entry is written; one that left the claim state is unlisted after. */
async function listFirst(leases: IdLeaseIndex, current: IdEntry, entry: IdEntry): Promise<void> {
  if (isIdClaimed(entry) && entry.lease && entry.lease.until !== current.lease?.until) await leases.list(leaseMember(entry.kind, entry.id), entry.lease.until);
}
async function unlistAfter(leases: IdLeaseIndex, current: IdEntry, entry: IdEntry): Promise<void> {
  if (!isIdClaimed(entry) && current.lease) await leases.unlist(leaseMember(entry.kind, entry.id), current.lease.until);
}

/** Writes ARGV[2] only if the stored value is still ARGV[1] (the whole value: any write changes it). */
const SWAP = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1`;
/** Deletes the key only if it is still ARGV[1]. */
const DROP = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;

type IdScripts = { saleSwap(key: string, old: string, next: string): Promise<number>; saleDrop(key: string, old: string): Promise<number> };

/** One key per id, `<prefix>sale:<kind>:<id>` (the layout of every release so far), with a TTL. */
export class RedisIdRecords<E extends IdEntry> implements IdRecords<E> {
  private readonly redis: RedisClient & IdScripts;

  readonly leases: IdLeaseIndex;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.redis = defineScripts<IdScripts>(redis, { saleSwap: { keys: 1, lua: SWAP }, saleDrop: { keys: 1, lua: DROP } });
    this.leases = new RedisIdLeaseIndex(redis, prefix);
  }

  private key(kind: E['kind'], id: string) {
    return `${this.prefix}sale:${kind}:${id}`;
  }

  async claim(entry: E): Promise<{ ok: true; entry: E } | { ok: false; entry: E }> {
    const claimed: E = { ...entry, state: 'recording', lease: newLease(this.clock()) };
    // Listed first (see ./lease-index.ts); a member another claim holds is left as it is.
    await this.leases.list(leaseMember(entry.kind, entry.id), claimed.lease!.until, true);
    for (let attempt = 1; ; attempt++) {
      const set = await this.call(() => this.redis.set(this.key(entry.kind, entry.id), JSON.stringify(claimed), 'EX', this.ttlSeconds, 'NX'));
      if (set === 'OK') return { ok: true as const, entry: claimed };
      const held = await this.get(entry.kind, entry.id);
      if (held) return { ok: false as const, entry: held };
      // Gone between the two commands (its TTL, or a refusal freed it): try again, a few times.
      if (attempt >= 3) throw problem('sale_busy', `Sale id ${entry.id} is being claimed and freed by other requests right now; try again`);
    }
  }

  async change(kind: E['kind'], id: string, change: (current: E) => E | string): Promise<IdChange<E>> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const raw = await this.call(() => this.redis.get(this.key(kind, id)));
      if (!raw) return { ok: false, entry: null, detail: 'not found' };
      const current = JSON.parse(raw) as E;
      const proposed = change(structuredClone(current));
      const entry = typeof proposed === 'string' ? proposed : next(current, proposed, this.clock());
      if (typeof entry === 'string') return { ok: false, entry: current, detail: entry };
      await listFirst(this.leases, current, entry);
      if ((await this.call(() => this.redis.saleSwap(this.key(kind, id), raw, JSON.stringify(entry)))) === 1) {
        await unlistAfter(this.leases, current, entry);
        return { ok: true, entry };
      }
    }
    return { ok: false, entry: await this.get(kind, id), detail: 'busy' };
  }

  apply(kind: E['kind'], id: string, name: SaleTransition, opts?: Applied<E>): Promise<IdChange<E>> {
    return this.change(kind, id, (cur) => applyTransition(SALE_TRANSITIONS[name], stateOf(cur), cur, opts));
  }

  async free(kind: E['kind'], id: string, storeId: string) {
    const raw = await this.call(() => this.redis.get(this.key(kind, id)));
    if (!raw) return;
    const e = JSON.parse(raw) as E;
    if (e.state === 'recording' && e.storeId === storeId && (await this.call(() => this.redis.saleDrop(this.key(kind, id), raw))) === 1 && e.lease)
      await this.leases.unlist(leaseMember(kind, id), e.lease.until);
  }

  async get(kind: E['kind'], id: string): Promise<E | null> {
    const json = await this.call(() => this.redis.get(this.key(kind, id)));
    return json ? (JSON.parse(json) as E) : null;
  }

  /** Every sale and refund record, in batches; `stopped` ends the pass before its next batch. */
  async list(each: (entries: E[]) => Promise<void>, stopped?: () => boolean): Promise<void> {
    await this.call(() =>
      scanKeys(
        this.redis,
        `${this.prefix}sale:*`,
        async (keys, node) => {
          const entries = (await readStrings(this.redis, node, keys)).flatMap((raw) => (raw ? [JSON.parse(raw) as E] : []));
          if (entries.length) await each(entries);
        },
        stopped,
      ),
    );
  }

  async adoptLeaselessClaims(now: number, stopped: () => boolean = () => false): Promise<number> {
    let adopted = 0;
    await this.list(async (entries) => {
      for (const e of entries) {
        if (e.lease || !isIdClaimed(e)) continue;
        await this.leases.list(leaseMember(e.kind, e.id), now + claimLeaseMs(), true);
        adopted += 1;
      }
    }, stopped);
    return adopted;
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw redisUnavailable(err, 'sale records');
    }
  }
}

/** One instance without Redis: kept in this process, the oldest forgotten past `max` entries. */
export class MemoryIdRecords<E extends IdEntry> implements IdRecords<E> {
  private readonly entries = new Map<string, { entry: E; until: number }>();
  readonly leases = new MemoryIdLeaseIndex();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
    private readonly max = 1_000_000,
  ) {}

  async claim(entry: E) {
    const held = this.read(entry.kind, entry.id);
    if (held) return { ok: false as const, entry: held };
    const claimed: E = { ...entry, state: 'recording', lease: newLease(this.clock()) };
    this.entries.set(`${entry.kind}:${entry.id}`, { entry: claimed, until: this.clock() + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    await this.leases.list(leaseMember(entry.kind, entry.id), claimed.lease!.until);
    return { ok: true as const, entry: { ...claimed } };
  }

  async change(kind: E['kind'], id: string, change: (current: E) => E | string): Promise<IdChange<E>> {
    const current = this.read(kind, id);
    if (!current) return { ok: false, entry: null, detail: 'not found' };
    const proposed = change(structuredClone(current));
    const entry = typeof proposed === 'string' ? proposed : next(current, proposed, this.clock());
    if (typeof entry === 'string') return { ok: false, entry: current, detail: entry };
    const slot = this.entries.get(`${kind}:${id}`);
    if (slot) slot.entry = { ...entry };
    // After the write, with no await before it: the compare-and-set stays whole.
    await listFirst(this.leases, current, entry);
    await unlistAfter(this.leases, current, entry);
    return { ok: true, entry };
  }

  apply(kind: E['kind'], id: string, name: SaleTransition, opts?: Applied<E>): Promise<IdChange<E>> {
    return this.change(kind, id, (cur) => applyTransition(SALE_TRANSITIONS[name], stateOf(cur), cur, opts));
  }

  async free(kind: E['kind'], id: string, storeId: string) {
    const e = this.read(kind, id);
    if (e?.state === 'recording' && e.storeId === storeId) {
      this.entries.delete(`${kind}:${id}`);
      if (e.lease) await this.leases.unlist(leaseMember(kind, id), e.lease.until);
    }
  }

  async get(kind: E['kind'], id: string): Promise<E | null> {
    return this.read(kind, id);
  }

  async list(each: (entries: E[]) => Promise<void>): Promise<void> {
    const kept = [...this.entries.values()].filter((e) => e.until > this.clock()).map((e) => structuredClone(e.entry));
    if (kept.length) await each(kept);
  }

  /** Memory keeps nothing across a restart, so nothing here was written by another release. */
  async adoptLeaselessClaims(): Promise<number> {
    return 0;
  }

  /** Synchronous, so each step reads and writes with no await between: a compare-and-set, as the Redis store's scripts are. */
  private read(kind: E['kind'], id: string): E | null {
    const key = `${kind}:${id}`;
    const found = this.entries.get(key);
    if (!found) return null;
    if (found.until <= this.clock()) {
      this.entries.delete(key);
      return null;
    }
    return { ...found.entry };
  }
}

export function createIdRecords<E extends IdEntry>(opts: { redis?: RedisClient; prefix: string; ttlDays: number; clock?: () => number }): IdRecords<E> {
  return opts.redis
    ? new RedisIdRecords<E>(opts.redis, opts.prefix, opts.ttlDays * 86_400, opts.clock)
    : new MemoryIdRecords<E>(opts.ttlDays * 86_400_000, opts.clock);
}

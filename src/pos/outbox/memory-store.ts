import {
  FINISHED_STATES,
  type DeliveryOutcome,
  type NewOutboxEntry,
  type OutboxCounts,
  type OutboxEntry,
  type OutboxStore,
  type OutboxStoreOptions,
} from './types';

interface Lease {
  consumer: string;
  until: number;
}

/**
 * The outbox in process memory, for running without REDIS_URL: the same
 * rules as the Redis store (order per key, leases, backoff, dead letters,
 * record TTL), but nothing survives a restart. Leases and TTLs run on
 * `wallClock`, as Redis' would run on its own clock.
 */
export class MemoryOutboxStore implements OutboxStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, OutboxEntry>();
  /** Undelivered ids per order key, oldest first; a key with none is absent. */
  private readonly queues = new Map<string, string[]>();
  private readonly leases = new Map<string, Lease>();
  /** Dead letter ids, oldest first. */
  private readonly dead: string[] = [];
  /** Delivered/discarded ids -> when their record goes. */
  private readonly expiry = new Map<string, number>();
  /** Ids whose send started (see startSend). */
  private readonly sending = new Set<string>();

  constructor(
    private readonly opts: OutboxStoreOptions,
    private readonly wallClock: () => number = Date.now,
  ) {}

  async enqueue(entry: NewOutboxEntry, now: number): Promise<OutboxEntry> {
    this.purge();
    if (this.entries.has(entry.id)) throw new Error(`outbox entry ${entry.id} already exists`);
    const stored: OutboxEntry = { ...structuredClone(entry), state: 'queued', attempts: 0, nextAttemptAt: 0, createdAt: now, updatedAt: now };
    this.entries.set(entry.id, stored);
    this.push(entry.orderKey, entry.id);
    return structuredClone(stored);
  }

  async get(id: string, _now?: number): Promise<OutboxEntry | null> {
    const e = this.live(id);
    return e ? structuredClone(e) : null;
  }

  async hasPending(orderKey: string): Promise<boolean> {
    return this.queues.has(orderKey);
  }

  async take(consumer: string, now: number, limit: number): Promise<OutboxEntry[]> {
    const heads = [...this.queues.values()].map((ids) => this.entries.get(ids[0])!).sort((a, b) => a.createdAt - b.createdAt);
    const taken: OutboxEntry[] = [];
    const wall = this.wallClock();
    for (const e of heads) {
      if (taken.length >= limit) break;
      if (e.nextAttemptAt > now) continue;
      const lease = this.leases.get(e.orderKey);
      if (lease && lease.until > wall) continue;
      this.leases.set(e.orderKey, { consumer, until: wall + this.opts.leaseMs });
      e.state = 'delivering';
      e.updatedAt = now;
      taken.push(structuredClone(e));
    }
    return taken;
  }

  async renew(entry: OutboxEntry, consumer: string): Promise<boolean> {
    const lease = this.leases.get(entry.orderKey);
    if (!lease || lease.consumer !== consumer || lease.until <= this.wallClock()) return false;
    lease.until = this.wallClock() + this.opts.leaseMs;
    return true;
  }

  async finish(entry: OutboxEntry, consumer: string, outcome: DeliveryOutcome, now: number): Promise<void> {
    const e = this.entries.get(entry.id);
    const lease = this.leases.get(entry.orderKey);
    if (lease?.consumer === consumer) this.leases.delete(entry.orderKey);
    // Finished by someone else meanwhile (or retried by a manager): nothing of ours to record.
    if (!e || (e.state !== 'queued' && e.state !== 'delivering')) return;
    e.updatedAt = now;
    if (outcome.kind === 'retry') {
      Object.assign(e, { state: 'queued', nextAttemptAt: outcome.nextAttemptAt, lastError: outcome.error, attempts: e.attempts + (outcome.counted ? 1 : 0) });
      return;
    }
    e.attempts += 1;
    this.pull(e.orderKey, e.id);
    if (outcome.kind === 'delivered') {
      Object.assign(e, { state: 'delivered', deliveredAt: now, result: outcome.result });
      this.expiry.set(e.id, this.wallClock() + this.opts.statusTtlSeconds * 1000);
    } else {
      Object.assign(e, { state: 'dead', deadAt: now, lastError: outcome.error });
      this.dead.push(e.id);
    }
  }

  async listDead(storeId: string, limit: number, _now?: number): Promise<OutboxEntry[]> {
    const out: OutboxEntry[] = [];
    for (let i = this.dead.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.entries.get(this.dead[i])!;
      if (e.storeId === storeId) out.push(structuredClone(e));
    }
    return out;
  }

  async retryDead(id: string, storeId: string, now: number): Promise<OutboxEntry | null> {
    const e = this.deadOf(id, storeId);
    if (!e) return null;
    this.dead.splice(this.dead.indexOf(id), 1);
    Object.assign(e, { state: 'queued', attempts: 0, nextAttemptAt: 0, updatedAt: now, deadAt: undefined });
    this.push(e.orderKey, id);
    return structuredClone(e);
  }

  async discardDead(id: string, storeId: string, now: number): Promise<OutboxEntry | null> {
    const e = this.deadOf(id, storeId);
    if (!e) return null;
    this.dead.splice(this.dead.indexOf(id), 1);
    Object.assign(e, { state: 'discarded', updatedAt: now });
    this.expiry.set(id, this.wallClock() + this.opts.statusTtlSeconds * 1000);
    return structuredClone(e);
  }

  async startSend(id: string): Promise<boolean> {
    if (this.sending.has(id)) return false;
    this.sending.add(id);
    return true;
  }

  async sendNotStarted(id: string): Promise<void> {
    this.sending.delete(id);
  }

  async release(consumer: string): Promise<void> {
    for (const [key, lease] of this.leases) if (lease.consumer === consumer) this.leases.delete(key);
  }

  async counts(): Promise<OutboxCounts> {
    let pending = 0;
    for (const ids of this.queues.values()) pending += ids.length;
    return { pending, dead: this.dead.length };
  }

  async list(each: (entries: OutboxEntry[]) => Promise<void>): Promise<void> {
    this.purge();
    const kept = [...this.entries.values()].map((e) => structuredClone(e));
    if (kept.length) await each(kept);
  }

  async rewriteFinished(entry: OutboxEntry, scrub: (entry: OutboxEntry) => OutboxEntry): Promise<boolean> {
    const cur = this.live(entry.id);
    if (!cur || !FINISHED_STATES.includes(cur.state) || cur.updatedAt !== entry.updatedAt) return false;
    const next = scrub(structuredClone(cur));
    this.entries.set(entry.id, { ...cur, work: next.work, orderKey: next.orderKey, result: next.result, lastError: next.lastError });
    return true;
  }

  async close(): Promise<void> {
    this.leases.clear();
  }

  private deadOf(id: string, storeId: string): OutboxEntry | undefined {
    const e = this.entries.get(id);
    return e && e.state === 'dead' && e.storeId === storeId ? e : undefined;
  }

  private live(id: string): OutboxEntry | undefined {
    const until = this.expiry.get(id);
    if (until !== undefined && until <= this.wallClock()) {
      this.expiry.delete(id);
      this.entries.delete(id);
      return undefined;
    }
    return this.entries.get(id);
  }

  private purge(): void {
    const wall = this.wallClock();
    // Insertion order is expiry order (one TTL for all), so stop at the first one still kept.
    for (const [id, until] of this.expiry) {
      if (until > wall) break;
      this.expiry.delete(id);
      this.entries.delete(id);
    }
  }

  private push(key: string, id: string): void {
    const ids = this.queues.get(key);
    if (ids) ids.push(id);
    else this.queues.set(key, [id]);
  }

  private pull(key: string, id: string): void {
    const ids = this.queues.get(key);
    if (!ids) return;
    const i = ids.indexOf(id);
    if (i >= 0) ids.splice(i, 1);
    if (ids.length === 0) this.queues.delete(key);
  }
}

import { problem } from '../../platform/problem';
import { DEFAULT_RECHECK_MS, DEFAULT_RETENTION, expiredVersion, isClaimed, isOpen, firstVersion, nextVersion, retentionMs, RetentionPolicy } from './record';
import type { ChangeResult, Redemption, RedemptionStore } from './types';

interface Due {
  at: number;
  id: string;
  /** The record version the entry was made for; a later write makes it stale. */
  version: number;
}

/** Binary min-heap by time. Entries are never removed early: stale ones are skipped when popped. */
class DueHeap {
  private items: Due[] = [];

  push(item: Due): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent].at <= a[i].at) break;
      [a[parent], a[i]] = [a[i], a[parent]];
      i = parent;
    }
  }

  /** Removes and returns the earliest entry if it is due at `now`. */
  popDue(now: number): Due | undefined {
    const a = this.items;
    if (a.length === 0 || a[0].at > now) return undefined;
    const top = a[0];
    const last = a.pop() as Due;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < a.length && a[l].at < a[min].at) min = l;
        if (r < a.length && a[r].at < a[min].at) min = r;
        if (min === i) break;
        [a[min], a[i]] = [a[i], a[min]];
        i = min;
      }
    }
    return top;
  }
}

interface Entry {
  record: Redemption;
  /** When the record is forgotten (the in-memory twin of a Redis TTL). */
  dropAt: number;
}

/**
 * In-process store for a single BFF instance without Redis: nothing survives a
 * restart. Same behaviour as the Redis store, including retention times.
 */
export class MemoryRedemptionStore implements RedemptionStore {
  readonly kind = 'memory' as const;
  private readonly records = new Map<string, Entry>();
  private readonly open = new Set<string>();
  private readonly expiries = new DueHeap();
  private readonly drops = new DueHeap();
  private readonly listeners = new Set<(r: Redemption) => void>();
  private readonly policy: RetentionPolicy;

  private readonly recheckMs: number;

  constructor(opts: Partial<RetentionPolicy> & { recheckMs?: number } = {}) {
    const { recheckMs, ...policy } = opts;
    this.policy = { ...DEFAULT_RETENTION, ...policy };
    this.recheckMs = recheckMs ?? DEFAULT_RECHECK_MS;
  }

  async create(redemption: Redemption): Promise<void> {
    const record = firstVersion(redemption);
    if (this.records.has(record.id)) {
      throw problem('redemption_exists', `Redemption ${record.id} already exists`);
    }
    this.write(record, record.updatedAt);
  }

  async get(id: string, now: number): Promise<Redemption | null> {
    const record = this.current(id, now);
    return record ? structuredClone(record) : null;
  }

  async change(id: string, now: number, change: (current: Redemption) => Redemption | string): Promise<ChangeResult> {
    const current = this.current(id, now);
    if (!current) return { ok: false, reason: 'not_found' };
    const proposed = change(structuredClone(current));
    const next = typeof proposed === 'string' ? proposed : nextVersion(current, proposed, now);
    if (typeof next === 'string') return { ok: false, reason: 'rejected', redemption: structuredClone(current), detail: next };
    this.write(next, now);
    return { ok: true, redemption: structuredClone(next) };
  }

  async sweepDue(now: number, limit: number): Promise<Redemption[]> {
    const expired: Redemption[] = [];
    while (expired.length < limit) {
      const due = this.expiries.popDue(now);
      if (!due) break;
      const entry = this.records.get(due.id);
      if (!entry || entry.record.version !== due.version || !isOpen(entry.record)) continue;
      if (isClaimed(entry.record)) {
        // Its outcome is known only upstream: hand it to the sweeper, and keep it in sight in case that fails.
        this.expiries.push({ at: now + this.recheckMs, id: due.id, version: due.version });
        expired.push(structuredClone(entry.record));
      } else {
        expired.push(structuredClone(this.expire(entry.record, now)));
      }
    }
    this.dropDue(now);
    return expired;
  }

  async countOpen(): Promise<number> {
    return this.open.size;
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  onReadExpiry(listener: (redemption: Redemption) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The live record, expired first if its hold is due (as the Redis store does on read). */
  private current(id: string, now: number): Redemption | null {
    const entry = this.records.get(id);
    if (!entry) return null;
    if (entry.dropAt <= now) {
      this.forget(id);
      return null;
    }
    const r = entry.record;
    if (r.state === 'held' && (r.expiresAt as number) <= now) {
      const expired = this.expire(r, now);
      for (const listener of this.listeners) {
        try {
          listener(structuredClone(expired));
        } catch {
          // A listener's fault must not fail the read that triggered it.
        }
      }
      return expired;
    }
    return r;
  }

  private expire(r: Redemption, now: number): Redemption {
    const expired = expiredVersion(r, now);
    this.write(expired, now);
    return expired;
  }

  private write(r: Redemption, now: number): void {
    const dropAt = now + retentionMs(r, now, this.policy);
    this.records.set(r.id, { record: r, dropAt });
    this.drops.push({ at: dropAt, id: r.id, version: r.version });
    if (isOpen(r)) {
      this.open.add(r.id);
      this.expiries.push({ at: r.expiresAt as number, id: r.id, version: r.version });
    } else {
      this.open.delete(r.id);
    }
  }

  private dropDue(now: number): void {
    for (let due = this.drops.popDue(now); due; due = this.drops.popDue(now)) {
      if (this.records.get(due.id)?.record.version === due.version) this.forget(due.id);
    }
  }

  private forget(id: string): void {
    this.records.delete(id);
    this.open.delete(id);
  }
}

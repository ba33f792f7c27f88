import { problem } from '../../../platform/problem';
import { DueHeap } from './due-heap';
import { dueOf, leaselessAdopted, proposeChange, tell, type RecordChange, type RecordRules, type RecordStore, type VersionedRecord } from './types';

interface Entry<R> {
  record: R;
  /** When the record is forgotten (the in-memory twin of a Redis TTL). */
  dropAt: number;
}

/**
 * The shared store in process, for a single BFF instance without Redis:
 * nothing survives a restart. Same behaviour as the Redis store, including
 * retention times; records are handed out as copies.
 */
export class MemoryRecordStore<R extends VersionedRecord> implements RecordStore<R> {
  private readonly records = new Map<string, Entry<R>>();
  private readonly open = new Set<string>();
  private readonly dues = new DueHeap();
  private readonly drops = new DueHeap();
  /** Side record id -> its value, and when to forget it. */
  private readonly sides = new Map<string, { value: string; dropAt: number }>();
  private readonly listeners = new Set<(record: R) => void>();

  constructor(
    private readonly rules: RecordRules<R>,
    private readonly recheckMs: number,
  ) {}

  async create(record: R): Promise<void> {
    const first = this.rules.firstVersion(record);
    if (this.records.has(first.id)) throw problem(this.rules.problems.exists, `${this.rules.noun} ${first.id} already exists`);
    this.write(first, first.updatedAt);
  }

  async get(id: string, now?: number): Promise<R | null> {
    const record = this.current(id, now);
    return record ? structuredClone(record) : null;
  }

  async change(id: string, now: number, change: (current: R) => R | string): Promise<RecordChange<R>> {
    const current = this.current(id, now);
    if (!current) return { ok: false, reason: 'not_found' };
    const next = proposeChange(this.rules, current, now, change);
    if (typeof next === 'string') return { ok: false, reason: 'rejected', record: structuredClone(current), detail: next };
    this.write(next, now);
    return { ok: true, record: structuredClone(next) };
  }

  async sweepDue(now: number, limit: number): Promise<R[]> {
    const swept: R[] = [];
    while (swept.length < limit) {
      const due = this.dues.popDue(now);
      if (!due) break;
      const entry = this.records.get(due.id);
      if (!entry || entry.record.version !== due.version || this.rules.dueAt(entry.record) === undefined) continue;
      if (this.rules.isClaimed(entry.record) || this.rules.handsOver?.(entry.record)) {
        // Its outcome is known only upstream: hand it over, and keep it in sight in case that fails.
        this.dues.push({ at: now + this.recheckMs, id: due.id, version: due.version });
        swept.push(structuredClone(entry.record));
      } else {
        swept.push(structuredClone(this.end(entry.record, now)));
      }
    }
    this.dropDue(now);
    return swept;
  }

  async countOpen(): Promise<number> {
    return this.open.size;
  }

  async sideRecord(id: string): Promise<string | null> {
    // Forgotten ones are dropped by the sweep, on the caller's clock.
    return this.sides.get(id)?.value ?? null;
  }

  async adoptLeaselessClaims(now: number, stopped: () => boolean = () => false): Promise<number> {
    let adopted = 0;
    for (const id of [...this.open]) {
      if (stopped()) break;
      if ((await this.change(id, now, leaselessAdopted(this.rules))).ok) adopted += 1;
    }
    return adopted;
  }

  async list(each: (records: R[]) => Promise<void>): Promise<void> {
    // Past-retention ones too: the store forgets them on the caller's clock, which a list does not take.
    const kept = [...this.records.values()].map((e) => structuredClone(e.record));
    if (kept.length) await each(kept);
  }

  onEndOnRead(listener: (record: R) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  /** The live record (none once its retention has passed), ended first if due and the rules end on read, as the Redis store does. */
  private current(id: string, now: number | undefined): R | null {
    const entry = this.records.get(id);
    if (!entry) return null;
    if (now === undefined) return entry.record;
    if (entry.dropAt <= now) {
      this.forget(id);
      return null;
    }
    const r = entry.record;
    const due = this.rules.dueAt(r);
    if (this.rules.endsOnRead && due !== undefined && due <= now && !this.rules.isClaimed(r)) {
      const ended = this.end(r, now);
      tell(this.listeners, ended);
      return ended;
    }
    return r;
  }

  private end(r: R, now: number): R {
    const ended = this.rules.ended(r, now);
    this.write(ended, now);
    return ended;
  }

  private write(r: R, now: number): void {
    const dropAt = now + this.rules.retentionMs(r, now);
    this.records.set(r.id, { record: r, dropAt });
    this.drops.push({ at: dropAt, id: r.id, version: r.version });
    const sides = this.rules.side;
    const side = sides?.of(r);
    if (sides && side) this.sides.set(side.id, { value: side.value, dropAt: now + sides.keepMs });
    const due = dueOf(this.rules, r);
    if (due !== undefined) {
      this.open.add(r.id);
      this.dues.push({ at: due, id: r.id, version: r.version });
    } else {
      this.open.delete(r.id);
    }
  }

  private dropDue(now: number): void {
    for (let due = this.drops.popDue(now); due; due = this.drops.popDue(now)) {
      if (this.records.get(due.id)?.record.version === due.version) this.forget(due.id);
    }
    // Kept in the order they were written, all for the same time: the oldest are at the front.
    for (const [id, side] of this.sides) {
      if (side.dropAt > now) break;
      this.sides.delete(id);
    }
  }

  private forget(id: string): void {
    this.records.delete(id);
    this.open.delete(id);
  }
}

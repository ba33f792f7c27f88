import type { AuditEntry, AuditScan, AuditScanned, AuditStore, NewAuditEntry } from './types';

interface Kept {
  entry: AuditEntry;
  appendedAt: number;
}

/** The trail in process memory (one instance, nothing survives a restart), trimmed to the retention like the stream. */
export class MemoryAuditStore implements AuditStore {
  readonly kind = 'memory' as const;
  private readonly stores = new Map<string, Kept[]>();
  private seq = 0;

  constructor(private readonly retentionMs: number) {}

  async append(entry: NewAuditEntry, now: number): Promise<void> {
    const kept = this.stores.get(entry.storeId) ?? [];
    // Ids sort as the stream's do: appended later, larger.
    kept.push({ entry: { ...entry, id: `${now}-${++this.seq}` }, appendedAt: now });
    const keepFrom = kept.findIndex((k) => k.appendedAt >= now - this.retentionMs);
    if (keepFrom > 0) kept.splice(0, keepFrom);
    this.stores.set(entry.storeId, kept);
  }

  async scan(storeId: string, range: AuditScan): Promise<AuditScanned> {
    const kept = this.stores.get(storeId) ?? [];
    const afterSeq = range.afterId === undefined ? -1 : seqOf(range.afterId);
    const inRange = kept.filter((k) => k.appendedAt >= range.fromMs && k.appendedAt <= range.untilMs && seqOf(k.entry.id) > afterSeq);
    const entries = inRange.slice(0, range.count).map((k) => ({ ...k.entry }));
    return { entries, lastId: entries.at(-1)?.id, done: entries.length < range.count };
  }

  async pseudonymise(customerId: string, pseudonym: string): Promise<number> {
    let changed = 0;
    for (const kept of this.stores.values()) {
      for (const k of kept) {
        if (k.entry.customerId !== customerId) continue;
        k.entry = { ...k.entry, customerId: pseudonym };
        changed += 1;
      }
    }
    return changed;
  }

  async close(): Promise<void> {}
}

const seqOf = (id: string) => Number(id.split('-')[1] ?? -1);

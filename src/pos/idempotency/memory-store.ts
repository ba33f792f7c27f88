import type { BeginResult, Claim, IdempotencySlot, IdempotencyStore, StoredResponse } from './types';

type Entry =
  | { state: 'running'; owner: string; fingerprint: string; expiresAt: number }
  | { state: 'done'; fingerprint: string; response: StoredResponse; expiresAt: number };

/** Purge expired entries once every this many claims, so the map does not grow for 24 h unchecked. */
const PURGE_EVERY = 512;

/**
 * Idempotency records in this process only (no REDIS_URL): same contract as
 * the Redis store, one instance, nothing survives a restart. Time is the
 * caller's `now`, so tests move it instead of sleeping.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private claims = 0;

  async begin(slot: IdempotencySlot, claim: Claim): Promise<BeginResult> {
    if (++this.claims % PURGE_EVERY === 0) this.purge(claim.now);
    const k = slotKey(slot);
    const cur = this.live(k, claim.now);
    if (cur?.state === 'done') return { kind: 'done', fingerprint: cur.fingerprint, response: structuredClone(cur.response) };
    if (cur) return { kind: 'running', fingerprint: cur.fingerprint, expiresAt: cur.expiresAt };
    this.entries.set(k, { state: 'running', owner: claim.owner, fingerprint: claim.fingerprint, expiresAt: claim.now + claim.leaseMs });
    return { kind: 'claimed' };
  }

  async renew(slot: IdempotencySlot, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const cur = this.owned(slot, owner);
    if (!cur) return false;
    cur.expiresAt = now + leaseMs;
    return true;
  }

  async complete(slot: IdempotencySlot, owner: string, fingerprint: string, response: StoredResponse, now: number, ttlMs: number): Promise<boolean> {
    if (!this.owned(slot, owner)) return false;
    this.entries.set(slotKey(slot), { state: 'done', fingerprint, response: structuredClone(response), expiresAt: now + ttlMs });
    return true;
  }

  async release(slot: IdempotencySlot, owner: string): Promise<boolean> {
    if (!this.owned(slot, owner)) return false;
    return this.entries.delete(slotKey(slot));
  }

  async forgetAnswers(names: (answer: StoredResponse) => boolean): Promise<number> {
    let forgotten = 0;
    for (const [k, e] of this.entries) if (e.state === 'done' && names(e.response) && this.entries.delete(k)) forgotten += 1;
    return forgotten;
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  /** Entries held now (expired ones included until purged); for tests and metrics. */
  get size(): number {
    return this.entries.size;
  }

  private live(k: string, now: number): Entry | undefined {
    const cur = this.entries.get(k);
    if (cur && cur.expiresAt <= now) {
      this.entries.delete(k);
      return undefined;
    }
    return cur;
  }

  /** The running entry of this owner, even past its lease: nobody else has taken it. */
  private owned(slot: IdempotencySlot, owner: string): Extract<Entry, { state: 'running' }> | undefined {
    const cur = this.entries.get(slotKey(slot));
    return cur?.state === 'running' && cur.owner === owner ? cur : undefined;
  }

  private purge(now: number): void {
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }
}

function slotKey(slot: IdempotencySlot): string {
  return `${slot.terminalId}\n${slot.key}`;
}

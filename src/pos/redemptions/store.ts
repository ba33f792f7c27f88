import { applyTransition, REDEMPTION_TRANSITIONS, type Applied, type RedemptionTransition } from '../money/machines';
import type { RecordChange, RecordStore } from '../money/records/types';
import type { ChangeResult, Redemption, RedemptionStore } from './types';

/** A RedemptionStore over the shared record store (../money/records), Redis or memory: its answers in the feature's words. */
export class RedemptionRecords implements RedemptionStore {
  constructor(
    readonly kind: 'redis' | 'memory',
    private readonly records: RecordStore<Redemption>,
  ) {}

  create(redemption: Redemption): Promise<void> {
    return this.records.create(redemption);
  }

  get(id: string, now: number): Promise<Redemption | null> {
    return this.records.get(id, now);
  }

  async change(id: string, now: number, change: (current: Redemption) => Redemption | string): Promise<ChangeResult> {
    return asChangeResult(await this.records.change(id, now, change));
  }

  apply(id: string, now: number, name: RedemptionTransition, opts?: Applied<Redemption>): Promise<ChangeResult> {
    return this.change(id, now, (cur) => applyTransition(REDEMPTION_TRANSITIONS[name], cur.state, cur, opts));
  }

  sweepDue(now: number, limit: number): Promise<Redemption[]> {
    return this.records.sweepDue(now, limit);
  }

  countOpen(): Promise<number> {
    return this.records.countOpen();
  }

  list(each: (records: Redemption[]) => Promise<void>): Promise<void> {
    return this.records.list(each);
  }

  adoptLeaselessClaims(now: number, stopped?: () => boolean): Promise<number> {
    return this.records.adoptLeaselessClaims(now, stopped);
  }

  close(): Promise<void> {
    return this.records.close();
  }

  onReadExpiry(listener: (redemption: Redemption) => void): () => void {
    return this.records.onEndOnRead(listener);
  }
}

function asChangeResult(result: RecordChange<Redemption>): ChangeResult {
  if (result.ok) return { ok: true, redemption: result.record };
  if (result.reason === 'not_found') return result;
  return { ok: false, reason: 'rejected', redemption: result.record, detail: result.detail };
}

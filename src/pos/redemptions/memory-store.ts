import { MemoryRecordStore } from '../money/records/memory-store';
import { DEFAULT_RECHECK_MS, DEFAULT_RETENTION, redemptionRules, RetentionPolicy } from './record';
import { RedemptionRecords } from './store';

/**
 * In-process store for a single BFF instance without Redis: nothing survives a
 * restart. Same behaviour as the Redis store, including retention times.
 */
export class MemoryRedemptionStore extends RedemptionRecords {
  constructor(opts: Partial<RetentionPolicy> & { recheckMs?: number; askBeforeEnding?: boolean } = {}) {
    const { recheckMs, askBeforeEnding, ...policy } = opts;
    super('memory', new MemoryRecordStore(redemptionRules({ ...DEFAULT_RETENTION, ...policy }, { askBeforeEnding }), recheckMs ?? DEFAULT_RECHECK_MS));
  }
}

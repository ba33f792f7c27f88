import type { Logger } from 'pino';
import { PeriodicTask } from '../../platform/periodic-task';

/** The longest wait between two tries of one repair. */
const MAX_BACKOFF_MS = 30_000;

/** One record whose upstream outcome is not recorded here yet. */
export interface Repair {
  /** Unique per record: `redemption:rdm_x`, `sale:payment:P1`. */
  key: string;
  /** Asks the upstream's record and writes the outcome; throws to try again later (also when the record cannot say yet). Returns what it recorded. */
  settle(): Promise<string>;
  /** Epoch ms after which a repair that still cannot settle stops being tried (its claim stands: the same request, a sweeper or its TTL settles it). Default: never. */
  until?: number;
}

/**
 * Claims whose write may have been applied upstream while this BFF could not
 * settle them (outcome unknown, or Redis failing after it was applied). Tried
 * on a timer until settling succeeds. Kept in this process only: if it stops
 * first, the claim is still in the store with its lease (./lease.ts), and the
 * sweeps settle it once that is over; the same request sent again settles any kind.
 */
export class RepairQueue {
  private readonly pending = new Map<string, { repair: Repair; tries: number; nextAt: number }>();
  private busy = false;
  private readonly task: PeriodicTask;

  constructor(
    private readonly opts: {
      intervalMs: number;
      logger: Logger;
      /** Sees each repair as it is added (the audit trail records how it settles). */
      onAdd?: (repair: Repair) => Repair;
    },
  ) {
    this.task = new PeriodicTask({
      everyMs: opts.intervalMs,
      logger: opts.logger,
      pass: () => this.runOnce(),
      messages: { failing: 'repair pass failed; retrying next tick', recovered: 'repair passes run again' },
    });
  }

  get size(): number {
    return this.pending.size;
  }

  add(repair: Repair): void {
    repair = this.opts.onAdd?.(repair) ?? repair;
    this.pending.set(repair.key, { repair, tries: 0, nextAt: 0 });
    this.opts.logger.warn({ repair: repair.key }, 'outcome not recorded; will settle it from the upstream');
  }

  start(): void {
    this.task.start();
  }

  /** No more passes; resolves once the pass in hand has ended. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One pass over what is pending; returns how many were settled. */
  async runOnce(): Promise<number> {
    if (this.busy) return 0;
    this.busy = true;
    let settled = 0;
    try {
      for (const [key, entry] of [...this.pending]) {
        if (entry.nextAt > Date.now()) continue;
        try {
          const recorded = await entry.repair.settle();
          this.pending.delete(key);
          settled += 1;
          this.opts.logger.info({ repair: key, recorded }, 'outcome settled from the upstream');
        } catch {
          // Redis (or the upstream) still away, or the outcome not known yet: tried again, less often each time.
          if (entry.repair.until !== undefined && Date.now() >= entry.repair.until) {
            this.pending.delete(key);
            this.opts.logger.warn(
              { repair: key, tries: entry.tries + 1 },
              "outcome still not on the upstream's record; no longer tried here, the claim stands",
            );
            continue;
          }
          entry.tries += 1;
          entry.nextAt = Date.now() + Math.min(MAX_BACKOFF_MS, this.opts.intervalMs * 2 ** Math.min(entry.tries - 1, 10));
        }
      }
    } finally {
      this.busy = false;
    }
    return settled;
  }
}

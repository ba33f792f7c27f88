import type { Logger } from 'pino';
import type { Redemption } from './types';

export interface RepairQueueOptions {
  /** Asks the upstream what became of the hold and records it (operations/hold-outcome.ts); throws to try again. */
  settle: (redemption: Redemption) => Promise<string>;
  intervalMs: number;
  logger: Logger;
}

/**
 * Redemptions whose upstream write happened (or may have) while the BFF could
 * not record it, Redis being down. Tried on a timer until asking the upstream
 * succeeds (`settle` does not throw); a hold the upstream still calls active
 * is left as it is, claimed, for the sweeper to ask again at its expiry. Kept
 * in this process only: if it stops first, the sweeper does the same at the
 * hold's expiry, because the record is still claimed.
 */
export class RepairQueue {
  private readonly pending = new Map<string, Redemption>();
  private timer?: NodeJS.Timeout;
  private running = false;
  private busy = false;

  constructor(private readonly opts: RepairQueueOptions) {}

  get size(): number {
    return this.pending.size;
  }

  add(r: Redemption): void {
    this.pending.set(r.id, r);
    this.opts.logger.warn({ redemptionId: r.id, holdReference: r.holdReference, paymentId: r.paymentId }, 'redemption outcome not recorded; will settle it from the upstream');
  }

  start(): void {
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  /** One pass over what is pending; returns how many were settled. */
  async runOnce(): Promise<number> {
    if (this.busy) return 0;
    this.busy = true;
    let settled = 0;
    try {
      for (const [id, r] of [...this.pending]) {
        try {
          const recorded = await this.opts.settle(r);
          this.pending.delete(id);
          settled += 1;
          this.opts.logger.info({ redemptionId: id, recorded }, 'redemption outcome repaired from the upstream');
        } catch {
          // Redis (or the upstream) still away: the next pass tries again.
        }
      }
    } finally {
      this.busy = false;
    }
    return settled;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      void this.runOnce().finally(() => this.schedule());
    }, this.opts.intervalMs);
    this.timer.unref();
  }
}

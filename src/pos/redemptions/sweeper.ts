import type { Logger } from 'pino';
import { PeriodicTask } from '../../platform/periodic-task';
import { isClaimed, lapsedFrom } from './record';
import type { Redemption, RedemptionStore } from './types';

/** How a hold came to expire: claimed by a sweep, or found due by a read. */
export type ExpiryVia = 'sweep' | 'read';

export interface HoldSweeperOptions {
  store: RedemptionStore;
  intervalMs: number;
  /** Holds claimed per store call; a full batch is followed at once by another. Default 1000. */
  batchSize?: number;
  logger: Logger;
  clock?: () => number;
  /** Called once per expired hold (e.g. to bump a metric). Its errors are logged, not thrown. */
  onExpired?: (redemption: Redemption, via: ExpiryVia) => void;
  /**
   * Asks the upstream what became of a due hold that a payment or a void had
   * claimed, records it, and says what it recorded (see hold-outcome.ts).
   * Without it such holds stay held until someone settles them.
   */
  settle?: (redemption: Redemption) => Promise<string>;
  /**
   * Ends a due hold nobody claimed, which the store hands over when it asks
   * before ending (createRedemptionStore's askBeforeEnding): the hold's record
   * first, a release if still active upstream (see hold-outcome.ts endDueHold).
   */
  endHeld?: (redemption: Redemption) => Promise<string>;
}

/**
 * Expires due holds on a timer. Any number of instances may sweep one Redis:
 * the store claims each hold for one caller, so each expiry is logged and
 * counted once across them. While started it also counts holds this
 * instance's store expired on read. A due hold that a payment or a void had
 * claimed is not simply expired: the upstream is asked first (`settle`), since
 * the payment may have used it (the BFF crashed before recording it).
 */
export class HoldSweeper {
  private readonly store: RedemptionStore;
  private readonly batchSize: number;
  private readonly log: Logger;
  private readonly clock: () => number;
  private readonly onExpired?: (redemption: Redemption, via: ExpiryVia) => void;
  private readonly settle?: (redemption: Redemption) => Promise<string>;
  private readonly endHeld?: (redemption: Redemption) => Promise<string>;
  private expired = 0;
  private readonly task: PeriodicTask;
  /** Bumped by stop(), so a sweep in progress ends after its current batch. */
  private stops = 0;
  private inFlight?: Promise<number>;
  private unsubscribe?: () => void;
  /** Held holds this sweeper is ending now: a read inside that (the store ends a due hold on read) is this sweep's expiry. */
  private readonly ending = new Set<string>();

  constructor(opts: HoldSweeperOptions) {
    if (!(opts.intervalMs > 0)) throw new RangeError('HoldSweeper intervalMs must be > 0');
    const batchSize = opts.batchSize ?? 1000;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('HoldSweeper batchSize must be a positive integer');
    this.store = opts.store;
    this.batchSize = batchSize;
    this.log = opts.logger.child({ component: 'hold-sweeper', store: opts.store.kind });
    this.clock = opts.clock ?? Date.now;
    this.onExpired = opts.onExpired;
    this.settle = opts.settle;
    this.endHeld = opts.endHeld;
    this.task = new PeriodicTask({
      everyMs: opts.intervalMs,
      logger: this.log,
      pass: () => this.sweepOnce(),
      messages: { failing: 'hold sweep failed; retrying every tick', recovered: 'hold sweeper recovered' },
    });
  }

  /** Holds expired through this sweeper since it was made. */
  get expiredCount(): number {
    return this.expired;
  }

  start(): void {
    this.unsubscribe ??= this.store.onReadExpiry?.((r) => this.note(r, this.ending.has(r.id) ? 'sweep' : 'read'));
    this.task.start();
  }

  /** Stops the timer and waits for a sweep in progress (which ends after its current batch). */
  async stop(): Promise<void> {
    this.stops += 1;
    await this.task.stop();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.inFlight?.catch(() => undefined);
  }

  /** Expires every hold due now, batch after batch; returns how many. Throws if the store fails. */
  sweepOnce(): Promise<number> {
    const previous = this.inFlight?.catch(() => 0) ?? Promise.resolve(0);
    const stopsAtStart = this.stops;
    const run = previous.then(() => this.sweepAll(stopsAtStart));
    this.inFlight = run;
    return run;
  }

  private async sweepAll(stopsAtStart: number): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.store.sweepDue(this.clock(), this.batchSize);
      const claimed = batch.filter(isClaimed);
      const held = batch.filter((r) => r.state === 'held');
      for (const r of batch) if (r.state === 'expired') this.note(r, 'sweep');
      total += batch.length - claimed.length - held.length;
      // Claimed (and handed-over held) holds stay in the store's index for a later look, so a failure here loses nothing.
      const settled = await Promise.all([...claimed.map((r) => this.settleOne(r, this.settle)), ...held.map((r) => this.endOne(r))]);
      total += settled.filter(Boolean).length;
      // Only an empty batch means nothing is due: another instance's sweeper may have taken some of
      // the ids this one read, so a short batch says nothing. Each record returned has left the due set.
      if (batch.length === 0 || this.stops !== stopsAtStart) return total;
    }
  }

  /** True when the upstream said the hold ended and it was recorded expired. */
  private async settleOne(r: Redemption, settle: ((r: Redemption) => Promise<string>) | undefined): Promise<boolean> {
    if (!settle) return false;
    try {
      const recorded = await settle(r);
      if (recorded !== 'expired') return false;
      this.note({ ...r, state: 'expired' }, 'sweep');
      return true;
    } catch (err) {
      this.log.warn({ redemptionId: r.id, err: { message: (err as Error).message } }, 'could not settle a claimed hold from the upstream; trying again later');
      return false;
    }
  }

  /** A due hold nobody claimed, handed over to be checked upstream first; true when this call recorded it expired. */
  private async endOne(r: Redemption): Promise<boolean> {
    this.ending.add(r.id);
    try {
      return await this.settleOne(r, this.endHeld);
    } finally {
      this.ending.delete(r.id);
    }
  }

  private note(r: Redemption, via: ExpiryVia): void {
    this.expired += 1;
    const from = lapsedFrom(r);
    this.log.info(
      {
        redemptionId: r.id,
        storeId: r.storeId,
        terminalId: r.terminalId,
        customerId: r.customerId,
        holdReference: r.holdReference,
        expiresAt: r.expiresAt,
        via,
      },
      from === 'held' ? 'hold expired' : 'stand-in lapsed unpaid',
    );
    if (!this.onExpired) return;
    try {
      this.onExpired(r, via);
    } catch (err) {
      this.log.warn({ err, redemptionId: r.id }, 'onExpired hook failed');
    }
  }
}

import type { Logger } from 'pino';
import { PeriodicTask } from '../../../platform/periodic-task';
import type { LoyaltyClient } from '../../../upstream';
import { settleCouponLock, type PaymentIdRecords } from './claims';
import type { CouponLock, CouponLockStore } from './types';

export interface CouponLockSweeperOptions {
  store: CouponLockStore;
  /** The sale ids' records: the BFF's record of what a lock's payment carried. */
  sales: PaymentIdRecords;
  loyalty: Pick<LoyaltyClient, 'couponRelease' | 'orderTransactions' | 'holdLookup'>;
  intervalMs: number;
  logger: Logger;
  clock?: () => number;
  batchSize?: number;
  /** Hears each claimed lock this sweeper settled (the audit entry of the action that claimed it). */
  onSettled?: (lock: CouponLock, recorded: string) => void;
}

/**
 * Releases abandoned coupon locks: a lock nobody paid with by its release time
 * is claimed (once, across every instance: the store hands each to one
 * caller), logged, and released upstream so the coupons are free at once
 * instead of when the upstream lock lapses. A lock a payment holds (the BFF
 * stopped mid-payment, or the payment's outcome was unknown) falls due at its
 * claim's lease end (money/records dueOf) and is settled from the upstream's
 * record of that payment: on record, it burned the coupons (`used`); not on
 * record once the upstream lock has ended, it never arrived (`abandoned`);
 * until then it is looked at again.
 */
export class CouponLockSweeper {
  private readonly log: Logger;
  private readonly clock: () => number;
  private readonly task: PeriodicTask;
  private stopped = false;
  private inFlight?: Promise<number>;
  private released = 0;

  constructor(private readonly opts: CouponLockSweeperOptions) {
    if (!(opts.intervalMs > 0)) throw new RangeError('CouponLockSweeper intervalMs must be > 0');
    if (opts.batchSize !== undefined && !(Number.isInteger(opts.batchSize) && opts.batchSize >= 1))
      throw new RangeError('CouponLockSweeper batchSize must be a positive integer');
    this.log = opts.logger.child({ component: 'coupon-lock-sweeper', store: opts.store.kind });
    this.clock = opts.clock ?? Date.now;
    this.task = new PeriodicTask({
      everyMs: opts.intervalMs,
      logger: this.log,
      pass: () => this.sweepOnce(),
      messages: { failing: 'coupon lock sweep failed; retrying next tick', recovered: 'coupon lock sweeper recovered' },
    });
  }

  /** Locks abandoned through this sweeper since it was made. */
  get abandonedCount(): number {
    return this.released;
  }

  start(): void {
    this.stopped = false;
    this.task.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
    await this.inFlight?.catch(() => undefined);
  }

  /** Ends every lock due now (abandoned, or settled from the upstream); returns how many. Throws if the store fails. */
  sweepOnce(): Promise<number> {
    const run = (this.inFlight?.catch(() => 0) ?? Promise.resolve(0)).then(() => this.sweepAll());
    this.inFlight = run;
    return run;
  }

  private async sweepAll(): Promise<number> {
    const batch = this.opts.batchSize ?? 100;
    let total = 0;
    for (;;) {
      const due = await this.opts.store.sweepDue(this.clock(), batch);
      const settled = await Promise.all(due.map((l) => (l.state === 'abandoned' ? this.release(l).then(() => true) : this.settle(l))));
      total += settled.filter(Boolean).length;
      // A short batch can mean another instance took some of the ids this one read; only empty means done.
      if (due.length === 0 || this.stopped) return total;
    }
  }

  private async release(l: CouponLock): Promise<void> {
    this.released += 1;
    this.log.info(
      { couponLockId: l.id, storeId: l.storeId, terminalId: l.terminalId, customerId: l.customerId, lockReference: l.lockReference, releaseAt: l.releaseAt },
      'coupon lock abandoned',
    );
    try {
      await this.opts.loyalty.couponRelease(l.lockReference, { priority: 'background' });
    } catch (err) {
      // The upstream lock lapses by itself at its expiry; nothing is lost but time.
      this.log.warn({ couponLockId: l.id, err: (err as Error).message }, 'could not release an abandoned coupon lock upstream; it lapses at its expiry');
    }
  }

  /**
   * A lock a payment or a release holds: settled from the upstream's record
   * (settleCouponLock: the payment on record means `used`; none once the
   * upstream lock has ended means `abandoned`; a release is sent again). True
   * when it was recorded as ended here.
   */
  private async settle(l: CouponLock): Promise<boolean> {
    try {
      const recorded = await settleCouponLock(
        { couponLocks: this.opts.store, sales: this.opts.sales, loyalty: this.opts.loyalty, clock: this.clock, logger: this.log },
        l,
      );
      if (recorded === 'abandoned') this.released += 1;
      const ended = recorded === 'used' || recorded === 'abandoned' || recorded === 'released';
      if (ended) this.opts.onSettled?.(l, recorded);
      return ended;
    } catch (err) {
      this.log.warn(
        { couponLockId: l.id, err: { message: (err as Error).message } },
        'could not settle a claimed coupon lock from the upstream; trying again later',
      );
      return false;
    }
  }
}

import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { PeriodicTask } from '../../platform/periodic-task';
import { failureOf, nothingSent, type LoyaltyClient } from '../../upstream';
import { describeFailure, judgeFailure, maybeRecordedError, RetryPolicy, send, type IdRecordOf } from './deliver';
import { RESENDABLE } from './forward';
import type { DeliveryOutcome, OutboxEntry, OutboxStore } from './types';

const noRecord: IdRecordOf = async () => null;

export interface OutboxWorkerOptions extends RetryPolicy {
  store: OutboxStore;
  loyalty: LoyaltyClient;
  /** The id entries a duplicate answer is compared with (the sale records); absent: none, so a duplicate is never taken for delivered. */
  idRecordOf?: IdRecordOf;
  /**
   * Keeps what a delivered answer names before the entry is marked delivered
   * (a batch upload's job id and its store, so that store's terminals can read
   * the job), logging to the worker's `log`. Its errors are logged and fail
   * nothing: the write is delivered whatever it does.
   */
  recordAnswer?: (entry: OutboxEntry, result: Record<string, unknown>, log: Logger) => Promise<void>;
  logger: Logger;
  /** How often to look for due entries when there is nothing to do. */
  pollIntervalMs: number;
  /** Deliveries in flight at once (each for a different order key). */
  concurrency: number;
  /** The store's lease; renewed every third of it while a delivery runs. */
  leaseMs: number;
  clock?: () => number;
  random?: () => number;
  /** Unique per process by default. */
  consumer?: string;
  /**
   * Settles what the entry's write claimed once its outcome is recorded (a
   * queued sale's or refund's id): delivered, or dead. `mayHaveLanded`: the
   * dead delivery's failure may have been applied upstream, as the one outcome
   * reader says. Its errors are logged; the entry stays finished.
   */
  settle?: (entry: OutboxEntry, finished: { delivered: boolean; mayHaveLanded: boolean }) => Promise<void>;
  /** Hears every finished delivery (metrics). Its errors are logged, not thrown. */
  onOutcome?: (entry: OutboxEntry, outcome: DeliveryOutcome) => void;
}

/**
 * Delivers the outbox in the background, in every BFF instance: takes due
 * entries (oldest first per customer, one deliverer per customer across the
 * fleet), sends them, and records the outcome. When a round finds work it
 * looks again at once; when idle it polls. The store takes care of entries a
 * dead instance left behind.
 */
export class OutboxWorker {
  readonly consumer: string;
  private readonly clock: () => number;
  private readonly log: Logger;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly task: PeriodicTask;
  private delivered = 0;

  constructor(private readonly opts: OutboxWorkerOptions) {
    if (!(opts.pollIntervalMs > 0) || !(opts.concurrency >= 1) || !(opts.leaseMs > 0))
      throw new RangeError('OutboxWorker needs pollIntervalMs > 0, concurrency >= 1, leaseMs > 0');
    this.consumer = opts.consumer ?? `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.clock = opts.clock ?? Date.now;
    this.log = opts.logger.child({ component: 'outbox-worker', consumer: this.consumer, store: opts.store.kind });
    this.task = new PeriodicTask({
      everyMs: opts.pollIntervalMs,
      logger: this.log,
      pass: () => this.takeFree(),
      messages: { failing: 'outbox: cannot read the queue; retrying every poll', recovered: 'outbox store reachable again' },
    });
  }

  /** Entries this worker delivered since it was made. */
  get deliveredCount(): number {
    return this.delivered;
  }

  start(): void {
    this.task.start();
    this.task.wake();
  }

  /** Stops taking entries, finishes the deliveries in hand, and hands back what it held (another instance may take it at once). */
  async stop(): Promise<void> {
    await this.task.stop();
    await Promise.all(this.inFlight);
    await this.opts.store
      .release(this.consumer)
      .catch((err) =>
        this.log.warn({ err: { message: (err as Error).message } }, 'outbox: could not hand back held entries; others take them after the lease'),
      );
  }

  /** Takes as many entries as there are free delivery slots; true when it could take more at once. Throws when the queue cannot be read. */
  private async takeFree(): Promise<boolean> {
    const free = this.opts.concurrency - this.inFlight.size;
    if (free <= 0) return false;
    const entries = await this.opts.store.take(this.consumer, this.clock(), free);
    for (const e of entries) this.track(this.deliver(e));
    return entries.length > 0 && this.inFlight.size < this.opts.concurrency;
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      this.task.wake();
    });
  }

  private async deliver(entry: OutboxEntry): Promise<void> {
    const renew = setInterval(
      () => {
        this.opts.store.renew(entry, this.consumer).then(
          (kept) =>
            kept ||
            this.log.warn(
              { outboxId: entry.id },
              'outbox: lease lost during delivery (another instance may take it: harmless for ids the upstream refuses twice; events it dead-letters unsent)',
            ),
          () => undefined,
        );
      },
      Math.max(50, this.opts.leaseMs / 3),
    );
    renew.unref();
    let outcome: DeliveryOutcome;
    // Whether the failed delivery may have been applied upstream, as the one outcome reader says.
    let mayHaveLanded = false;
    try {
      // A write the upstream cannot refuse a copy of is sent at most once: a send that started before (by a worker
      // killed mid-send, or whose lease ran out) may have landed, so the entry ends as a dead letter instead.
      if (!RESENDABLE[entry.work.kind] && !(await this.opts.store.startSend(entry.id))) {
        outcome = { kind: 'dead', error: maybeRecordedError('an earlier delivery of it started and its outcome was never recorded', this.clock()) };
        mayHaveLanded = true;
      } else {
        try {
          outcome = { kind: 'delivered', result: await send(this.opts.loyalty, entry, this.opts.idRecordOf ?? noRecord) };
          await this.recordAnswer(entry, outcome.result);
        } catch (err) {
          outcome = judgeFailure(err, entry, this.opts, this.clock(), this.opts.random);
          mayHaveLanded = failureOf(err) !== 'refused';
          if (!RESENDABLE[entry.work.kind] && nothingSent(err)) await this.opts.store.sendNotStarted(entry.id);
        }
      }
    } catch (err) {
      // The send mark could not be written or cleared (Redis away): tried again later, uncounted; the mark decides then.
      const now = this.clock();
      outcome = { kind: 'retry', error: describeFailure(err, now), nextAttemptAt: now + this.opts.backoffBaseMs, counted: false };
    } finally {
      clearInterval(renew);
    }
    try {
      await this.opts.store.finish(entry, this.consumer, outcome, this.clock());
    } catch (err) {
      // The entry stays taken; after the lease another round (here or elsewhere) takes it again: it sends it again where
      // its ids are refused twice (payments, refunds, batches), and dead-letters events unsent (their send mark stands).
      this.log.error({ outboxId: entry.id, err: { message: (err as Error).message } }, 'outbox: could not record a delivery outcome');
      return;
    }
    this.report(entry, outcome);
    await this.settleId(entry, outcome, mayHaveLanded);
  }

  private async recordAnswer(entry: OutboxEntry, result: Record<string, unknown>): Promise<void> {
    try {
      await this.opts.recordAnswer?.(entry, result, this.log);
    } catch (err) {
      this.log.warn({ outboxId: entry.id, err: { message: (err as Error).message } }, 'outbox: could not keep what a delivered answer names');
    }
  }

  /** A finished delivery (not one to retry) settles what its write claimed. */
  private async settleId(entry: OutboxEntry, outcome: DeliveryOutcome, mayHaveLanded: boolean): Promise<void> {
    if (!this.opts.settle || outcome.kind === 'retry') return;
    try {
      await this.opts.settle(entry, { delivered: outcome.kind === 'delivered', mayHaveLanded });
    } catch (err) {
      this.log.warn({ outboxId: entry.id, err: { message: (err as Error).message } }, 'outbox: could not settle the sale record of a finished delivery');
    }
  }

  private report(entry: OutboxEntry, outcome: DeliveryOutcome): void {
    const base = { outboxId: entry.id, kind: entry.work.kind, orderKey: entry.orderKey, storeId: entry.storeId, attempts: entry.attempts };
    if (outcome.kind === 'delivered') {
      this.delivered += 1;
      this.log.info({ ...base, result: outcome.result }, 'outbox entry delivered');
    } else if (outcome.kind === 'dead') {
      this.log.warn({ ...base, code: outcome.error.code, status: outcome.error.status }, 'outbox entry moved to the dead letters');
    } else {
      this.log.debug(
        { ...base, code: outcome.error.code, nextAttemptAt: outcome.nextAttemptAt, counted: outcome.counted },
        'outbox delivery failed; will retry',
      );
    }
    try {
      this.opts.onOutcome?.(entry, outcome);
    } catch (err) {
      this.log.warn({ err }, 'onOutcome hook failed');
    }
  }
}

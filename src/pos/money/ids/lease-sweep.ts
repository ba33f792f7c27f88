import type { Logger } from 'pino';
import { PeriodicTask } from '../../../platform/periodic-task';
import { fromLeaseMember } from './lease-index';
import { isIdClaimed, stateOf, type IdEntry, type IdRecords } from './records';

/** The longest wait between two asks about one claim whose record cannot say yet. */
const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * How long past its lease a claim the upstream's record still cannot show is
 * asked about: a write that never reached the upstream is never on its record,
 * and its entry lives for SALE_RECORD_DAYS. Past it the claim is unlisted (left
 * `recording` or `voiding` for the reconciliation) and reported once.
 */
export const GIVE_UP_AFTER_MS = 24 * 3_600_000;

export interface IdLeaseSweepOptions<E extends IdEntry> {
  records: IdRecords<E>;
  /**
   * Settles a claim from the upstream's record, as the repair queue would
   * (the feature's settle functions, through the named transitions); says what
   * it recorded, or throws while the record cannot say yet.
   */
  settle(entry: E): Promise<string>;
  /** Hears each claim this sweep settled (the audit trail's entry). */
  onSettled?(entry: E, recorded: string): void;
  /** Hears each claim given up GIVE_UP_AFTER_MS past its lease (the audit trail's `unknown` entry, a metric). */
  onGivenUp?(entry: E): void;
  /** GIVE_UP_AFTER_MS unless set (tests). */
  giveUpAfterMs?: number;
  intervalMs: number;
  /** How long a claim taken by a sweep stays out of other sweeps' sight: the first back-off. */
  recheckMs: number;
  logger: Logger;
  clock?: () => number;
  /** Claims taken per pass; a full batch is followed at once by another. */
  batchSize?: number;
}

/**
 * Settles the id claims (`recording`, `voiding`) whose lease has ended, at
 * start-up and on a timer: their taker is no longer settling them (it
 * crashed), so the upstream's record decides, promptly. One not waiting in the
 * outbox (those are the outbox worker's). Any number of instances may sweep:
 * each claim is taken by one (`takeDue`), and one that cannot be settled yet
 * is looked at again later, less often the longer its lease has been over,
 * until GIVE_UP_AFTER_MS past it.
 */
export class IdLeaseSweeper<E extends IdEntry> {
  private readonly task: PeriodicTask;
  private readonly clock: () => number;
  private readonly log: Logger;

  constructor(private readonly opts: IdLeaseSweepOptions<E>) {
    this.clock = opts.clock ?? Date.now;
    this.log = opts.logger.child({ component: 'id-lease-sweeper' });
    this.task = new PeriodicTask({
      everyMs: opts.intervalMs,
      logger: this.log,
      pass: () => this.sweepOnce().then((n) => n.full),
      messages: { failing: 'id lease sweep failed; retrying next tick', recovered: 'id lease sweeps run again' },
    });
  }

  /** Starts the timer, with a pass at once (claims a crash left behind are settled at start-up). */
  start(): void {
    this.task.start();
    this.task.wake();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One batch: how many claims it settled, and whether the batch was full (more may be due). */
  async sweepOnce(): Promise<{ settled: number; full: boolean }> {
    const now = this.clock();
    const limit = this.opts.batchSize ?? 100;
    const recheckAt = now + this.opts.recheckMs;
    const { leases } = this.opts.records;
    const members = await leases.takeDue(now, recheckAt, limit);
    let settled = 0;
    for (const member of members) {
      const { kind, id } = fromLeaseMember(member);
      const entry = await this.opts.records.get(kind as E['kind'], id);
      if (!entry || !isIdClaimed(entry)) {
        await leases.unlist(member, recheckAt);
        continue;
      }
      // Renewed since it was listed (a claim taken again): looked at when that lease ends. One without a lease (written before leases) is due once listed.
      const end = entry.lease?.until ?? now;
      if (end > now) {
        await leases.move(member, recheckAt, end);
        continue;
      }
      let recorded: string | undefined;
      try {
        recorded = await this.opts.settle(entry);
      } catch (err) {
        this.log.info(
          { claim: member, err: { message: (err as Error).message } },
          "a claim past its lease is not on the upstream's record yet; asked again later",
        );
      }
      const after = await this.opts.records.get(kind as E['kind'], id);
      if (after && isIdClaimed(after) && now - end >= (this.opts.giveUpAfterMs ?? GIVE_UP_AFTER_MS)) {
        await leases.unlist(member, recheckAt);
        this.log.error(
          { claim: member, storeId: entry.storeId, state: stateOf(after), lease: entry.lease },
          "a claim long past its lease is still not on the upstream's record; no longer asked about, left for the reconciliation",
        );
        this.hear(() => this.opts.onGivenUp?.(after), member);
        continue;
      }
      if (after && isIdClaimed(after)) {
        await leases.move(member, recheckAt, now + Math.min(MAX_BACKOFF_MS, Math.max(this.opts.recheckMs, now - end)));
        continue;
      }
      await leases.unlist(member, recheckAt);
      settled += 1;
      const outcome = recorded ?? (after ? stateOf(after) : 'freed');
      this.log.info({ claim: member, storeId: entry.storeId, recorded: outcome, lease: entry.lease }, 'a claim past its lease settled from the upstream');
      this.hear(() => this.opts.onSettled?.(entry, outcome), member);
    }
    return { settled, full: members.length >= limit };
  }

  private hear(hook: () => void, member: string): void {
    try {
      hook();
    } catch (err) {
      this.log.warn({ claim: member, err: { message: (err as Error).message } }, 'lease sweep hook failed');
    }
  }
}

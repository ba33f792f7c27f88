import { eraseCustomerData, type Erased, type ErasureDeps } from './erasure';

/**
 * The second erasure pass, `afterMs` after a deletion, on the instance that
 * deleted the customer: it erases what was written after the first pass (the
 * deletion's own answer, kept for its Idempotency-Key; an entry of a request
 * that was in flight). A pass that fails is tried again after as long. It is
 * kept in this process only: an instance stopped before the pass does not
 * run it (docs/operator/privacy.md says what to do then).
 */
export class ErasureFollowUp {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  /** Passes finished (tests wait on it). */
  passes = 0;

  constructor(
    private readonly deps: ErasureDeps,
    private readonly afterMs: number,
    private readonly onPass?: (erased: Erased) => void,
  ) {}

  schedule(customerId: string, tries = 3): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.pass(customerId, tries).finally(() => this.running.delete(run));
      this.running.add(run);
    }, this.afterMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Passes waiting or under way. */
  get pending(): number {
    return this.timers.size + this.running.size;
  }

  /** Drops the passes not started (said in the log) and waits for those under way. */
  async stop(): Promise<void> {
    if (this.timers.size) this.deps.logger.warn({ passes: this.timers.size }, 'customer erasure: second passes not run before shutdown');
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.running);
  }

  private async pass(customerId: string, tries: number): Promise<void> {
    // The log names the pseudonym only: a log line must not name an erased customer.
    const pseudonym = this.deps.customerPseudonym(customerId);
    try {
      const erased = await eraseCustomerData(this.deps, customerId);
      this.passes += 1;
      this.onPass?.(erased);
      this.deps.logger.info({ pseudonym, erased }, 'customer erasure: second pass done');
    } catch (err) {
      const again = tries > 1;
      this.deps.logger.error(
        { pseudonym, err: { message: (err as Error).message }, again },
        again ? 'customer erasure: the second pass failed; it is tried again' : 'customer erasure: the second pass failed; delete the customer again',
      );
      if (again) this.schedule(customerId, tries - 1);
    }
  }
}

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

export interface PeriodicTaskOptions {
  /** Waited between passes. */
  everyMs: number;
  logger: Logger;
  /**
   * One pass. Resolves true when work is left (the next pass starts at once),
   * anything else to wait `everyMs`. A throw is logged (see `messages`) and the
   * task goes on: a background loop never dies of one failed pass.
   */
  pass: () => Promise<boolean | unknown>;
  /** Logged once when passes start failing, and once when one succeeds again. */
  messages: { failing: string; recovered: string };
}

/**
 * The timer every background loop runs on (hold and coupon-lock sweeps, the
 * repair queue, outbox deliveries): one pass at a time, the next one `everyMs`
 * after the last ended (or at once when it says work is left, or `wake()` is
 * called), an outage logged once and its end once, and `stop()` waiting for the
 * pass in hand. The timer does not keep the process alive.
 */
export class PeriodicTask {
  private running = false;
  private failing = false;
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private woken = false;
  /**
   * Passes run in the context the task was made in, never in that of a request
   * that woke it: a till's deadline (src/upstream/till.ts) must not bound, or
   * refuse, work the till does not wait for.
   */
  private readonly begin = AsyncLocalStorage.bind(() => {
    this.current = this.run();
  });

  constructor(private readonly opts: PeriodicTaskOptions) {
    if (!(opts.everyMs > 0)) throw new RangeError('PeriodicTask everyMs must be > 0');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Started again while a stop waits for the pass in hand: that pass's end schedules the next.
    if (!this.current) this.later(this.opts.everyMs);
  }

  /** Runs the next pass now (after the one in hand, if any) rather than at the end of the wait. */
  wake(): void {
    if (!this.running) return;
    if (this.current) this.woken = true;
    else this.later(0);
  }

  /** No more passes; resolves once the pass in hand has ended. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  private later(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.begin, ms);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    let more = false;
    try {
      // Through a promise: a pass that throws before returning one is caught after `current` is set, not before.
      more = (await Promise.resolve().then(() => this.opts.pass())) === true;
      if (this.failing) this.opts.logger.info(this.opts.messages.recovered);
      this.failing = false;
    } catch (err) {
      const e = err as Error & { code?: string };
      if (!this.failing) this.opts.logger.error({ err: { message: e.message, code: e.code } }, this.opts.messages.failing);
      else this.opts.logger.debug({ err: { message: e.message } }, `${this.opts.messages.failing} (still)`);
      this.failing = true;
    } finally {
      this.current = undefined;
      if (this.running) this.later(more || this.woken ? 0 : this.opts.everyMs);
      this.woken = false;
    }
  }
}

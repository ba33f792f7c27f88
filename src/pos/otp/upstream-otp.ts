import type { Logger } from 'pino';
import type { OtpModeStore } from './mode';

/**
 * Whether the loyalty account checks OTPs. There is no setting for it, so it
 * can never disagree with the account:
 * - with the bundled sandbox the BFF reads the account's own setting, live;
 * - against a real service it is learnt from every answer to a hold, in both
 *   directions (refused for want of a code, or for a wrong one: checked;
 *   placed without a code: not checked), and kept fleet-wide in Redis, so a
 *   new or restarted instance knows what any instance has seen. A hold placed
 *   WITH a code teaches nothing: the account may have ignored the code.
 */
export class UpstreamOtp {
  constructor(
    private readonly opts: {
      store: OtpModeStore;
      clock: () => number;
      logger: Logger;
      /** The bundled sandbox's account setting; absent against a real service. */
      accountSetting?: () => boolean;
    },
  ) {}

  /** The account's setting is read at the moment of asking, not learnt from an earlier answer. */
  get live(): boolean {
    return this.opts.accountSetting !== undefined;
  }

  /** true: the account checks OTPs; false: it does not; undefined: no answer has shown it yet. */
  async required(): Promise<boolean | undefined> {
    return this.opts.accountSetting ? this.opts.accountSetting() : this.opts.store.get();
  }

  /**
   * Records what an answer just showed. Never throws: the answer the till gets
   * does not depend on it, and a hold already placed must not be lost to it.
   */
  async learn(required: boolean): Promise<void> {
    if (this.live) return;
    await this.opts.store.record(required, this.opts.clock()).catch((err) => {
      this.opts.logger.warn({ err: (err as Error).message, otpRequired: required }, 'could not record whether the loyalty account checks OTPs');
    });
  }
}

import type { Logger } from 'pino';
import type { LearntOtpMode, OtpModeStore } from './mode';

/** OTP_MODE: `auto` learns from the upstream's answers; `on` and `off` are the operator's word. */
export type OtpModeSetting = 'auto' | 'on' | 'off';

/** What the fleet believes about OTPs and why, for the otp-mode CLI. */
export interface OtpBelief {
  setting: OtpModeSetting;
  /** Where the belief comes from: the operator's setting, the bundled sandbox's account, or the answers learnt. */
  source: 'setting' | 'sandbox_account' | 'learnt';
  /** What is believed now; undefined: unknown (the next hold, sent without a code, shows it). */
  required: boolean | undefined;
  /** What was learnt (auto only), when, and until when it is believed; absent: nothing learnt. */
  learnt?: LearntOtpMode & { expiresAt: number; expired: boolean };
}

/**
 * Whether the loyalty account checks OTPs. It is the account's setting, which
 * the published interface does not show, so:
 * - OTP_MODE=on or off: the operator says so, and it is believed; nothing is learnt;
 * - auto with the bundled sandbox: the BFF reads the account's own setting, live;
 * - auto against a real service: it is learnt from every answer to a hold, in
 *   both directions (refused for want of a code, or for a wrong one: checked;
 *   placed without a code: not checked), and kept fleet-wide in Redis, so a
 *   new or restarted instance knows what any instance has seen. A hold placed
 *   WITH a code teaches nothing: the account may have ignored the code.
 *   What was learnt is believed for OTP_MODE_RECHECK_MINUTES, then unknown
 *   again: each belief stops the answers that would correct it ("not checked"
 *   refuses typed ids before a hold is sent; "checked" asks for a code before
 *   a QR code's hold), so only the expiry lets the next hold, sent without a
 *   code, show a change of the account.
 */
export class UpstreamOtp {
  constructor(
    private readonly opts: {
      store: OtpModeStore;
      clock: () => number;
      logger: Logger;
      /** OTP_MODE; absent: auto. */
      mode?: OtpModeSetting;
      /** OTP_MODE_RECHECK_MINUTES in ms: how long a learnt mode is believed. */
      recheckMs: number;
      /** The bundled sandbox's account setting; absent against a real service. */
      accountSetting?: () => boolean;
    },
  ) {}

  private get setting(): OtpModeSetting {
    return this.opts.mode ?? 'auto';
  }

  /**
   * The answer is given (the operator's setting, or the sandbox account read at
   * the moment of asking), not learnt from an earlier answer: a code sent is then
   * taken as checked.
   */
  get live(): boolean {
    return this.setting !== 'auto' || this.opts.accountSetting !== undefined;
  }

  /** true: the account checks OTPs; false: it does not; undefined: unknown (nothing learnt, or it expired). */
  async required(): Promise<boolean | undefined> {
    const setting = this.setting;
    if (setting !== 'auto') return setting === 'on';
    if (this.opts.accountSetting) return this.opts.accountSetting();
    const learnt = await this.learnt();
    return learnt && !learnt.expired ? learnt.required : undefined;
  }

  /** What is believed and where from, with what was learnt even where it is not used (the otp-mode CLI). */
  async belief(): Promise<OtpBelief> {
    const learnt = await this.learnt();
    const source = this.setting !== 'auto' ? 'setting' : this.opts.accountSetting ? 'sandbox_account' : 'learnt';
    return { setting: this.setting, source, required: await this.required(), ...(learnt ? { learnt } : {}) };
  }

  private async learnt(): Promise<OtpBelief['learnt']> {
    const seen = await this.opts.store.get();
    if (!seen) return undefined;
    const expiresAt = seen.at + this.opts.recheckMs;
    return { ...seen, expiresAt, expired: this.opts.clock() >= expiresAt };
  }

  /** Forgets what was learnt: the next hold finds out again. */
  forget(): Promise<boolean> {
    return this.opts.store.forget();
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

/**
 * Whether the loyalty account asks for an OTP before a hold. There is no
 * setting for it, so it can never disagree with the account (issue 14):
 * - with the bundled sandbox the BFF reads the account's own setting, live;
 * - against a real service it starts unknown and learns "required" from the
 *   first hold the upstream refuses for want of an OTP (a hold that carried
 *   none). A hold placed without one teaches "not required".
 */
export class UpstreamOtp {
  private learned: boolean | undefined;
  constructor(private readonly accountSetting?: () => boolean) {}

  /** true: the account requires an OTP; false: it does not; undefined: not known yet. */
  required(): boolean | undefined {
    return this.accountSetting ? this.accountSetting() : this.learned;
  }

  learn(required: boolean): void {
    this.learned = required;
  }
}

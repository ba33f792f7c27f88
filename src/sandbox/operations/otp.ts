import type { OtpRequest, OtpResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import { loyaltyErrors } from '../errors';
import { sixDigits } from '../state/codes';
import type { CustomerRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { requireCustomer } from './customers';
import { pointsAsked } from './holds';

/** Wrong guesses before a code is burnt, so six digits cannot be walked. */
const MAX_OTP_ATTEMPTS = 5;

/** `POST /transactions/otp`: "sends" the customer a six-digit, single-use, expiring code. */
export function sendOtp(ctx: SandboxContext, account: AccountEntry, req: OtpRequest): OtpResponse {
  const { settings } = account;
  requireChannelField(settings, req);
  // An unknown ruleId is refused here, not at the hold; an integer id (the published type) names the rule of that id.
  pointsAsked(settings, { amount: req.amount, points: req.points, ruleId: req.ruleId === undefined ? undefined : String(req.ruleId) });
  const c = requireCustomer(account, req.customerId, req);
  const now = ctx.clock.now();
  const expiresAt = now + settings.otpTtlSeconds * 1000;
  c.otp = { code: sixDigits(c.otp?.code), issuedAt: now, expiresAt, failedAttempts: 0 };
  return { success: true, message: `A one-time password was sent to customer "${c.id}"`, expiresAt: ctx.clock.iso(expiresAt) };
}

/**
 * Checks the code a hold or redemption carries. The code is consumed only when
 * it succeeds (`consume()`), so one refused for another reason can be retried.
 */
export function verifyOtp(c: CustomerRecord, otp: string | undefined, now: number): { consume(): void } {
  if (otp === undefined) {
    throw loyaltyErrors.invalidValue(`This account requires an OTP to redeem points: send otp (from POST /transactions/otp) or ignoreOTP: true`, 'OTPRequired');
  }
  const issued = c.otp;
  if (!issued) throw loyaltyErrors.invalidValue(`No OTP was sent to customer "${c.id}"`, 'OTPInvalid');
  if (issued.spent === 'used') throw loyaltyErrors.invalidValue('The OTP was already used; request a new one', 'OTPInvalid');
  if (issued.spent === 'burnt') throw loyaltyErrors.invalidValue('Too many wrong OTP attempts; request a new one', 'OTPInvalid');
  if (now >= issued.expiresAt) throw loyaltyErrors.invalidValue('The OTP has expired; request a new one', 'OTPExpired');
  if (otp !== issued.code) {
    issued.failedAttempts += 1;
    if (issued.failedAttempts >= MAX_OTP_ATTEMPTS) issued.spent = 'burnt';
    throw loyaltyErrors.invalidValue('The OTP is not correct', 'OTPInvalid');
  }
  return {
    consume() {
      issued.spent = 'used';
    },
  };
}

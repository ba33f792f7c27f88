/** Proof of presence (REDEMPTION_PROOF): the QR code, which way a start goes, the refusals before anything is asked upstream. */
import { UnprocessableError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import type { CallContext } from '../context';
import type { RedemptionProof } from '../settings';
import { CustomerId } from '../fields';
import { Hash } from './schemas';
import type { RedemptionDeps } from './redemption-deps';

/**
 * Splits a QR payload into the customer id and the customer's hash. A
 * separator (`:` or `|`) decides when there is one: the last one splits, so a
 * customer id may hold separators and digits, and the hash is all that follows
 * (the published reference types it only as a string). With no separator the
 * payload is the published form, the id directly followed by a six-digit hash:
 * the last six characters, which must be digits.
 */
export function parseQr(qr: string): { customerId: string; hash: string } {
  const at = Math.max(qr.lastIndexOf(':'), qr.lastIndexOf('|'));
  const [id, hash] = at >= 0 ? [qr.slice(0, at), qr.slice(at + 1)] : (/^(.*)(\d{6})$/.exec(qr)?.slice(1) ?? ['', '']);
  const customerId = CustomerId.safeParse(id);
  if (!customerId.success || !Hash.safeParse(hash).success) {
    throw problem('qr_invalid', "The QR code does not hold a customer id followed by the customer's hash");
  }
  return { customerId: customerId.data, hash };
}

/**
 * How a start goes: the hold now, or a code first. `otpIsProof`: an OTP the
 * account checks is this start's only proof of presence, so a hold placed
 * without one proves nothing.
 */
export interface Route {
  path: 'hold' | 'send_otp';
  otpIsProof: boolean;
}

/** Nothing but an OTP shows this customer is present: REDEMPTION_PROOF=otp, or hash_or_otp without the QR code's hash. */
export const otpIsProof = (policy: RedemptionProof, hash: string | undefined) => policy === 'otp' || (policy === 'hash_or_otp' && hash === undefined);

function proofRequired(
  detail = "This store needs the customer present: scan the QR code from the customer's app (qr, or customerId with hash)",
): UnprocessableError {
  return problem('proof_required', detail);
}

/** The refusal when the OTP was to be the proof and the account does not check OTPs. */
export function refuseUnchecked(policy: RedemptionProof): never {
  if (policy === 'otp') {
    throw problem(
      'otp_not_checked',
      'The store requires an OTP for every redemption (REDEMPTION_PROOF=otp), but the loyalty account does not check OTPs; ask a manager',
    );
  }
  throw proofRequired(
    "The loyalty account does not check OTPs, so a code proves nothing: scan the QR code from the customer's app (qr, or customerId with hash)",
  );
}

/**
 * The store's proof-of-presence policy (REDEMPTION_PROOF): which way this
 * start goes, or a refusal before anything is asked of the upstream.
 *
 * An OTP proves presence only if the upstream checked it, and a hold placed
 * with a code never shows that (an account that does not check OTPs ignores
 * the code); only a refusal for want of a code does. So unless the answer is
 * given (OTP_MODE=on/off, or the sandbox's account read live), a code that is
 * the only proof is asked for only after
 * this very redemption's hold, sent without one, was refused for want of one,
 * and a code given with the start itself is no proof. What the fleet learnt
 * last (until it expires, ../otp/upstream-otp.ts) decides the rest: "not
 * checked" refuses at once, "checked" with a hash asks for the code straight away.
 */
export async function routeFor(deps: RedemptionDeps, hash: string | undefined, otp: string | undefined): Promise<Route> {
  const policy = deps.settings.redemptionProof;
  if (policy === 'hash' && hash === undefined) throw proofRequired();
  const onlyOtp = otpIsProof(policy, hash);
  const checked = await deps.upstreamOtp.required();
  if (onlyOtp && checked === false) refuseUnchecked(policy);
  const checkedNow = deps.upstreamOtp.live && checked === true;
  if (otp !== undefined) {
    if (onlyOtp && !checkedNow) {
      throw proofRequired(
        'A code given with the start cannot be shown to be checked by the loyalty service: start without one, and the BFF has a code sent for this redemption (then POST /redemptions/{id}/otp)',
      );
    }
    return { path: 'hold', otpIsProof: onlyOtp };
  }
  if (checked === true && (checkedNow || !onlyOtp)) return { path: 'send_otp', otpIsProof: onlyOtp };
  return { path: 'hold', otpIsProof: onlyOtp };
}

/**
 * An unknown customer is refused before anything is placed, so no profile is
 * created upstream by a typo. Only needed when nothing else in the start
 * proves the customer exists: a hash is issued only for an existing customer
 * (the hold checks it), and the OTP request refuses an unknown customer
 * itself (7000, answered as 404 customer_not_found). Skipping the read then
 * saves the start a whole upstream round trip.
 */
export async function requireCustomer(deps: RedemptionDeps, ctx: CallContext, customerId: string, proof: { hash?: string; route: Route }): Promise<void> {
  if (proof.hash !== undefined || proof.route.path === 'send_otp') return;
  await deps.loyalty.balance(customerId, { requestId: ctx.requestId });
}

/** A code given with the start itself must not be one the BFF asked for another redemption. */
export async function refuseForeignCode(deps: RedemptionDeps, customerId: string): Promise<void> {
  if (await deps.otpTickets.current(customerId, deps.clock())) {
    throw problem(
      'otp_for_another_redemption',
      'The code sent to this customer was asked for another redemption; confirm that redemption with it (POST /redemptions/{id}/otp), or start again without a code',
    );
  }
}

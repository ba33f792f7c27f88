import type { Metrics } from '../../platform/metrics';
/** What the redemption use cases share: their parts, new ids, the ask as a key, reading one of the store's redemptions. */
import { randomBytes } from 'node:crypto';
import { problem } from '../../platform/problem';
import type { CallContext } from '../context';
import type { PosSettings } from '../settings';
import type { RedemptionOtpClaimDeps } from './claims';
import type { UpstreamOtp } from '../otp';
import type { HoldPeriodDeps } from './hold-period';
import type { Redemption, RedemptionAsk } from './types';
import { redemptionView, RedemptionView } from './view';
import type { AuditDeps } from '../audit/record';
import type { OpenRedemptionCap } from './open-redemptions';
import type { RedemptionCap } from './cap';
import type { RedemptionOptionsCache } from './options';

/** What the redemption use cases are given. */
export type RedemptionDeps = RedemptionOtpClaimDeps &
  HoldPeriodDeps &
  AuditDeps & {
    settings: Pick<PosSettings, 'redemptionProof' | 'otpCodeMinutes' | 'holdExpiryLookup' | 'salesRecordedAs' | 'redemptionCapPointsPerCustomerDay'>;
    /** The points per customer and day (REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY, ./cap.ts); absent: nothing counted. */
    redemptionCap?: RedemptionCap;
    /** The account's redemption rules: what a rule or an amount is worth in points, for the cap. */
    redemptionOptions?: Pick<RedemptionOptionsCache, 'get'>;
    /** Whether the loyalty account checks OTPs (OTP_MODE, or followed from answers for a while). */
    upstreamOtp: UpstreamOtp;
    /** MAX_OPEN_REDEMPTIONS_PER_TERMINAL; absent = no cap. */
    openRedemptions?: OpenRedemptionCap;
    metrics: Pick<Metrics, 'holdsUnanswered' | 'holdsReleasedLate'>;
  };

export function newRedemptionId(): string {
  return `rdm_${randomBytes(12).toString('base64url')}`;
}

/** An ask as one comparable string, for binding an OTP to what it was sent for. */
export function askKey(ask: RedemptionAsk): string {
  if (ask.kind === 'amount') return `amount:${ask.amount}`;
  if (ask.kind === 'points') return `points:${ask.points}`;
  return `rule:${ask.ruleId}`;
}

/** Reads a redemption of the caller's store; another store's is "not found" so ids cannot be probed. */
export async function findRedemption(deps: Pick<RedemptionDeps, 'redemptions' | 'clock'>, ctx: CallContext, id: string): Promise<Redemption> {
  const r = await deps.redemptions.get(id, deps.clock());
  if (!r || r.storeId !== ctx.identity.store.id) throw problem('redemption_not_found', `Redemption ${id} was not found`);
  return r;
}

export async function getRedemption(deps: Pick<RedemptionDeps, 'redemptions' | 'clock'>, ctx: CallContext, id: string): Promise<RedemptionView> {
  return redemptionView(await findRedemption(deps, ctx, id), deps.clock());
}

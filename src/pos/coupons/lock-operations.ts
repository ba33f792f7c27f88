import { randomBytes } from 'node:crypto';
import { AppError } from '../../platform/errors';
import { isProblem, problem } from '../../platform/problem';
import { claimActSettle } from '../money/claim-step';
import { couponLockForRelease, couponLockNotFound, type CouponLockClaimDeps } from './locks/claims';
import { isCouponRefusal, type CouponAnswer } from '../../upstream/coupon-answers';
import type { CouponLock, LockedCoupon } from './locks/types';
import type { CallContext } from '../context';
import type { PosSettings } from '../settings';
import type { CouponCheckBody } from './schemas';
import { couponLockRefused, worthOf } from './verdicts';
import { merchantOf } from '../terminals/store-merchant';
import { audited, auditNote, type AuditDeps } from '../audit/record';
import { storePolicy } from '../terminals/policy';

/** What the coupon lock use cases are given. */
export type CouponLockDeps = CouponLockClaimDeps & AuditDeps & { settings: Pick<PosSettings, 'couponLockMinutes' | 'holdSafetyMarginSeconds'> };

const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;

function newCouponLockId(): string {
  return `cpl_${randomBytes(12).toString('base64url')}`;
}

/** A lock as a till shows it. */
export function couponLockView(l: CouponLock, now: number) {
  return {
    id: l.id,
    state: l.state,
    customerId: l.customerId,
    basketTotal: l.basketTotal,
    coupons: l.coupons,
    totalWorth: round2(
      Math.min(
        l.basketTotal,
        l.coupons.reduce((s, c) => s + c.worth, 0),
      ),
    ),
    expiresAt: new Date(l.releaseAt).toISOString(),
    secondsLeft: l.state === 'locked' ? Math.max(0, Math.floor((l.releaseAt - now) / 1000)) : 0,
    paymentId: l.paymentId ?? null,
    createdAt: new Date(l.createdAt).toISOString(),
    updatedAt: new Date(l.updatedAt).toISOString(),
  };
}
export type CouponLockView = ReturnType<typeof couponLockView>;

/**
 * Locks every code for this sale in one upstream call, or none: one refused
 * code refuses the lot (422 `coupon_refused`, with each code's verdict and the
 * lock's own reason).
 * The lock is released by the sweeper HOLD_SAFETY_MARGIN_SECONDS before the
 * upstream lock ends, so a payment never names a lock about to lapse.
 */
/** Locks the coupons for this customer's basket; audited as `coupon_lock`. */
export function lockCoupons(deps: CouponLockDeps, ctx: CallContext, body: CouponCheckBody): Promise<CouponLockView> {
  return audited(deps, ctx, 'coupon_lock', { customerId: body.customerId }, (c) => lockFor(deps, c, body));
}

async function lockFor(deps: CouponLockDeps, ctx: CallContext, body: CouponCheckBody): Promise<CouponLockView> {
  let answer;
  try {
    answer = await deps.loyalty.couponsValidate(
      {
        customerId: body.customerId,
        email: body.email,
        mobile: body.mobile,
        coupons: body.codes,
        lock: true,
        lockDuration: deps.settings.couponLockMinutes,
        totalPurchaseAmount: body.basketTotal,
        merchantId: merchantOf(ctx.identity.store).uniqueId,
      },
      { requestId: ctx.requestId },
    );
  } catch (err) {
    if (!(err instanceof AppError && isCouponRefusal(err.code))) throw err;
    throw await couponLockRefused(deps, ctx, body, err);
  }
  if (!answer.lockReference)
    throw problem(
      'coupon_lock_unconfirmed',
      'The loyalty service did not confirm the coupon lock; a lock may stand upstream until it lapses, so do not lock again',
    );
  const now = deps.clock();
  // Read as UTC when it has no offset (by the client). No end, or one already past (bad data or a clock far off): the configured lock time.
  const stated = answer.dateToExpire;
  if (stated !== undefined && !(stated > now)) {
    deps.logger.warn({ requestId: ctx.requestId, field: 'dateToExpire' }, 'coupon lock answer gave no usable future end; using COUPON_LOCK_MINUTES');
  }
  const expiresAt = stated !== undefined && stated > now ? stated : now + deps.settings.couponLockMinutes * 60_000;
  const coupons: LockedCoupon[] = body.codes.map((code) => {
    const c: Partial<CouponAnswer> = answer.coupons.find((k) => k.code === code) ?? { code };
    return { code, type: c.type ?? 'unknown', value: c.value ?? 0, worth: worthOf(c, body.basketTotal) };
  });
  const lock: CouponLock = {
    id: newCouponLockId(),
    storeId: ctx.identity.store.id,
    terminalId: ctx.identity.terminal.id,
    customerId: body.customerId,
    lockReference: answer.lockReference,
    basketTotal: body.basketTotal,
    coupons,
    state: 'locked',
    expiresAt,
    releaseAt: expiresAt - storePolicy(ctx.identity.store, deps.settings).holdSafetyMarginSeconds * 1000,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  try {
    await deps.couponLocks.create(lock);
  } catch (err) {
    // A lock we cannot track must not keep the coupons from the customer.
    await deps.loyalty.couponRelease(lock.lockReference, { requestId: ctx.requestId }).catch(() => undefined);
    throw err;
  }
  return couponLockView(lock, now);
}

/** This store's lock; another store's reads exactly like a missing one. */
async function findCouponLock(deps: CouponLockDeps, ctx: CallContext, id: string): Promise<CouponLock> {
  const l = await deps.couponLocks.get(id);
  if (!l || l.storeId !== ctx.identity.store.id) throw couponLockNotFound(id);
  return l;
}

export async function getCouponLock(deps: CouponLockDeps, ctx: CallContext, id: string): Promise<CouponLockView> {
  return couponLockView(await findCouponLock(deps, ctx, id), deps.clock());
}

/**
 * The till voids the sale: the coupons go back to the customer now, through
 * the one claim -> act -> settle step. The lock is claimed for the release
 * (`releasing`: the compare-and-set a payment claims it by, so of a release and
 * a payment exactly one wins), released upstream, then recorded `released`.
 * Releasing a lock already released (or abandoned) answers it again; a used
 * one is `coupon_lock_used`, one a payment holds `coupon_lock_in_use`.
 */
export async function releaseCouponLock(deps: CouponLockDeps, ctx: CallContext, id: string): Promise<CouponLockView> {
  const l = await findCouponLock(deps, ctx, id);
  if (l.state === 'released' || l.state === 'abandoned') return couponLockView(l, deps.clock());
  const lock = couponLockForRelease(deps, ctx, id);
  await claimActSettle({
    what: `The release of coupon lock ${id}`,
    claims: [lock],
    logger: deps.logger,
    send: () =>
      deps.loyalty.couponRelease(l.lockReference, { requestId: ctx.requestId }).catch((err: unknown) => {
        // Already released or lapsed upstream: the coupons are free either way (a lock being released cannot be burned).
        if (isProblem(err, 'coupon_lock_not_active', 'coupon_lock_not_found')) return;
        throw err;
      }),
    onRecord: async () => false,
    audit: auditNote(deps, ctx, 'coupon_release', { customerId: l.customerId, couponLockId: id }),
  });
  return couponLockView(lock.ended as CouponLock, deps.clock());
}

import { randomBytes } from 'node:crypto';
import { AppError, ConflictError, NotFoundError, ServiceUnavailableError } from '../../platform/errors';
import { isCouponRefusal, type CouponAnswer } from '../../upstream/coupon-answers';
import type { CouponLock, LockedCoupon } from '../coupon-locks/types';
import type { CallContext, PosDeps } from '../deps';
import type { CouponCheckBody } from '../coupon-schemas';
import { couponLockRefused, worthOf } from './coupon-verdicts';
import { definitelyRefused } from './payments';
import { merchantOf } from './store-merchant';

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
    totalWorth: round2(Math.min(l.basketTotal, l.coupons.reduce((s, c) => s + c.worth, 0))),
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
export async function lockCoupons(deps: PosDeps, ctx: CallContext, body: CouponCheckBody): Promise<CouponLockView> {
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
  if (!answer.lockReference) throw new ServiceUnavailableError('coupon_lock_unconfirmed', 'The loyalty service did not confirm the coupon lock; try again');
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
    releaseAt: expiresAt - deps.settings.holdSafetyMarginSeconds * 1000,
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
async function findCouponLock(deps: PosDeps, ctx: CallContext, id: string): Promise<CouponLock> {
  const l = await deps.couponLocks.get(id);
  if (!l || l.storeId !== ctx.identity.store.id) throw new NotFoundError('coupon_lock_not_found', `Coupon lock ${id} was not found`);
  return l;
}

export async function getCouponLock(deps: PosDeps, ctx: CallContext, id: string): Promise<CouponLockView> {
  return couponLockView(await findCouponLock(deps, ctx, id), deps.clock());
}

/**
 * The till voids the sale: the coupons go back to the customer now. The lock
 * is claimed for the release first (the compare-and-set a payment claims it
 * by, so of a release and a payment exactly one wins), then released upstream,
 * then recorded. Releasing a lock already released (or abandoned) answers it
 * again; a used one, or one a payment holds, is 409.
 */
export async function releaseCouponLock(deps: PosDeps, ctx: CallContext, id: string): Promise<CouponLockView> {
  const l = await findCouponLock(deps, ctx, id);
  if (l.state === 'released' || l.state === 'abandoned') return couponLockView(l, deps.clock());
  const claimed = await deps.couponLocks.change(id, deps.clock(), (cur) => {
    if (cur.state === 'used') return `coupon_lock_used:Coupon lock ${id} was used by payment ${cur.paymentId}`;
    if (cur.state !== 'locked') return `ended:it is ${cur.state}`;
    if (cur.paymentId) return `payment_in_progress:Coupon lock ${id} is being used by payment ${cur.paymentId}`;
    // A second release of the same lock (a till's retry) may carry on: releasing twice is harmless.
    return { ...cur, releasing: true };
  });
  if (!claimed.ok) {
    if (claimed.reason === 'not_found') throw new NotFoundError(NOT_FOUND, `Coupon lock ${id} was not found`);
    if (claimed.lock.state === 'released' || claimed.lock.state === 'abandoned') return couponLockView(claimed.lock, deps.clock());
    const [code, detail] = claimed.detail.split(/:(.*)/s);
    throw new ConflictError(code, detail, code === 'coupon_lock_used' ? { extra: { state: claimed.lock.state } } : undefined);
  }
  try {
    await deps.loyalty.couponRelease(l.lockReference, { requestId: ctx.requestId });
  } catch (err) {
    // Already released or lapsed upstream: the coupons are free either way.
    if (!(err instanceof AppError && (err.code === 'coupon_lock_not_active' || err.code === 'coupon_lock_not_found'))) {
      // Certainly not released: the claim is freed, so the lock can still be paid with or released again.
      if (err instanceof AppError && definitelyRefused(err)) {
        await deps.couponLocks.change(id, deps.clock(), (cur) => (cur.releasing ? { ...cur, releasing: undefined } : 'not releasing')).catch(() => undefined);
      }
      throw err;
    }
  }
  const result = await deps.couponLocks.change(id, deps.clock(), (cur) => (cur.state === 'locked' && cur.releasing ? { ...cur, state: 'released', releasing: undefined } : `it is ${cur.state}`));
  if (!result.ok) {
    if (result.reason === 'not_found') throw new NotFoundError(NOT_FOUND, `Coupon lock ${id} was not found`);
    // The sweeper abandoned it meanwhile, and released it upstream too.
    if (result.lock.state === 'abandoned') return couponLockView(result.lock, deps.clock());
    throw new ConflictError('coupon_lock_used', `Coupon lock ${id} changed while releasing: ${result.detail}`, { extra: { state: result.lock.state } });
  }
  return couponLockView(result.lock, deps.clock());
}

const NOT_FOUND = 'coupon_lock_not_found';

/**
 * Claims a lock for this payment: this store's, this customer's, `locked`,
 * not claimed by another payment, and not past its release time. The same
 * payment id may claim again (a till's retry), also once used.
 */
export async function claimCouponLock(deps: PosDeps, ctx: CallContext, id: string, customerId: string, paymentId: string): Promise<{ lock: CouponLock; retry: boolean }> {
  let retry = false;
  const now = deps.clock();
  const result = await deps.couponLocks.change(id, now, (cur) => {
    if (cur.storeId !== ctx.identity.store.id) return NOT_FOUND;
    if (cur.customerId !== customerId) return `coupon_lock_customer_mismatch:Coupon lock ${id} belongs to another customer`;
    if (cur.releasing) return `coupon_lock_not_active:Coupon lock ${id} is being released; lock the coupons again`;
    retry = cur.paymentId === paymentId;
    if (retry && (cur.state === 'locked' || cur.state === 'used')) return cur;
    if (cur.state === 'used') return `coupon_lock_used:Coupon lock ${id} was already used by payment ${cur.paymentId}`;
    if (cur.state !== 'locked') return `coupon_lock_not_active:Coupon lock ${id} is ${cur.state}; lock the coupons again`;
    if (cur.paymentId) return `coupon_lock_in_use:Coupon lock ${id} is already used by payment ${cur.paymentId}`;
    if (cur.releaseAt <= now) return `coupon_lock_not_active:Coupon lock ${id} has run out of time; lock the coupons again`;
    return { ...cur, paymentId };
  });
  if (!result.ok && (result.reason === 'not_found' || result.detail === NOT_FOUND)) throw new NotFoundError(NOT_FOUND, `Coupon lock ${id} was not found`);
  if (!result.ok) {
    const [code, detail] = result.detail.split(/:(.*)/s);
    throw new ConflictError(code, detail, { extra: code === 'coupon_lock_customer_mismatch' ? undefined : { state: result.lock.state } });
  }
  return { lock: result.lock, retry };
}

/**
 * After the payment: the coupons were burned, so the lock is used. The sale is
 * done upstream by now, so a failure here must not answer as if it were not:
 * the claim by this payment id already keeps every other payment off the lock,
 * and the same payment sent again answers as recorded.
 */
export async function markCouponLockUsed(deps: PosDeps, lock: CouponLock, paymentId: string): Promise<CouponLock> {
  try {
    const done = await deps.couponLocks.change(lock.id, deps.clock(), (cur) => (cur.paymentId === paymentId ? { ...cur, state: 'used' } : `it is ${cur.state}`));
    if (done.ok) return done.lock;
  } catch (err) {
    deps.logger.warn({ couponLockId: lock.id, paymentId, err: (err as Error).message }, 'coupon lock could not be marked used after the payment; it stays claimed by that payment');
  }
  return { ...lock, state: 'used' };
}

/** After a failed payment: a definite refusal frees the claim so the till can retry; an unknown outcome keeps it for the same payment id. */
export async function settleFailedCouponClaim(deps: PosDeps, lock: CouponLock, err: unknown): Promise<void> {
  if (!(err instanceof AppError) || !definitelyRefused(err)) return;
  await deps.couponLocks.change(lock.id, deps.clock(), (cur) => (cur.paymentId === lock.paymentId && cur.state === 'locked' ? { ...cur, paymentId: undefined } : 'not ours'));
}

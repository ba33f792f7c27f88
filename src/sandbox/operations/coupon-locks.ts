import type {
  CouponBurnRequest,
  CouponBurnResponse,
  CouponDetail,
  CouponReleaseResponse,
  CouponsValidateRequest,
  CouponsValidateResponse,
  CouponValidateRequest,
  CouponValidateResponse,
} from '../../contract';
import type { CouponSettings } from '../accounts';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import { loyaltyErrors } from '../errors';
import { newReference } from '../state/codes';
import { CouponLockRecord, couponLocksOf } from '../state/coupon-locks';
import type { CustomerRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { besideLock, countUses, offeredTo, refusalOf, view } from './coupons';
import { requireCustomer } from './customers';

/**
 * Coupon validation and locks (the coupon twin of the points hold). A lock
 * reserves its codes' uses for one customer until a payment names it
 * (`redemption.couponsLockReference`, which burns them), `POST /coupons/burn`
 * burns them, `DELETE /coupons/{lockReference}` releases them, or it lapses on
 * the sandbox clock. Every check runs before anything changes: one refused
 * code refuses the whole request and locks nothing.
 */

function detail(coupon: CouponSettings): CouponDetail {
  return {
    code: coupon.code,
    type: coupon.type,
    value: coupon.value,
    usageLimit: coupon.usageLimit,
    limitPerCustomer: coupon.limitPerCustomer,
    startDate: new Date(Date.parse(coupon.startDate)).toISOString(),
    expiryDate: new Date(Date.parse(coupon.expiryDate)).toISOString(),
    ...(coupon.capping !== undefined ? { capping: coupon.capping } : {}),
    ...(coupon.minOrderValue !== undefined ? { minOrderValue: coupon.minOrderValue } : {}),
  };
}

/** Checks every code for this customer and basket (a code named twice needs two uses); throws the first refusal. */
function checkCodes(
  ctx: SandboxContext,
  account: AccountEntry,
  c: CustomerRecord,
  codes: readonly string[],
  total: number | undefined,
  exceptLock?: string,
): CouponSettings[] {
  const now = ctx.clock.now();
  const times = new Map<string, number>();
  for (const code of codes) times.set(code, (times.get(code) ?? 0) + 1);
  const found: CouponSettings[] = [];
  for (const [code, n] of times) {
    const coupon = account.settings.coupons.find((k) => k.code === code);
    if (!coupon) throw loyaltyErrors.notFound(`Coupon "${code}" is not a coupon of this account`);
    if (!offeredTo(account.settings, coupon, c.id, c))
      throw loyaltyErrors.invalidValue(`Coupon "${code}" is not offered to customer "${c.id}"`, 'CouponNotOffered');
    const locked = couponLocksOf(account.ledger).reserved(code, c.id, now, exceptLock);
    const refused = refusalOf(view(account, coupon, c, now, exceptLock), n, now, locked);
    if (refused) throw loyaltyErrors.invalidValue(`Coupon "${code}" cannot be used: ${refused.why}`, refused.type);
    if (coupon.minOrderValue !== undefined && total !== undefined && total < coupon.minOrderValue) {
      throw loyaltyErrors.invalidValue(`Coupon "${code}" needs an order of at least ${coupon.minOrderValue}; this one is ${total}`, 'CouponMinimumOrderValue');
    }
    found.push(coupon);
  }
  return codes.map((code) => found.find((k) => k.code === code) as CouponSettings);
}

/** The lock a request replaces: this customer's, and still active. */
function replacedLock(ctx: SandboxContext, account: AccountEntry, reference: string, customerId: string): CouponLockRecord {
  const lock = couponLocksOf(account.ledger).get(reference, ctx.clock.now());
  if (!lock || lock.customerId !== customerId) throw loyaltyErrors.notFound(`lockReference "${reference}" was not found`);
  if (lock.state !== 'active') throw loyaltyErrors.invalidValue(`lockReference "${reference}" is ${lock.state}`, 'CouponLockNotActive');
  return lock;
}

function validate(ctx: SandboxContext, account: AccountEntry, req: CouponValidateRequest, codes: string[]) {
  const { settings } = account;
  const now = ctx.clock.now();
  requireChannelField(settings, req);
  const c = requireCustomer(account, req.customerId, req);
  const previous = req.lock && req.lockReference !== undefined ? replacedLock(ctx, account, req.lockReference, c.id) : undefined;
  const coupons = checkCodes(ctx, account, c, codes, req.totalPurchaseAmount, previous?.reference);
  if (!req.lock) return { coupons: coupons.map(detail) };
  const book = couponLocksOf(account.ledger);
  // A new list for an existing session: the old lock is released and the new list gets a new reference.
  if (previous) book.end(previous, 'released', now);
  const lock: CouponLockRecord = {
    reference: newReference('lock'),
    customerId: c.id,
    codes,
    state: 'active',
    createdAt: now,
    expiresAt: now + (req.lockDuration ?? settings.holdPeriodMinutes) * 60_000,
  };
  book.locks.set(lock.reference, lock);
  account.ledger.recordActivity(c, { type: 'Coupons Locked', at: now, properties: { lockReference: lock.reference, coupons: codes } });
  return { coupons: coupons.map(detail), lockReference: lock.reference, dateToExpire: ctx.clock.iso(lock.expiresAt) };
}

/** `POST /coupons/validate`. */
export function validateCoupons(ctx: SandboxContext, account: AccountEntry, req: CouponsValidateRequest): CouponsValidateResponse {
  const { coupons, ...lock } = validate(ctx, account, req, req.coupons);
  return { valid: true, coupons, ...lock };
}

/** `POST /coupons/{code}/validate`. */
export function validateCoupon(ctx: SandboxContext, account: AccountEntry, code: string, req: CouponValidateRequest): CouponValidateResponse {
  const { coupons, ...lock } = validate(ctx, account, req, [code]);
  return { valid: true, coupon: coupons[0], ...lock };
}

/** `DELETE /coupons/{lockReference}`: frees an active lock's coupons; any other state is 9001. */
export function releaseCouponLock(ctx: SandboxContext, account: AccountEntry, reference: string): CouponReleaseResponse {
  const now = ctx.clock.now();
  const lock = couponLocksOf(account.ledger).get(reference, now);
  if (!lock) throw loyaltyErrors.notFound(`lockReference "${reference}" was not found`);
  if (lock.state !== 'active') {
    const why = lock.state === 'burned' ? 'its coupons were already used' : lock.state === 'expired' ? 'it already expired' : 'it was already released';
    throw loyaltyErrors.alreadyCancelled(`Coupon lock "${reference}" cannot be released: ${why}`);
  }
  couponLocksOf(account.ledger).end(lock, 'released', now);
  return { success: true, releasedAt: ctx.clock.iso(now), releasedCoupons: [...new Set(lock.codes)] };
}

export interface LockBurn {
  codes: string[];
  /** Burns the lock's coupons; call once the transaction is certain to be recorded. */
  apply(c: CustomerRecord, transactionId: string): void;
}

/**
 * The lock a payment or burn names, checked without changing anything: it
 * must exist, be this customer's, and be active (burned, released and
 * expired locks are refused, so a coupon is never used twice).
 */
export function lockToBurn(ctx: SandboxContext, account: AccountEntry, reference: string, customerId: string): LockBurn {
  const now = ctx.clock.now();
  const book = couponLocksOf(account.ledger);
  const lock = book.get(reference, now);
  if (!lock || lock.customerId !== customerId) throw loyaltyErrors.notFound(`couponsLockReference "${reference}" was not found for customer "${customerId}"`);
  if (lock.state !== 'active') {
    const why = lock.state === 'burned' ? 'its coupons were already used' : lock.state;
    throw loyaltyErrors.invalidValue(`couponsLockReference "${reference}" is no longer active (${why})`, 'CouponLockNotActive');
  }
  return {
    codes: [...lock.codes],
    apply(c, transactionId) {
      countUses(account, c, lock.codes);
      book.end(lock, 'burned', ctx.clock.now(), transactionId);
    },
  };
}

/** `POST /coupons/burn`: burns a lock's coupons, or codes directly (checked like a payment's). */
export function burnCoupons(ctx: SandboxContext, account: AccountEntry, req: CouponBurnRequest): CouponBurnResponse {
  const now = ctx.clock.now();
  requireChannelField(account.settings, req);
  const c = requireCustomer(account, req.customerId, req);
  const txId = req.transactionId ?? newReference('burn');
  const fromLock = req.lockReference !== undefined ? lockToBurn(ctx, account, req.lockReference, c.id) : undefined;
  const extra = besideLock(req.coupons, fromLock?.codes);
  if (extra.length) checkCodes(ctx, account, c, extra, undefined);
  fromLock?.apply(c, txId);
  countUses(account, c, extra);
  account.ledger.recordActivity(c, { type: 'Coupons Burned', at: now, properties: { transactionId: txId, coupons: [...(fromLock?.codes ?? []), ...extra] } });
  return { success: true, burnedAt: ctx.clock.iso(now) };
}

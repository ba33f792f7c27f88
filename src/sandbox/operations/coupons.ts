import type { Coupon, CouponsResponse } from '../../contract';
import type { AccountSettings, CouponSettings } from '../accounts';
import type { SandboxContext } from '../context';
import { currentTierOf, tierOf } from '../domain/tiers';
import { loyaltyErrors } from '../errors';
import type { CustomerRecord } from '../state/records';
import type { AccountEntry } from '../state/store';
import { couponLocksOf } from '../state/coupon-locks';
import { requireCustomer } from './customers';

/**
 * Coupons come from the account's catalogue; every flag is computed against
 * the sandbox clock and the usage counts at the time of the call:
 * expired after `expiryDate`, active when switched on, started and not
 * expired, available when active and under both usage limits (0 = no limit).
 */

export function offeredTo(settings: AccountSettings, coupon: CouponSettings, customerId: string, c: CustomerRecord | undefined): boolean {
  const audience = coupon.audience;
  if (!audience || (audience.tiers === undefined && audience.customerIds === undefined)) return true;
  if (audience.customerIds?.includes(customerId)) return true;
  // A customer with no profile yet is in the entry tier.
  const tier = c ? currentTierOf(settings, c) : tierOf(settings, 0);
  return tier !== undefined && (audience.tiers?.includes(tier.order) ?? false);
}

export function view(account: AccountEntry, coupon: CouponSettings, c: CustomerRecord | undefined, now: number, exceptLock?: string): Coupon {
  const start = Date.parse(coupon.startDate);
  const expiry = Date.parse(coupon.expiryDate);
  const usedCount = account.ledger.couponUses.get(coupon.code) ?? 0;
  const customerUsedCount = c?.couponUsage?.get(coupon.code) ?? 0;
  // Uses reserved by live coupon locks are taken too, so a locked coupon cannot be spent twice.
  const locked = couponLocksOf(account.ledger).reserved(coupon.code, c?.id, now, exceptLock);
  const isExpired = now > expiry;
  const isActive = coupon.isActive && now >= start && !isExpired;
  const underLimit = coupon.usageLimit === 0 || usedCount + locked.all < coupon.usageLimit;
  const underCustomerLimit = coupon.limitPerCustomer === 0 || customerUsedCount + locked.customer < coupon.limitPerCustomer;
  return {
    name: coupon.name,
    code: coupon.code,
    value: coupon.value,
    type: LISTED_TYPE[coupon.type],
    target: coupon.target,
    currency: coupon.currency ?? account.settings.currency,
    startDate: new Date(start).toISOString(),
    expiryDate: new Date(expiry).toISOString(),
    isExpired,
    isActive,
    usageLimit: coupon.usageLimit,
    limitPerCustomer: coupon.limitPerCustomer,
    usedCount,
    customerUsedCount,
    isAvailableToUse: isActive && underLimit && underCustomerLimit,
    iconPath: coupon.iconPath,
  };
}

/** `GET /customers/:id/coupons`: the catalogue coupons offered to this customer, with their flags and counts. */
export function listCoupons(ctx: SandboxContext, account: AccountEntry, customerId: string): CouponsResponse {
  const c = requireCustomer(account, customerId);
  const now = ctx.clock.now();
  const coupons = account.settings.coupons.filter((coupon) => offeredTo(account.settings, coupon, c.id, c)).map((coupon) => view(account, coupon, c, now));
  return { coupons };
}

/** Uses reserved by live locks; `held` in a refusal's message. */
interface Reserved {
  all: number;
  customer: number;
}

/** Why a coupon cannot be used now (a v4.0 `type` and a sentence), or undefined when it can be used `times` more times. */
export function refusalOf(v: Coupon, times: number, now: number, locked: Reserved = { all: 0, customer: 0 }): { type: string; why: string } | undefined {
  if (now < Date.parse(v.startDate)) return { type: 'CouponNotStarted', why: `it starts at ${v.startDate}` };
  if (v.isExpired) return { type: 'CouponExpired', why: `it expired at ${v.expiryDate}` };
  if (!v.isActive) return { type: 'CouponInactive', why: 'it is not active' };
  if (v.usageLimit > 0 && v.usedCount + locked.all + times > v.usageLimit) {
    if (v.usedCount + times <= v.usageLimit) return { type: 'CouponLocked', why: 'its remaining uses are locked by another sale' };
    return { type: 'CouponUsageLimitReached', why: `its usage limit is reached (${v.usedCount} of ${v.usageLimit} used)` };
  }
  if (v.limitPerCustomer > 0 && v.customerUsedCount + locked.customer + times > v.limitPerCustomer) {
    if (v.customerUsedCount + times <= v.limitPerCustomer) return { type: 'CouponLocked', why: "the customer's remaining uses are locked by another sale" };
    return { type: 'CouponCustomerLimitReached', why: `the customer's limit is reached (${v.customerUsedCount} of ${v.limitPerCustomer} used)` };
  }
  return undefined;
}

function refusal(v: Coupon, times: number, now: number, locked?: Reserved): string | undefined {
  return refusalOf(v, times, now, locked)?.why;
}

export interface CouponUse {
  /** The codes used, as sent (a code named twice is used twice). */
  codes: string[];
  /** Counts the uses; call once the transaction is certain to be recorded. */
  apply(c: CustomerRecord): void;
}

/** Counts one use of each code named (a code named twice, twice): for the account and for the customer. */
export function countUses(account: AccountEntry, c: CustomerRecord, codes: readonly string[]): void {
  const mine = (c.couponUsage ??= new Map());
  for (const code of codes) {
    account.ledger.couponUses.set(code, (account.ledger.couponUses.get(code) ?? 0) + 1);
    mine.set(code, (mine.get(code) ?? 0) + 1);
  }
}

/** The codes named beside a lock, less those the lock holds (one each): they are burned through the lock, not checked or counted again. */
export function besideLock(codes: readonly string[] | undefined, lockCodes: readonly string[] | undefined): string[] {
  const rest = [...(codes ?? [])];
  for (const code of lockCodes ?? []) {
    const at = rest.indexOf(code);
    if (at >= 0) rest.splice(at, 1);
  }
  return rest;
}

/**
 * Checks the coupons a payment or order names, changing nothing: any code
 * that is unknown, not offered to the customer, or not available to use
 * (as many times as it is named) refuses the transaction with 422/3003.
 */
export function checkCoupons(ctx: SandboxContext, account: AccountEntry, customerId: string, codes: readonly string[] | undefined): CouponUse {
  const list = [...(codes ?? [])];
  if (list.length === 0) return { codes: [], apply() {} };
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  const c = ledger.customer(customerId);
  const times = new Map<string, number>();
  for (const code of list) times.set(code, (times.get(code) ?? 0) + 1);
  for (const [code, n] of times) {
    const coupon = settings.coupons.find((k) => k.code === code);
    if (!coupon) throw loyaltyErrors.invalidValue(`Coupon "${code}" is not a coupon of this account`, 'CouponNotFound');
    if (!offeredTo(settings, coupon, customerId, c))
      throw loyaltyErrors.invalidValue(`Coupon "${code}" is not offered to customer "${customerId}"`, 'CouponNotAvailable');
    const why = refusal(view(account, coupon, c, now), n, now, couponLocksOf(ledger).reserved(code, customerId, now));
    if (why) throw loyaltyErrors.invalidValue(`Coupon "${code}" cannot be used: ${why}`, 'CouponNotAvailable');
  }
  return {
    codes: list,
    apply(customer) {
      countUses(account, customer, list);
    },
  };
}

/** The customer coupon list names kinds in words; validate answers use the short mechanic (both as published). */
const LISTED_TYPE = { shipping: 'Free Shipping', fixed: 'Fixed Rate Discount', percentage: 'Percentage', product: 'Free Product' } as const;

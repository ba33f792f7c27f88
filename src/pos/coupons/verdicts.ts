import { AppError, UnprocessableError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import { isCouponRefusal, type CouponAnswer } from '../../upstream/coupon-answers';
import type { CouponCheckBody } from './schemas';
import type { CallContext, SharedDeps } from '../context';
import { merchantOf } from '../terminals/store-merchant';

const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;

/** Money a coupon takes off this basket: a fixed amount (at most the basket), a percentage (capped), or nothing for non-money rewards. */
export function worthOf(c: Partial<Pick<CouponAnswer, 'type' | 'value' | 'capping'>>, basketTotal: number): number {
  const value = c.value ?? 0;
  if (c.type === 'fixed') return round2(Math.min(value, basketTotal));
  // The published schema has no null for `capping`, so an uncapped coupon may carry 0: a cap of 0 or less caps nothing.
  const cap = c.capping !== undefined && c.capping > 0 ? c.capping : Infinity;
  if (c.type === 'percentage') return round2(Math.min((basketTotal * value) / 100, cap));
  return 0;
}

export interface CouponCheck {
  code: string;
  usable: boolean;
  /** Our code of why not (coupon_expired, coupon_exhausted, coupon_locked, ...); null when usable. */
  reason: string | null;
  type: string | null;
  value: number | null;
  worth: number;
}

const refused = (code: string, reason: string): CouponCheck => ({ code, usable: false, reason, type: null, value: null, worth: 0 });

/** The upstream's refusal of a coupon as our code, or the error again when it is not about the coupon. */
function refusalOf(err: unknown): string {
  if (err instanceof AppError && isCouponRefusal(err.code)) return err.code;
  throw err;
}

/**
 * The verdicts of one code named `times` times: the code alone first; when it
 * is usable and named again, the upstream is asked for two uses, three, ...
 * (nothing locked), so a copy beyond the customer's or the coupon's limit is
 * refused with the upstream's own reason, and the copies within it are not.
 */
async function checkCode(deps: Pick<SharedDeps, 'loyalty'>, ctx: CallContext, body: CouponCheckBody, code: string, times: number): Promise<CouponCheck[]> {
  // Checks lock nothing (lock: false): reads, bounded by the till's deadline, never a 202 "under way".
  const call = { requestId: ctx.requestId, readOnly: true };
  const ask = {
    customerId: body.customerId,
    email: body.email,
    mobile: body.mobile,
    lock: false,
    totalPurchaseAmount: body.basketTotal,
    merchantId: merchantOf(ctx.identity.store).uniqueId,
  };
  let alone: CouponCheck;
  try {
    const c: Partial<CouponAnswer> = (await deps.loyalty.couponValidate(code, ask, call)).coupon ?? { code };
    alone = { code, usable: true, reason: null, type: c.type ?? null, value: c.value ?? null, worth: worthOf(c, body.basketTotal) };
  } catch (err) {
    return Array.from({ length: times }, () => refused(code, refusalOf(err)));
  }
  const out = [alone];
  while (out.length < times) {
    try {
      await deps.loyalty.couponsValidate({ ...ask, coupons: Array.from({ length: out.length + 1 }, () => code) }, call);
      out.push(alone);
    } catch (err) {
      const reason = refusalOf(err);
      while (out.length < times) out.push(refused(code, reason));
    }
  }
  return out;
}

/**
 * One verdict per code named, in the till's order, nothing locked: what it is
 * worth, or why it is refused. A code named twice is checked for two uses.
 * Any failure that is not about a coupon (customer unknown, upstream down)
 * fails the whole check.
 */
export async function checkCoupons(
  deps: Pick<SharedDeps, 'loyalty'>,
  ctx: CallContext,
  body: CouponCheckBody,
): Promise<{ customerId: string; basketTotal: number; coupons: CouponCheck[] }> {
  const times = new Map<string, number>();
  for (const code of body.codes) times.set(code, (times.get(code) ?? 0) + 1);
  const byCode = new Map(await Promise.all([...times].map(async ([code, n]) => [code, await checkCode(deps, ctx, body, code, n)] as const)));
  const taken = new Map<string, number>();
  const coupons = body.codes.map((code) => {
    const i = taken.get(code) ?? 0;
    taken.set(code, i + 1);
    return byCode.get(code)![i];
  });
  return { customerId: body.customerId, basketTotal: body.basketTotal, coupons };
}

/**
 * The 422 of a refused lock: each code's verdict and the lock's own refusal
 * (`reason`). The verdicts are read after the refusal, one code at a time;
 * when none of them is refused, the codes were refused only together (or a
 * code changed in between), and the answer says so instead of "all usable".
 */
export async function couponLockRefused(
  deps: Pick<SharedDeps, 'loyalty'>,
  ctx: CallContext,
  body: CouponCheckBody,
  refusal: AppError,
): Promise<UnprocessableError> {
  const { coupons } = await checkCoupons(deps, ctx, body);
  const explained = coupons.some((c) => !c.usable);
  const detail = explained
    ? 'A coupon cannot be used for this sale; nothing was locked (see coupons for each code)'
    : 'The loyalty service refused these coupons together, though each can be used on its own now; nothing was locked (see reason)';
  return problem('coupon_refused', detail, { extra: { reason: refusal.code, coupons } });
}

import type { CallContext, SharedDeps } from '../context';
import type { SaleRecords } from '../sales/records';
import type { CouponLockStore } from '../coupons/locks/types';

/**
 * The published v4.0 interface has no way to give a used coupon back: the
 * refund request and answer carry no coupon, and no operation returns a
 * burned one. So a refund or void of a sale leaves the coupons its lock
 * burned used, and its answer and receipt say so.
 */
export interface CouponsNotReturned {
  /**
   * Codes the sale burned through its coupon lock, which this refund did not
   * give back; [] when the sale used no lock; null when not known (a sale
   * this BFF did not take or rebuilt from the upstream's record, or the lock
   * store could not be read).
   */
  couponsNotReturned: string[] | null;
}

export async function couponsNotReturned(
  deps: Pick<SharedDeps, 'logger'> & { couponLocks: Pick<CouponLockStore, 'usedBy'>; sales: Pick<SaleRecords, 'get'> },
  ctx: CallContext,
  paymentId: string,
): Promise<string[] | null> {
  const [used, sale] = await Promise.allSettled([deps.couponLocks.usedBy(paymentId), deps.sales.get('payment', paymentId)]);
  if (used.status === 'fulfilled' && used.value) return used.value;
  if (used.status === 'fulfilled' && sale.status === 'fulfilled') return sale.value && !sale.value.rebuilt ? [] : null;
  const err = (used.status === 'rejected' ? used.reason : (sale as PromiseRejectedResult).reason) as Error;
  deps.logger.warn({ requestId: ctx.requestId, paymentId, err: err.message }, 'the coupons a refunded sale used could not be read; couponsNotReturned is null');
  return null;
}

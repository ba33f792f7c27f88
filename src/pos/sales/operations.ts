import type { CallContext } from '../context';
import type { PaymentBody } from './schemas';
import { PaymentView, QueuedPayment, recordSale, type PaymentDeps } from './payments';
import { isQueued } from '../outbox/forward';
import type { ReceiptMode } from './receipt-query';
import { buildReceipt, readAfterSale, Receipt } from './receipt';
import { couponsApplied } from './totals';

/** What the sale use cases are given. */
export type SaleDeps = PaymentDeps;

export type SaleView = PaymentView & { couponLock?: { id: string; state: string; coupons: string[] }; receipt: Receipt | null };

/**
 * A sale at the till: points (a held redemption), coupons (a lock), both or
 * neither, recorded through the one claim -> act -> settle step (recordSale).
 * The answer carries the receipt block (unless `receipt` is `none`), read
 * after the payment: the till waits for the payment, then for one more round trip.
 */
export async function completeSale(deps: SaleDeps, ctx: CallContext, body: PaymentBody, receipt: ReceiptMode = 'full'): Promise<SaleView | QueuedPayment> {
  const { view, lock: used } = await recordSale(deps, ctx, body);
  if (isQueued(view)) return view;
  const reads = view.status === 'recorded' && receipt === 'full' ? readAfterSale(deps, ctx, body.customerId) : undefined;
  const block = reads
    ? await buildReceipt(deps, ctx, reads, {
        pointsEarned: view.pointsEarned ?? 0,
        pointsRedeemed: view.pointsRedeemed ?? 0,
        pointsGivenBack: 0,
        pointsTakenBack: 0,
        coupons: used ? couponsApplied(body, used) : undefined,
      })
    : null;
  return { ...view, ...(used ? { couponLock: { id: used.id, state: used.state, coupons: used.coupons.map((c) => c.code) } } : {}), receipt: block };
}

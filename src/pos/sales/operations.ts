import type { CallContext } from '../context';
import type { PaymentBody } from './schemas';
import { PaymentView, QueuedPayment, recordSale, type PaymentDeps } from './payments';
import { isQueued } from '../outbox/forward';
import type { ReceiptMode } from './receipt-query';
import { buildReceipt, readAfterSale, Receipt } from './receipt';
import { couponsApplied } from './totals';
import { POS_API_PREFIX } from '../api-prefix';

/** What the sale use cases are given. */
export type SaleDeps = PaymentDeps;

export type SaleView = PaymentView & { couponLock?: { id: string; state: string; coupons: string[] }; receipt: Receipt | null; receiptLocation?: string };

/** Left before the till's deadline for the answer itself: the recorded sale is answered 201 without its receipt rather than 202. */
const RECEIPT_MARGIN_MS = 150;

/**
 * The receipt, or null when its reads would end after the till stops waiting:
 * the sale is recorded, so the till gets 201 now (and where to read the
 * receipt), never a 202 for reads.
 */
async function inTimeOrNull<T>(ctx: CallContext, built: Promise<T>): Promise<T | null> {
  const till = ctx.till;
  if (!till?.bounding) return built;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, till.leftMs() - RECEIPT_MARGIN_MS));
  });
  try {
    return await Promise.race([built, late]);
  } finally {
    clearTimeout(timer);
  }
}

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
    ? await inTimeOrNull(
        ctx,
        buildReceipt(deps, ctx, reads, {
          pointsEarned: view.pointsEarned ?? 0,
          pointsRedeemed: view.pointsRedeemed ?? 0,
          pointsGivenBack: 0,
          pointsTakenBack: 0,
          coupons: used ? couponsApplied(body, used) : undefined,
        }),
      )
    : null;
  return {
    ...view,
    ...(used ? { couponLock: { id: used.id, state: used.state, coupons: used.coupons.map((c) => c.code) } } : {}),
    receipt: block,
    ...(reads && block === null ? { receiptLocation: `${POS_API_PREFIX}/payments/${encodeURIComponent(body.paymentId)}/receipt` } : {}),
  };
}

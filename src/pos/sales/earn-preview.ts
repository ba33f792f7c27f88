import type { PreviewLineItem } from '../../contract';
import { orderLine } from '../../upstream';
import type { EarnPreviewBody } from './schemas';
import { paymentLine } from './payments';
import type { CallContext, SharedDeps } from '../context';
import { merchantOf } from '../terminals/store-merchant';

/**
 * How many points a basket would earn, asked before the customer pays; reads
 * only. The lines go up as a sale recorded as an order sends them (the unit
 * price and quantity, or the line's total), so the loyalty service prices the
 * preview and the sale the same way.
 */
export async function previewEarn(deps: Pick<SharedDeps, 'loyalty'>, ctx: CallContext, body: EarnPreviewBody) {
  const answer = await deps.loyalty.rewardPreview(
    {
      customerId: body.customerId,
      totalPaid: body.totalPaid,
      channel: 'pos',
      merchant: merchantOf(ctx.identity.store),
      // A sale line's extra holds strings and numbers only, as a preview line's must.
      lineItems: body.lines.map((l, i) => orderLine(paymentLine(l), i) as PreviewLineItem),
    },
    { requestId: ctx.requestId },
  );
  return {
    customerId: body.customerId ?? null,
    points: answer.totalPoints ?? answer.cashback?.totalPoints ?? 0,
    lines: (answer.cashback?.lineItems ?? []).map((l, i) => ({
      serviceId: l.productId ?? body.lines[i]?.serviceId ?? `line-${i + 1}`,
      points: l.totalPoints ?? 0,
    })),
  };
}

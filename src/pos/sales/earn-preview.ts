import type { EarnPreviewBody } from './schemas';
import type { CallContext, SharedDeps } from '../context';
import { merchantOf } from '../terminals/store-merchant';

/**
 * How many points a basket would earn, asked before the customer pays; reads
 * only. The lines go up as the payment sends them (price = amount, less the
 * discount), so the loyalty service prices both the same way.
 */
export async function previewEarn(deps: Pick<SharedDeps, 'loyalty'>, ctx: CallContext, body: EarnPreviewBody) {
  const answer = await deps.loyalty.rewardPreview(
    {
      customerId: body.customerId,
      totalPaid: body.totalPaid,
      channel: 'pos',
      merchant: merchantOf(ctx.identity.store),
      lineItems: body.lines.map((l) => ({
        productId: l.serviceId,
        title: l.name,
        price: l.amount,
        quantity: 1,
        discount: l.discount !== undefined && l.discount > 0 ? l.discount : undefined,
        category: l.category,
        tags: l.tags,
      })),
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

import { AppError } from '../../platform/errors';
import type { CallContext, PosDeps } from '../deps';

/**
 * One summary for the till: balance, tier progress and coupons, fetched in
 * parallel. The balance is essential; tier and coupons are shown when they
 * come back and listed in `unavailable` when they do not.
 */
export async function customerSummary(deps: PosDeps, ctx: CallContext, customerId: string, lang?: string) {
  const c = { requestId: ctx.requestId };
  const [balance, tier, coupons] = await Promise.allSettled([
    deps.loyalty.balance(customerId, c),
    deps.loyalty.tierProgress(customerId, { lang }, c),
    deps.loyalty.coupons(customerId, c),
  ]);
  if (balance.status === 'rejected') throw balance.reason;
  const unavailable: string[] = [];
  for (const [name, result] of [['tier', tier], ['coupons', coupons]] as const) {
    if (result.status === 'rejected') {
      if (result.reason instanceof AppError && result.reason.code === 'customer_not_found') throw result.reason;
      unavailable.push(name);
      deps.logger.warn({ requestId: ctx.requestId, part: name, err: (result.reason as Error).message }, 'customer summary part unavailable');
    }
  }
  const b = balance.value;
  return {
    customerId,
    currency: b.currency,
    pointsName: b.pointsName,
    points: {
      available: b.availablePointsBalance,
      pending: b.pendingPoints,
      total: b.totalPointsBalance,
      held: b.heldPoints ?? null,
      earnedAllTime: b.totalEarnedPoints,
    },
    value: { available: b.availablePointsValue, pending: b.pendingPointsValue, total: b.totalPointsValue },
    tier:
      tier.status === 'fulfilled'
        ? { current: tier.value.current.name, next: tier.value.next?.name ?? null, progress: tier.value.progress, nextAt: tier.value.next?.minProgress ?? null }
        : null,
    coupons:
      coupons.status === 'fulfilled'
        ? coupons.value.coupons.map((cp) => ({ code: cp.code, name: cp.name, value: cp.value, currency: cp.currency, expiresAt: cp.expiryDate, usable: cp.isAvailableToUse }))
        : null,
    unavailable,
  };
}

export async function deleteCustomer(deps: PosDeps, ctx: CallContext, customerId: string) {
  await deps.loyalty.deleteCustomer(customerId, { requestId: ctx.requestId });
  return { customerId, deleted: true };
}

export async function customerHash(deps: PosDeps, ctx: CallContext, customerId: string) {
  const { hash } = await deps.loyalty.hash(customerId, { requestId: ctx.requestId });
  // What the kiosk renders as a QR code: customer id then hash (DESIGN.md section 3).
  return { customerId, hash, qr: `${customerId}:${hash}` };
}

import { displayWidth, fitWidth } from '../../platform/display-width';
import type { CallContext, SharedDeps } from '../context';

/** Printed columns of a receipt line. */
export const RECEIPT_WIDTH = 40;

export interface ReceiptFigures {
  pointsEarned: number;
  pointsRedeemed: number;
  /** Null when it could not be read (a refund's is read after it): printed as unknown. */
  pointsGivenBack: number | null;
  pointsTakenBack: number;
  /** Coupons the sale used: code and money off. */
  coupons?: { code: string; worth: number }[];
  /** Coupons a refunded sale used that stay used (see ../refunds/coupons-not-returned.ts). */
  couponsNotReturned?: string[];
}

export interface Receipt extends ReceiptFigures {
  /** Points the customer can spend now (available); pending points are not in it. */
  balanceAfter: number | null;
  pendingPoints: number | null;
  nextExpiring: { points: number; date: string } | null;
  tier: { current: string; next: string | null; progress: number; nextAt: number | null } | null;
  currency: string | null;
  pointsName: string | null;
  lines: string[];
}

/**
 * One receipt line: label left, value right, exactly `width` printed columns
 * (a double-width character takes two). A long label gives way, never the value.
 */
export function row(label: string, value: string, width = RECEIPT_WIDTH): string {
  const v = fitWidth(value, width);
  const room = width - displayWidth(v);
  if (room === 0) return v;
  const l = fitWidth(label, room - 1);
  return l + ' '.repeat(room - displayWidth(l)) + v;
}

export function centre(text: string, width = RECEIPT_WIDTH): string {
  const t = fitWidth(` ${text} `, width);
  const left = Math.floor((width - displayWidth(t)) / 2);
  return '-'.repeat(left) + t + '-'.repeat(width - left - displayWidth(t));
}

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/** The printable lines, in the account's points name and currency. */
export function receiptLines(r: Omit<Receipt, 'lines'>): string[] {
  const pts = r.pointsName ?? 'points';
  const out = [centre(`Loyalty ${pts}`)];
  if (r.pointsEarned) out.push(row('Earned', `+${fmt(r.pointsEarned)} ${pts}`));
  if (r.pointsRedeemed) out.push(row('Redeemed', `-${fmt(r.pointsRedeemed)} ${pts}`));
  if (r.pointsGivenBack === null) out.push(row('Given back', 'unknown'));
  else if (r.pointsGivenBack) out.push(row('Given back', `+${fmt(r.pointsGivenBack)} ${pts}`));
  if (r.pointsTakenBack) out.push(row('Taken back', `-${fmt(r.pointsTakenBack)} ${pts}`));
  for (const c of r.coupons ?? []) out.push(row(`Coupon ${c.code}`, `-${c.worth.toFixed(2)} ${r.currency ?? ''}`.trimEnd()));
  for (const code of r.couponsNotReturned ?? []) out.push(row(`Coupon ${code}`, 'not returned'));
  if (r.balanceAfter !== null) out.push(row('Balance', `${fmt(r.balanceAfter)} ${pts}`));
  if (r.pendingPoints) out.push(row('Pending', `${fmt(r.pendingPoints)} ${pts}`));
  if (r.nextExpiring) out.push(row(`Expiring ${r.nextExpiring.date.slice(0, 10)}`, `${fmt(r.nextExpiring.points)} ${pts}`));
  if (r.tier)
    out.push(
      row(
        `Tier ${r.tier.current}`,
        r.tier.next && r.tier.nextAt !== null ? `${fmt(Math.max(0, r.tier.nextAt - r.tier.progress))} to ${r.tier.next}` : 'top tier',
      ),
    );
  out.push('-'.repeat(RECEIPT_WIDTH));
  return out;
}

/** The reads the receipt needs after the write: started at once, side by side, and awaited only when the receipt is built. */
export type AfterSaleReads = Promise<
  [
    PromiseSettledResult<Awaited<ReturnType<SharedDeps['loyalty']['balance']>>>,
    PromiseSettledResult<Awaited<ReturnType<SharedDeps['loyalty']['tierProgress']>>>,
  ]
>;

/**
 * Balance (with pending and next expiry) and tier progress, read right after
 * the write: the published payment and refund answers carry none of them, so
 * they cost one more upstream round trip after it (see ./receipt-query.ts).
 * A read issued before the write finished could answer the balance before it.
 */
export function readAfterSale(deps: Pick<SharedDeps, 'loyalty'>, ctx: CallContext, customerId: string): AfterSaleReads {
  const c = { requestId: ctx.requestId };
  return Promise.allSettled([deps.loyalty.balance(customerId, c), deps.loyalty.tierProgress(customerId, {}, c)]);
}

/**
 * The receipt block of a sale, refund or void: the figures the write returned,
 * plus what `reads` found. Those reads are best effort: the sale is recorded
 * whatever they do, so a failed read leaves its fields null instead of failing
 * the answer.
 */
export async function buildReceipt(
  deps: Pick<SharedDeps, 'loyalty' | 'logger'>,
  ctx: CallContext,
  reads: AfterSaleReads,
  figures: ReceiptFigures,
): Promise<Receipt> {
  const [balance, tier] = await reads;
  const b = balance.status === 'fulfilled' ? balance.value : undefined;
  if (!b || tier.status === 'rejected')
    deps.logger.warn({ requestId: ctx.requestId, balance: balance.status, tier: tier.status }, 'receipt: a read after the sale failed; those fields are null');
  const expiring =
    b?.nextExpiringPointsAmount !== undefined && b.nextExpiringPointsAmount > 0 && b.nextExpiringPointsDate !== undefined
      ? { points: b.nextExpiringPointsAmount, date: new Date(b.nextExpiringPointsDate).toISOString() }
      : null;
  const base = {
    ...figures,
    coupons: figures.coupons,
    couponsNotReturned: figures.couponsNotReturned,
    // What the customer can spend now: the total also counts points still pending (a return window), shown on their own line.
    balanceAfter: b?.availablePointsBalance ?? null,
    pendingPoints: b?.pendingPoints ?? null,
    nextExpiring: expiring,
    tier:
      tier.status === 'fulfilled'
        ? { current: tier.value.current.name, next: tier.value.next?.name ?? null, progress: tier.value.progress, nextAt: tier.value.next?.minProgress ?? null }
        : null,
    currency: b?.currency ?? null,
    pointsName: b?.pointsName ?? null,
  };
  const { coupons: _coupons, couponsNotReturned: _notReturned, ...rest } = base;
  return { ...rest, lines: receiptLines(base) };
}

import type { PaymentDetail } from '../../contract';
import type { AccountSettings, TierSettings } from '../accounts';
import { loyaltyErrors } from '../errors';
import type { EarnLine } from '../state/records';
import { floorPoints } from './money';

export interface Earning {
  lines: EarnLine[];
  /** True when the lines are the request's `paymentDetails`. */
  itemised: boolean;
  points: number;
}

/** An order's line as published (track order, batch order, reward preview): a unit price, a quantity, a discount for the whole line. */
export interface OrderLine {
  productId?: string;
  sku?: string;
  price?: number;
  quantity?: number;
  discount?: number;
  category?: string[];
  tags?: string[];
}

/**
 * Order lines as the payment lines the earn rules read: price x quantity,
 * less the discount, under the product id (so a refund's `lineItems` name
 * them by `productId`). One conversion for tracked orders, batch orders and
 * previews, so a preview shows what the order then earns.
 */
export function orderLinesAsDetails(lines: OrderLine[] | undefined): PaymentDetail[] | undefined {
  return lines?.map((l, i) => ({
    serviceId: l.productId ?? l.sku ?? `line-${i + 1}`,
    amount: (l.price ?? 0) * (l.quantity ?? 1),
    discount: l.discount !== undefined && l.discount > 0 ? l.discount : undefined,
    category: l.category,
    tags: l.tags,
  }));
}

/**
 * Refuses a sale whose points could not be counted: lines whose amounts (an
 * order line's price x quantity) add up past the largest number, so their
 * shares of the total paid are NaN or 0, or a total that at the account's
 * best rate earns more points than a balance adds up exactly. Unchecked,
 * either leaves nulls in the customer's balance for good (NaN points, or a
 * points value past the largest number).
 */
export function requireCountableEarning(settings: AccountSettings, totalPaid: number, details: PaymentDetail[] | undefined): void {
  const linesTotal = (details ?? []).reduce((sum, d) => sum + (d.amount ?? 0), 0);
  if (!Number.isFinite(linesTotal)) throw loyaltyErrors.invalidValue('The line amounts (price x quantity) add up past the largest number an amount can be');
  const bestRate = Math.max(settings.earn.pointsPerUnit, ...settings.tiers.map((t) => t.earnRate ?? 0), ...settings.multipliers.map((m) => m.pointsPerUnit));
  if (totalPaid * bestRate > Number.MAX_SAFE_INTEGER) {
    throw loyaltyErrors.invalidValue(`totalPaid ${totalPaid} could earn more than ${Number.MAX_SAFE_INTEGER} points, more than a balance can count`);
  }
}

function clean(n: number): number {
  return Number(n.toFixed(6));
}

/** The best rate for a line: base earn rate, the customer's tier rate, or a matching multiplier. */
export function lineRate(settings: AccountSettings, tier: TierSettings | undefined, detail?: PaymentDetail): number {
  let rate = Math.max(settings.earn.pointsPerUnit, tier?.earnRate ?? 0);
  if (!detail) return rate;
  for (const m of settings.multipliers) {
    const hit = (m.category !== undefined && detail.category?.includes(m.category)) || (m.tag !== undefined && detail.tags?.includes(m.tag));
    if (hit) rate = Math.max(rate, m.pointsPerUnit);
  }
  return rate;
}

function line(serviceId: string, netAmount: number, paidAmount: number, rate: number, earns: boolean): EarnLine {
  const decimalPoints = earns ? clean(paidAmount * rate) : 0;
  return { serviceId, netAmount, paidAmount: clean(paidAmount), rate, decimalPoints, points: floorPoints(decimalPoints), refundedNet: 0, refundedPoints: 0 };
}

/**
 * Points for a payment. Per line: the line's share of what was actually paid
 * (`totalPaid` drives rewards, so lines are scaled down when points or coupons
 * paid part of them) times the highest applicable rate, rounded down per line.
 * Nothing is earned below the minimum spend, by a guest, or when points paid it all.
 */
export function computeEarning(
  settings: AccountSettings,
  tier: TierSettings | undefined,
  totalPaid: number,
  details: PaymentDetail[] | undefined,
  guest: boolean,
): Earning {
  const earns = !guest && totalPaid > 0 && totalPaid >= settings.earn.minimumSpend;
  const priced = (details ?? []).some((d) => (d.amount ?? 0) > 0);
  if (!details?.length || !priced) {
    const only = line('', totalPaid, totalPaid, lineRate(settings, tier), earns);
    return { lines: [only], itemised: false, points: only.points };
  }
  const nets = details.map((d) => Math.max(0, (d.amount ?? 0) - (d.discount ?? 0)));
  const sumNet = nets.reduce((a, b) => a + b, 0);
  const scale = sumNet > totalPaid && sumNet > 0 ? totalPaid / sumNet : 1;
  const lines = details.map((d, i) => line(d.serviceId ?? `line-${i + 1}`, nets[i], nets[i] * scale, lineRate(settings, tier, d), earns));
  return { lines, itemised: true, points: lines.reduce((sum, l) => sum + l.points, 0) };
}

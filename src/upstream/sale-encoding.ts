import { OPERATION_BUCKET, type LimitBucket, type PaymentDetail, type PaymentRequest, type RefundLineItem, type TrackOrderRequest } from '../contract';
import type { SaleAnswer } from './answers';
import type { LoyaltyCallContext } from './call';
import type { LoyaltyClient } from './client';

/**
 * How a sale is recorded upstream (SALES_RECORDED_AS): as a payment
 * (`POST /payments`, the seed's way, in the Transactions POST bucket beside
 * the holds) or as a tracked order (`POST /orders`, the published POS
 * guide's way, in the Orders bucket). Everything else about a sale is the
 * same either way: its id (the payment id is the order id), the hold and
 * coupons it names, its refunds (`reverseTransactionId` is that id), its
 * record (the order's transactions). The BFF builds every sale as a payment
 * request; an order is that request re-encoded at the moment it is sent, so
 * a queued or retried sale goes out the way it was first sent.
 */
export type SaleEncoding = 'payment' | 'order';

/** What an entry that names no encoding was sent as: entries of a release before orders, or of payment mode. */
export const encodingOf = (recordedAs: SaleEncoding | undefined): SaleEncoding => recordedAs ?? 'payment';

/** The mark a record keeps: only `order` is written, so a record without one reads as a payment (as older records do). */
export const encodingMark = (encoding: SaleEncoding): { recordedAs?: 'order' } => (encoding === 'order' ? { recordedAs: 'order' } : {});

/** A unit price the service keeps exactly (to the 0.001 the cashier API allows money in) that times `units` is `amount`; else none. */
function unitPrice(amount: number, units: number): number | undefined {
  const unit = Math.round((amount / units) * 1000) / 1000;
  return Math.abs(unit * units - amount) < 1e-9 ? unit : undefined;
}

/**
 * A payment line as an order line: the product id is the service id (so a
 * refund by lines names it the same way). A line of several units goes as its
 * unit price and quantity when the unit price is a whole figure (the loyalty
 * service multiplies them back), else as one line at its total with the
 * quantity kept in `extra`, so both ways earn on the same amount. The sku and
 * quantity a payment line carries in its `extra` become the order line's own
 * fields when they fit them, and stay in `extra` otherwise.
 */
export function orderLine(d: PaymentDetail, i: number): RefundLineItem {
  const { sku, quantity, ...rest } = d.extra ?? {};
  const amount = d.amount ?? 0;
  const unit = typeof quantity === 'number' && quantity > 0 ? unitPrice(amount, quantity) : undefined;
  const extra = {
    ...rest,
    ...(sku !== undefined && typeof sku !== 'string' ? { sku } : {}),
    ...(quantity !== undefined && unit === undefined ? { quantity } : {}),
  };
  return {
    productId: d.serviceId ?? `line-${i + 1}`,
    ...(unit !== undefined ? { quantity: quantity as number, price: unit } : { price: amount }),
    ...(typeof sku === 'string' ? { sku } : {}),
    ...(d.serviceName !== undefined ? { title: d.serviceName } : {}),
    ...(d.serviceProvider !== undefined ? { vendor: d.serviceProvider } : {}),
    ...(d.tax !== undefined ? { taxes: d.tax } : {}),
    ...(d.discount !== undefined ? { discount: d.discount } : {}),
    ...(d.category !== undefined ? { category: d.category } : {}),
    ...(d.tags !== undefined ? { tags: d.tags } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

/** The tracked order a sale's payment request stands for: the same ids, totals, customer fields, redemption and lines. */
export function asTrackedOrder(p: PaymentRequest): TrackOrderRequest {
  const totalPrice = p.totalAmount ?? p.totalPaid + (p.totalDiscount ?? 0);
  return {
    customerId: p.customerId,
    orderId: p.paymentId,
    orderDate: p.paymentDate,
    totalPaid: p.totalPaid,
    ...(p.email !== undefined ? { email: p.email } : {}),
    ...(p.mobile !== undefined ? { mobile: p.mobile } : {}),
    // The sale before discounts: a payment's amount. The POS guide requires it of an order, the schema only wants it positive:
    // without the till's figure, what was paid plus the discount the till rang up (left out when that is 0, a sale paid in points).
    ...(totalPrice > 0 ? { totalPrice } : {}),
    ...(p.totalDiscount !== undefined ? { totalDiscount: p.totalDiscount } : {}),
    ...(p.totalTax !== undefined ? { totalTax: p.totalTax } : {}),
    ...(p.paymentDetails ? { lineItems: p.paymentDetails.map(orderLine) } : {}),
    ...(p.redemption ? { redemption: p.redemption } : {}),
    ...(p.extra ? { extra: p.extra } : {}),
    ...(p.merchant ? { merchant: p.merchant } : {}),
    ...(p.guest !== undefined ? { guest: p.guest } : {}),
    ...(p.channel ? { channel: p.channel } : {}),
    ...(p.cashbackConfigurations ? { cashbackConfigurations: p.cashbackConfigurations } : {}),
  };
}

/** Sends a sale the way it is recorded; the answer reads the same either way. */
export function sendSale(
  loyalty: Pick<LoyaltyClient, 'payment' | 'trackOrder'>,
  encoding: SaleEncoding,
  request: PaymentRequest,
  ctx: LoyaltyCallContext,
): Promise<SaleAnswer> {
  return encoding === 'order' ? loyalty.trackOrder(asTrackedOrder(request), ctx) : loyalty.payment(request, ctx);
}

/** The published bucket a sale is counted in, recorded this way (a payment beside the holds; an order in Orders). */
export const saleBucket = (encoding: SaleEncoding): LimitBucket => OPERATION_BUCKET[encoding === 'order' ? 'trackOrder' : 'payment'];

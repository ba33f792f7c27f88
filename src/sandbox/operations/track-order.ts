import type { OrderItem, TrackOrderRequest, TrackOrderResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { orderLinesAsDetails } from '../domain/earn';
import type { AccountEntry } from '../state/store';
import { Purchase, recordPurchase } from './purchases';

/**
 * An order as the sale the ledger records: its lines (price x quantity, less
 * the discount) earn as a payment's `paymentDetails` do, else its totals do.
 * Tracked and batch orders both go through here (a batch order without its
 * lines: it earns on its totals).
 */
export function orderPurchase(order: OrderItem): Purchase {
  return {
    id: order.orderId,
    kind: 'order',
    customerId: order.customerId,
    email: order.email,
    mobile: order.mobile,
    totalPaid: order.totalPaid,
    details: orderLinesAsDetails(order.lineItems),
    guest: order.guest,
    redemption: order.redemption,
    returnWindowDays: order.cashbackConfigurations?.returnWindow,
    merchant: order.merchant,
    activity: { type: 'Order Processed', properties: { ...order } },
  };
}

/**
 * `POST /orders` (Track Order): the order is recorded as a payment is: the
 * hold and coupons its `redemption` names are redeemed, points are awarded by
 * the account's earn rules (pending for the return window), the customer's
 * profile is created when new, and an order id already recorded is 9004.
 */
export function trackOrder(ctx: SandboxContext, account: AccountEntry, req: TrackOrderRequest): TrackOrderResponse {
  const tx = recordPurchase(ctx, account, orderPurchase(req));
  return {
    customerId: tx.customerId,
    redeemedPoints: tx.redeemedPoints,
    rewardedPoints: tx.earnedPoints,
    lineItems: tx.itemised
      ? tx.lines.map((l, i) => ({
          productId: l.serviceId,
          quantity: req.lineItems?.[i]?.quantity ?? 1,
          decimalPoints: l.decimalPoints,
          points: l.points,
          score: 0,
        }))
      : [],
  };
}

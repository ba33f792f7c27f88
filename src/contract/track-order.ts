import { z } from 'zod';
import { OrderItem } from './order';

/**
 * `POST /orders` (Track Order): the published order, the same shape a batch
 * order item has. Required are the four fields the published schema requires;
 * the POS guide (track-orders.mdx) marks `totalPrice` required too, but the
 * schema does not, and the schema wins.
 */
export const TrackOrderRequest = OrderItem;
export type TrackOrderRequest = z.infer<typeof TrackOrderRequest>;

/** One reward line of a tracked order (element of the answer's `lineItems`). */
export const OrderRewardLine = z.object({
  productId: z.string(),
  quantity: z.number(),
  decimalPoints: z.number(),
  points: z.number(),
  /** Published with every line; the sandbox keeps no per-line score, so it is 0. */
  score: z.number(),
});
export type OrderRewardLine = z.infer<typeof OrderRewardLine>;

/**
 * The answer as the published schema has it. The POS guide's example shows
 * `orderId`, `pointsEarned`, `pointsRedeemed` and `status` instead; the schema
 * wins, so they are not sent (`rewardedPoints` is what the guide's
 * `pointsEarned` repeats, `redeemedPoints` its `pointsRedeemed`).
 */
export const TrackOrderResponse = z.object({
  customerId: z.string(),
  redeemedPoints: z.number(),
  rewardedPoints: z.number(),
  /** One per line item sent; empty when the order had none (points then come from its totals). */
  lineItems: z.array(OrderRewardLine),
});
export type TrackOrderResponse = z.infer<typeof TrackOrderResponse>;

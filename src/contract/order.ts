import { z } from 'zod';
import { CashbackConfigurations, PaymentRedemption } from './payment';
import { Channel, ChannelMergingFields, CustomerId, DateTime, FreeExtra, Merchant, NonNegativeMoney } from './common';
import { RefundLineItem } from './refund';

export const MAX_BATCH_ORDERS = 1000;

/**
 * One order of a batch: the four fields the spec lists (required, as the
 * reference says) and the other fields of the published order.
 */
export const OrderItem = z.strictObject({
  customerId: CustomerId,
  orderId: z.string().min(1).max(200),
  orderDate: DateTime,
  totalPaid: NonNegativeMoney,
  ...ChannelMergingFields,
  totalPrice: NonNegativeMoney.optional(),
  totalDiscount: NonNegativeMoney.optional(),
  totalShipping: NonNegativeMoney.optional(),
  totalTax: NonNegativeMoney.optional(),
  /** Same line fields as a refund's. */
  lineItems: z.array(RefundLineItem).max(500).optional(),
  redemption: PaymentRedemption.optional(),
  extra: FreeExtra.optional(),
  merchant: Merchant.optional(),
  guest: z.boolean().optional(),
  channel: Channel.optional(),
  cartId: z.string().max(200).optional(),
  cashbackConfigurations: CashbackConfigurations.optional(),
});
export type OrderItem = z.infer<typeof OrderItem>;

export const BatchOrdersRequest = z.strictObject({
  body: z.array(OrderItem).min(1).max(MAX_BATCH_ORDERS),
});
export type BatchOrdersRequest = z.infer<typeof BatchOrdersRequest>;

export const BatchOrdersResponse = z.object({ jobId: z.number().int() });
export type BatchOrdersResponse = z.infer<typeof BatchOrdersResponse>;

/** The published batch states. */
export const BatchJobStatus = z.enum(['pending', 'processing', 'completed', 'failed']);
export type BatchJobStatus = z.infer<typeof BatchJobStatus>;

/** An order of the batch that was recorded (element of `results`; the item shape is the sandbox's, the reference types only `array`). */
export const BatchItemResult = z.object({
  index: z.number().int(),
  orderId: z.string(),
  customerId: z.string(),
  rewardedPoints: z.number(),
});
export type BatchItemResult = z.infer<typeof BatchItemResult>;

/** An order of the batch that was refused (element of `errors`), with the v4.0 code and message it would have had alone. */
export const BatchItemError = z.object({
  index: z.number().int(),
  orderId: z.string(),
  customerId: z.string(),
  code: z.number().int(),
  message: z.string(),
});
export type BatchItemError = z.infer<typeof BatchItemError>;

/** `GET /batches/{batchId}/status`. */
export const BatchStatusResponse = z.object({
  /** The `jobId` of the batch answer, as a string. */
  batchId: z.string(),
  status: BatchJobStatus,
  /** Percent of the orders processed, 0 to 100. */
  progress: z.number(),
  totalItems: z.number().int(),
  processedItems: z.number().int(),
  failedItems: z.number().int(),
  results: z.array(BatchItemResult),
  errors: z.array(BatchItemError),
});
export type BatchStatusResponse = z.infer<typeof BatchStatusResponse>;

import { z } from 'zod';
import { Channel, ChannelMergingFields, CustomerId, DateTime, Merchant, NonNegativeMoney } from './common';
import { PaymentRedemption } from './payment';

export const MAX_BATCH_ORDERS = 1000;

/** Other order fields are "not shown"; these four are settled as required. */
export const OrderItem = z.strictObject({
  customerId: CustomerId,
  orderId: z.string().min(1).max(200),
  orderDate: DateTime,
  totalPaid: NonNegativeMoney,
  ...ChannelMergingFields,
  guest: z.boolean().optional(),
  channel: Channel.optional(),
  merchant: Merchant.optional(),
  redemption: PaymentRedemption.optional(),
});
export type OrderItem = z.infer<typeof OrderItem>;

export const BatchOrdersRequest = z.strictObject({
  body: z.array(OrderItem).min(1).max(MAX_BATCH_ORDERS),
});
export type BatchOrdersRequest = z.infer<typeof BatchOrdersRequest>;

export const BatchOrdersResponse = z.object({ jobId: z.number().int() });
export type BatchOrdersResponse = z.infer<typeof BatchOrdersResponse>;

export const BatchJobStatus = z.enum(['queued', 'running', 'completed', 'failed']);

export const BatchItemResult = z.object({
  index: z.number().int(),
  orderId: z.string(),
  customerId: z.string(),
  success: z.boolean(),
  rewardedPoints: z.number().optional(),
  error: z.object({ code: z.number().int(), message: z.string() }).optional(),
});
export type BatchItemResult = z.infer<typeof BatchItemResult>;

export const BatchStatusResponse = z.object({
  jobId: z.number().int(),
  status: BatchJobStatus,
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  results: z.array(BatchItemResult),
});
export type BatchStatusResponse = z.infer<typeof BatchStatusResponse>;

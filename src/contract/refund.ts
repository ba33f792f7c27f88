import { z } from 'zod';
import { ChannelMergingFields, CustomerId, DateTime, FreeExtra, Merchant, NonNegativeMoney } from './common';

/** A refunded item; `productId` matches the original payment line's `serviceId`. */
export const RefundLineItem = z.strictObject({
  productId: z.string().min(1).max(200),
  quantity: z.number().finite().positive().optional(),
  price: NonNegativeMoney,
  sku: z.string().max(200).optional(),
  tags: z.array(z.string().max(200)).max(100).optional(),
  category: z.array(z.string().max(200)).max(100).optional(),
  weight: z.number().finite().nonnegative().optional(),
  vendor: z.string().max(200).optional(),
  collection: z.array(z.string().max(200)).max(100).optional(),
  title: z.string().max(500).optional(),
  taxes: NonNegativeMoney.optional(),
  discount: NonNegativeMoney.optional(),
  extra: FreeExtra.optional(),
});
export type RefundLineItem = z.infer<typeof RefundLineItem>;

export const RefundRequest = z.strictObject({
  customerId: CustomerId,
  refundTransactionId: z.string().min(1).max(200),
  reverseTransactionId: z.string().min(1).max(200),
  transactionTime: DateTime,
  ...ChannelMergingFields,
  refundAmount: z.number().finite().positive().nullable().optional(),
  merchant: Merchant.optional(),
  lineItems: z.array(RefundLineItem).min(1).max(500).optional(),
});
export type RefundRequest = z.infer<typeof RefundRequest>;

export const RefundResponse = z.object({
  gameballTransactionId: z.string(),
  refundTransactionId: z.string(),
  refundAmount: z.number(),
  refundEquivalentPoints: z.number(),
});
export type RefundResponse = z.infer<typeof RefundResponse>;

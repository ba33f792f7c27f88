import { z } from 'zod';

export const OrderTransactionType = z.enum([
  'AchievementReward',
  'PaymentReward',
  'Payment',
  'Refund',
  'PartialRefund',
  'Redemption',
  'Expiry',
  'Cancel',
  'Migration',
  'ManualAccumulation',
  'DiscountCode',
  'ManualDeduction',
  'ManualReward',
]);
export type OrderTransactionType = z.infer<typeof OrderTransactionType>;

/** One loyalty transaction of an order; `transactionId` is the merchant's id of it (the payment's, or the refund's). */
export const OrderTransaction = z.object({
  transactionDate: z.string(),
  gameballTransactionId: z.number().int(),
  transactionType: OrderTransactionType,
  amount: z.number(),
  transactionId: z.string(),
  equivalentPoints: z.number(),
});
export type OrderTransaction = z.infer<typeof OrderTransaction>;

/** `GET /orders/{orderId}/transactions`. */
export const OrderTransactionsResponse = z.object({ transactions: z.array(OrderTransaction), count: z.number().int() });
export type OrderTransactionsResponse = z.infer<typeof OrderTransactionsResponse>;

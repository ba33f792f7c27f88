import { z } from 'zod';
import { Channel, ChannelMergingFields, CustomerId, DateTime, Extra, Merchant, NonNegativeMoney } from './common';

const Positive = z.number().finite().positive();

export const PaymentDetail = z.strictObject({
  serviceId: z.string().min(1).max(200).optional(),
  serviceName: z.string().max(500).optional(),
  serviceProvider: z.string().max(500).optional(),
  amount: NonNegativeMoney.optional(),
  /** Positive (spec, Limits). */
  tax: Positive.optional(),
  /** Positive (spec, Limits). */
  discount: Positive.optional(),
  tags: z.array(z.string().max(200)).max(100).optional(),
  category: z.array(z.string().max(200)).max(100).optional(),
  extra: Extra.optional(),
});
export type PaymentDetail = z.infer<typeof PaymentDetail>;

export const PaymentRedemption = z.strictObject({
  pointsHoldReference: z.string().min(1).max(200).optional(),
  couponsLockReference: z.string().min(1).max(200).optional(),
  couponCodes: z.array(z.string().min(1).max(100)).max(50).optional(),
});
export type PaymentRedemption = z.infer<typeof PaymentRedemption>;

export const CashbackConfigurations = z.strictObject({
  returnWindow: z.number().int().min(0).max(7300),
});

export const PaymentRequest = z.strictObject({
  customerId: CustomerId,
  paymentId: z.string().min(1).max(200),
  paymentDate: DateTime,
  totalPaid: NonNegativeMoney,
  ...ChannelMergingFields,
  /** Positive; history only. */
  totalAmount: Positive.optional(),
  totalDiscount: NonNegativeMoney.optional(),
  totalProcessingFees: NonNegativeMoney.optional(),
  totalTax: NonNegativeMoney.optional(),
  paymentDetails: z.array(PaymentDetail).max(500).optional(),
  redemption: PaymentRedemption.optional(),
  merchant: Merchant.optional(),
  guest: z.boolean().optional(),
  channel: Channel.optional(),
  cashbackConfigurations: CashbackConfigurations.optional(),
  extra: Extra.optional(),
});
export type PaymentRequest = z.infer<typeof PaymentRequest>;

export const RewardLine = z.object({
  serviceId: z.string(),
  decimalPoints: z.number(),
  points: z.number(),
  /** Published with every line; the sandbox keeps no per-line score, so it is 0. */
  score: z.number(),
});
export type RewardLine = z.infer<typeof RewardLine>;

export const PaymentResponse = z.object({
  customerId: z.string(),
  redeemedPoints: z.number(),
  rewardedPoints: z.number(),
  paymentDetails: z.array(RewardLine),
});
export type PaymentResponse = z.infer<typeof PaymentResponse>;

import { z } from 'zod';
import { Channel, ChannelMergingFields, CustomerId, Extra, NonNegativeMoney } from './common';

const Name = z.string().max(500);

export const PreviewLineItem = z.strictObject({
  productId: z.string().min(1).max(200).optional(),
  sku: z.string().max(200).optional(),
  title: Name.optional(),
  quantity: NonNegativeMoney.optional(),
  price: NonNegativeMoney.optional(),
  discount: NonNegativeMoney.optional(),
  taxes: NonNegativeMoney.optional(),
  weight: NonNegativeMoney.optional(),
  vendor: z.string().max(200).optional(),
  tags: z.array(z.string().max(200)).max(100).optional(),
  category: z.array(z.string().max(200)).max(100).optional(),
  collection: z.array(z.string().max(200)).max(100).optional(),
  extra: Extra.optional(),
});
export type PreviewLineItem = z.infer<typeof PreviewLineItem>;

/** `POST /orders/reward-preview`: what an order would earn, changing nothing. */
export const RewardPreviewRequest = z.strictObject({
  customerId: CustomerId.optional(),
  ...ChannelMergingFields,
  totalPaid: NonNegativeMoney,
  totalPrice: NonNegativeMoney.optional(),
  totalDiscount: NonNegativeMoney.optional(),
  totalShipping: NonNegativeMoney.optional(),
  totalTax: NonNegativeMoney.optional(),
  lineItems: z.array(PreviewLineItem).max(500).optional(),
  merchant: z
    .strictObject({
      uniqueId: z.string().max(200).optional(),
      name: z.string().max(200).optional(),
      branch: z.strictObject({ uniqueId: z.string().max(200).optional(), name: z.string().max(200).optional() }).optional(),
    })
    .optional(),
  channel: Channel.optional(),
  extra: Extra.optional(),
});
export type RewardPreviewRequest = z.infer<typeof RewardPreviewRequest>;

export const PreviewCashbackLine = z.object({
  productId: z.string(),
  quantity: z.number(),
  totalPoints: z.number(),
  totalScore: z.number(),
  totalDecimalPoints: z.number(),
  rewardWalletFactor: z.number(),
  campaignId: z.number().int().nullable(),
  campaignName: z.string().nullable(),
  campaignEndDate: z.string().nullable(),
  campaignImpactPoints: z.number(),
  campaignImpactWalletFactor: z.number(),
});

export const RewardPreviewResponse = z.object({
  customerId: z.string(),
  customerFound: z.boolean(),
  totalPoints: z.number().int(),
  totalCoupons: z.number().int(),
  cashback: z.object({ totalPoints: z.number(), totalScore: z.number(), lineItems: z.array(PreviewCashbackLine) }),
  /** Event-based campaigns; the sandbox runs none on orders, so null. */
  eventRewards: z.null(),
});
export type RewardPreviewResponse = z.infer<typeof RewardPreviewResponse>;

import { z } from 'zod';
import { one, routesGiven, TILL } from '../http/route';
import { refundExamples } from '../refunds/examples';
import { QueuedSaleRefundSchema, SaleRefundSchema } from '../refunds/schemas';
import { receiptExample, saleExamples } from './examples';
import * as sale from './schemas';
import { previewEarn } from './earn-preview';
import { completeSale } from './operations';
import { voidCompletedSale, type SaleRefundDeps } from '../refunds/sale-refunds';
import { readPayment, readReceipt } from './readback';
import { ReceiptQuery } from './receipt-query';

import type { SaleDeps } from './operations';

const route = routesGiven<SaleDeps & SaleRefundDeps>();

const paymentId = (description: string) => z.object({ paymentId: sale.PaymentIdParam.shape.paymentId.meta({ description, example: 'sale-1001' }) });

/** Sales: the earn preview, the payment (with held points and locked coupons), reading it back, voiding it. */
export const SALE_ROUTES = [
  route({
    method: 'post',
    path: '/payments',
    operationId: 'recordPayment',
    tag: 'Payments',
    roles: TILL,
    summary: 'Record a sale (and pay with held points)',
    description:
      "Sends the payment with the terminal's merchant and branch and channel `pos`. With `redemptionId`, the held points pay part of the sale; " +
      "the redemption must be this store's, this customer's, `held`, and not about to expire. Retrying the same `paymentId` is safe. " +
      'Without a redemption, a payment the loyalty service cannot take now is queued (202) and delivered later; with one it fails (503), as the hold would lapse.',
    query: ReceiptQuery,
    body: {
      schema: sale.PaymentBody,
      examples: {
        plain: { summary: 'A plain sale, no points (works as is against the bundled sandbox)', value: saleExamples.plainSale },
        points: { summary: '80.00 paid, 20.00 with points', value: saleExamples.payment },
        pointsAndCoupon: { summary: 'Points and a coupon lock together', value: saleExamples.pointsAndCoupon },
      },
    },
    success: { status: 201, description: 'Recorded, with the receipt block', schema: sale.SalePaymentSchema, example: saleExamples.paymentWithCoupon },
    queued: { schema: sale.QueuedPaymentSchema, example: saleExamples.queuedPayment },
    callsLoyalty: true,
    codes: [
      'coupon_lock_not_found',
      'redemption_not_found',
      'coupon_lock_customer_mismatch',
      'coupon_lock_not_active',
      'coupon_lock_used',
      'hold_not_active',
      'payment_id_taken',
      'redemption_customer_mismatch',
      'redemption_expiring',
      'redemption_in_use',
      'redemption_not_held',
      'redemption_busy',
      'coupon_lock_busy',
      'write_unconfirmed',
      'channel_field_required',
      'coupon_lock_basket_changed',
      'coupon_unavailable',
      'payment_totals_inconsistent',
      'total_amount_required',
      'redis_unavailable',
      'retry_same_request',
    ],
    handle: (deps, ctx, { query, body }) => completeSale(deps, ctx, body, query.receipt),
  }),
  route({
    method: 'post',
    path: '/payments/:paymentId/void',
    operationId: 'voidSale',
    tag: 'Payments',
    roles: ['manager'],
    summary: 'Void a completed sale: its full refund (manager)',
    description:
      'The refund id defaults to `void-<paymentId>`, so voiding twice cannot refund twice. The coupons the sale burned stay used (the loyalty service ' +
      'has no way to give one back): `couponsNotReturned` names them, and so does the receipt.',
    params: paymentId('The paymentId of the completed sale'),
    query: ReceiptQuery,
    body: { schema: sale.SaleVoidBody, examples: one('Void sale-1001', saleExamples.saleVoid) },
    success: {
      status: 200,
      description: 'Refunded, with the receipt block',
      schema: SaleRefundSchema,
      example: { ...refundExamples.refunded, refundId: 'void-sale-1001' },
    },
    queued: { schema: QueuedSaleRefundSchema, example: { ...refundExamples.queuedRefund, refundId: 'void-sale-1001', couponsNotReturned: ['WELCOME10'] } },
    callsLoyalty: true,
    codes: [
      'customer_not_found',
      'original_transaction_not_found',
      'sale_not_found',
      'refund_id_taken',
      'sale_already_voided',
      'sale_owner_unknown',
      'sale_void_in_progress',
      'retry_same_request',
      'redis_unavailable',
    ],
    handle: (deps, ctx, { params, query, body }) => voidCompletedSale(deps, ctx, params.paymentId, body, query.receipt),
  }),
  route({
    method: 'post',
    path: '/earn-preview',
    operationId: 'previewEarn',
    tag: 'Payments',
    roles: TILL,
    summary: 'Points a basket would earn, before the customer pays (reads only)',
    description: 'Priced by the same rules as the payment: send the same lines and `totalPaid` and the payment earns `points`.',
    body: { schema: sale.EarnPreviewBody, examples: one('One line', saleExamples.preview) },
    success: { status: 200, description: 'The preview', schema: sale.EarnPreviewSchema, example: saleExamples.previewed },
    callsLoyalty: true,
    readsOnly: true,
    codes: [],
    handle: (deps, ctx, { body }) => previewEarn(deps, ctx, body),
  }),
  route({
    method: 'get',
    path: '/payments/:paymentId',
    operationId: 'getPayment',
    tag: 'Payments',
    roles: TILL,
    summary: "What a sale did at the loyalty service (this store's sales)",
    description:
      "For a till that lost an answer: read before retrying. 404 when the sale is another store's, unknown, or not delivered yet (queued). " +
      'With `customerId`, a sale this BFF has no record of (its data was lost) is found at the loyalty service by the branch it carried.',
    params: paymentId("The sale's paymentId"),
    query: sale.PaymentReadbackQuery,
    success: { status: 200, description: 'The sale', schema: sale.PaymentReadbackSchema, example: saleExamples.paymentRead },
    callsLoyalty: true,
    codes: ['payment_not_found', 'redis_unavailable'],
    handle: (deps, ctx, { params, query }) => readPayment(deps, ctx, params.paymentId, query.customerId),
  }),
  route({
    method: 'get',
    path: '/payments/:paymentId/receipt',
    operationId: 'getPaymentReceipt',
    tag: 'Payments',
    roles: TILL,
    summary: "A sale's receipt block, when the sale was answered without it (`receiptLocation`)",
    description:
      "The points the sale earned and redeemed as the loyalty service lists them, with the customer's balance and tier now. 404 as GET /payments/{paymentId}.",
    params: paymentId("The sale's paymentId"),
    success: { status: 200, description: 'The receipt block', schema: sale.ReceiptSchema.unwrap(), example: receiptExample },
    callsLoyalty: true,
    codes: ['payment_not_found'],
    handle: (deps, ctx, { params }) => readReceipt(deps, ctx, params.paymentId),
  }),
];

import { z } from 'zod';
import { routesGiven, TILL } from '../http/route';
import { refundSale } from './sale-refunds';
import { readRefund } from '../sales/readback';
import { ReceiptQuery } from '../sales/receipt-query';
import { refundExamples } from './examples';
import { QueuedSaleRefundSchema, RefundBody, RefundIdParam, RefundReadbackSchema, SaleRefundSchema } from './schemas';

import type { SaleRefundDeps } from './sale-refunds';

const route = routesGiven<SaleRefundDeps>();

/** Refunds: in full, by amount or by lines, and reading one back. */
export const REFUND_ROUTES = [
  route({
    method: 'post',
    path: '/refunds',
    operationId: 'refund',
    tag: 'Payments',
    roles: ['manager'],
    rolesFor: (settings) => (settings.refundRequiresManager ? ['manager'] : TILL),
    summary: 'Refund a sale in full, by amount, or by lines (manager; cashiers too when REFUND_REQUIRES_MANAGER=false)',
    query: ReceiptQuery,
    body: {
      schema: RefundBody,
      examples: { full: { summary: 'Full refund', value: refundExamples.refundFull }, lines: { summary: 'One line back', value: refundExamples.refundLines } },
    },
    success: { status: 201, description: 'Refunded, with the receipt block', schema: SaleRefundSchema, example: refundExamples.refunded },
    queued: { schema: QueuedSaleRefundSchema, example: { ...refundExamples.queuedRefund, couponsNotReturned: [] } },
    callsLoyalty: true,
    codes: [
      'customer_not_found',
      'original_transaction_not_found',
      'sale_not_found',
      'refund_id_taken',
      'sale_owner_unknown',
      'write_unconfirmed',
      'channel_field_required',
      'refund_exceeds_remaining',
      'sale_owner_unreadable',
      'retry_same_request',
    ],
    handle: (deps, ctx, { query, body }) => refundSale(deps, ctx, body, query.receipt),
  }),
  route({
    method: 'get',
    path: '/refunds/:refundId',
    operationId: 'getRefund',
    tag: 'Payments',
    roles: TILL,
    summary: "What a refund did at the loyalty service (this store's refunds)",
    params: z.object({ refundId: RefundIdParam.shape.refundId.meta({ description: 'The refundId', example: 'ref-2001' }) }),
    success: { status: 200, description: 'The refund', schema: RefundReadbackSchema, example: refundExamples.refundRead },
    callsLoyalty: true,
    codes: ['refund_not_found', 'redis_unavailable'],
    handle: (deps, ctx, { params }) => readRefund(deps, ctx, params.refundId),
  }),
];

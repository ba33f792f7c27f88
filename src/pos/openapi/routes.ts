import { z } from 'zod';
import type { TerminalRole } from '../terminals/types';
import * as outbox from '../outbox/schemas';
import * as res from '../response-schemas';
import { ReceiptQuery } from '../sales/receipt-query';
import * as req from '../schemas';
import type { ErrorName } from './components';
import { examples as ex, OUTBOX_ID, REDEMPTION_ID } from './examples';
import * as sale from '../coupons/schemas';
import { COUPON_ROUTES, couponExamples, saleExamples } from '../coupons/route-docs';
import { CUSTOMER_ROUTES } from '../customers/route-docs';

/**
 * Every cashier route, as the OpenAPI document describes it. The route files
 * stay the source of behaviour; test/docs/openapi.test.ts checks this list
 * against the routes the app really serves, both ways.
 */
export interface PosRouteDoc {
  method: 'get' | 'put' | 'post' | 'delete';
  /** Express form, below /pos/v1. */
  path: string;
  operationId: string;
  tag: 'Customers' | 'Redemptions' | 'Payments' | 'Engagement' | 'Outbox';
  summary: string;
  description?: string;
  roles: TerminalRole[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: { schema: z.ZodType; examples: Record<string, { summary: string; value: unknown }> };
  success: { status: 200 | 201 | 202; description: string; schema: z.ZodType; example: unknown; location?: boolean };
  /** The 202 answer when the write was queued in the outbox (the upstream was out of reach). */
  queued?: { schema: z.ZodType; example: unknown };
  errors: ErrorName[];
}

const p = {
  customerId: z.object({ id: req.CustomerIdParam.shape.id.meta({ description: 'The loyalty customer id', example: 'alice' }) }),
  redemptionId: z.object({ id: req.RedemptionIdParam.shape.id.meta({ description: 'The redemption id from POST /redemptions', example: REDEMPTION_ID }) }),
  paymentId: z.object({ paymentId: req.PaymentIdParam.shape.paymentId.meta({ description: 'The paymentId of the completed sale', example: 'sale-1001' }) }),
  jobId: z.object({ jobId: req.JobIdParam.shape.jobId.meta({ description: 'The jobId from POST /orders/batch', example: '17' }) }),
  outboxId: z.object({ id: outbox.OutboxIdParam.shape.id.meta({ description: 'The outboxId of a queued write', example: OUTBOX_ID }) }),
};

const one = (summary: string, value: unknown) => ({ default: { summary, value } });
const TILL: TerminalRole[] = ['cashier', 'manager'];
const READ_ERRORS: ErrorName[] = ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'BadGateway', 'ServiceUnavailable'];
const WRITE_ERRORS: ErrorName[] = [
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'Conflict',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'Unprocessable',
  'TooManyRequests',
  'BadGateway',
  'ServiceUnavailable',
];
/** POST /redemptions: its 409 is mostly the per-terminal cap on open redemptions. */
const START_ERRORS = WRITE_ERRORS.map((e): ErrorName => (e === 'Conflict' ? 'StartRedemptionConflict' : e));

export const POS_ROUTES: PosRouteDoc[] = [
  {
    method: 'get',
    path: '/customers/:id',
    operationId: 'getCustomerSummary',
    tag: 'Customers',
    roles: TILL,
    summary: "A customer's points, tier and coupons",
    description:
      'Balance, tier progress and coupons are read in parallel. The balance is required; tier and coupons are `null` and listed in `unavailable` when they could not be read.',
    params: p.customerId,
    query: req.TierQuery,
    success: { status: 200, description: 'The summary', schema: res.CustomerSummarySchema, example: ex.customerSummary },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/customers/:id/hash',
    operationId: 'getCustomerHash',
    tag: 'Customers',
    roles: ['kiosk'],
    summary: 'The rotating hash to show as a QR code (kiosk)',
    params: p.customerId,
    success: { status: 200, description: 'The current hash and the QR payload', schema: res.CustomerHashSchema, example: ex.customerHash },
    errors: READ_ERRORS,
  },
  {
    method: 'delete',
    path: '/customers/:id',
    operationId: 'deleteCustomer',
    tag: 'Customers',
    roles: ['manager'],
    summary: 'Delete a customer and their data (manager)',
    params: p.customerId,
    success: { status: 200, description: 'Deleted', schema: res.CustomerDeletedSchema, example: ex.customerDeleted },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/customers/:id/delete',
    operationId: 'deleteCustomerPost',
    tag: 'Customers',
    roles: ['manager'],
    summary: 'Delete a customer (POST form, for tills that cannot send DELETE)',
    params: p.customerId,
    success: { status: 200, description: 'Deleted', schema: res.CustomerDeletedSchema, example: ex.customerDeleted },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/redemptions',
    operationId: 'startRedemption',
    tag: 'Redemptions',
    roles: TILL,
    summary: 'Start a redemption: hold points by amount, points or rule',
    description:
      "Places a hold on the customer's points. With OTP on and no `otp` given, the customer is sent a code and the redemption is `otp_required`: " +
      'send the code to POST /redemptions/{id}/otp. Name the redemption in POST /payments before `expiresAt` (less a safety margin). ' +
      'A terminal may have at most MAX_OPEN_REDEMPTIONS_PER_TERMINAL redemptions open (`otp_required` or `held`) at once; one more is 409 `too_many_open_redemptions`.',
    body: {
      schema: req.StartRedemptionBody,
      examples: {
        byPoints: { summary: 'Hold 200 points (customer id and hash)', value: ex.startByPoints },
        byQr: { summary: 'Hold 20.00 of value, customer from a scanned QR code', value: ex.startByQr },
        withOtp: { summary: 'With the OTP the customer read out', value: ex.startWithOtp },
      },
    },
    success: {
      status: 201,
      description: 'The redemption: `held`, or `otp_required`',
      schema: res.RedemptionViewSchema,
      example: ex.redemptionHeld,
      location: true,
    },
    errors: START_ERRORS,
  },
  {
    method: 'post',
    path: '/redemptions/:id/otp',
    operationId: 'submitRedemptionOtp',
    tag: 'Redemptions',
    roles: TILL,
    summary: 'Place the hold with the OTP the customer read out',
    params: p.redemptionId,
    body: { schema: req.SubmitOtpBody, examples: one('The six digits', ex.submitOtp) },
    success: { status: 200, description: 'The redemption, now `held`', schema: res.RedemptionViewSchema, example: ex.redemptionHeld },
    errors: WRITE_ERRORS,
  },
  {
    method: 'get',
    path: '/redemptions/:id',
    operationId: 'getRedemption',
    tag: 'Redemptions',
    roles: TILL,
    summary: 'State of a redemption and seconds left on its hold',
    params: p.redemptionId,
    success: { status: 200, description: 'The redemption', schema: res.RedemptionViewSchema, example: ex.redemptionHeld },
    errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable'],
  },
  {
    method: 'post',
    path: '/redemptions/:id/void',
    operationId: 'voidRedemption',
    tag: 'Redemptions',
    roles: TILL,
    summary: 'Release the hold (the sale goes ahead without points, or is abandoned)',
    params: p.redemptionId,
    success: {
      status: 200,
      description: 'The redemption, now `voided`',
      schema: res.RedemptionViewSchema,
      example: { ...ex.redemptionHeld, state: 'voided', secondsLeft: 0 },
    },
    errors: WRITE_ERRORS,
  },
  {
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
      schema: req.PaymentBody,
      examples: {
        points: { summary: '80.00 paid, 20.00 with points', value: ex.payment },
        pointsAndCoupon: { summary: 'Points and a coupon lock together', value: couponExamples.payment },
      },
    },
    success: { status: 201, description: 'Recorded, with the receipt block', schema: sale.SalePaymentSchema, example: saleExamples.paymentWithCoupon },
    queued: { schema: res.QueuedPaymentSchema, example: ex.queuedPayment },
    errors: WRITE_ERRORS,
  },
  {
    method: 'post',
    path: '/payments/:paymentId/void',
    operationId: 'voidSale',
    tag: 'Payments',
    roles: ['manager'],
    summary: 'Void a completed sale: its full refund (manager)',
    description:
      'The refund id defaults to `void-<paymentId>`, so voiding twice cannot refund twice. The coupons the sale burned stay used (the loyalty service ' +
      'has no way to give one back): `couponsNotReturned` names them, and so does the receipt.',
    params: p.paymentId,
    query: ReceiptQuery,
    body: { schema: req.SaleVoidBody, examples: one('Void sale-1001', ex.saleVoid) },
    success: {
      status: 200,
      description: 'Refunded, with the receipt block',
      schema: sale.SaleRefundSchema,
      example: { ...saleExamples.refunded, refundId: 'void-sale-1001' },
    },
    queued: { schema: sale.QueuedSaleRefundSchema, example: { ...ex.queuedRefund, refundId: 'void-sale-1001', couponsNotReturned: ['WELCOME10'] } },
    errors: WRITE_ERRORS,
  },
  {
    method: 'post',
    path: '/refunds',
    operationId: 'refund',
    tag: 'Payments',
    roles: ['manager'],
    summary: 'Refund a sale in full, by amount, or by lines (manager; cashiers too when REFUND_REQUIRES_MANAGER=false)',
    query: ReceiptQuery,
    body: {
      schema: req.RefundBody,
      examples: { full: { summary: 'Full refund', value: ex.refundFull }, lines: { summary: 'One line back', value: ex.refundLines } },
    },
    success: { status: 201, description: 'Refunded, with the receipt block', schema: sale.SaleRefundSchema, example: saleExamples.refunded },
    queued: { schema: sale.QueuedSaleRefundSchema, example: { ...ex.queuedRefund, couponsNotReturned: [] } },
    errors: WRITE_ERRORS,
  },
  {
    method: 'post',
    path: '/events',
    operationId: 'recordEvents',
    tag: 'Engagement',
    roles: ['cashier', 'manager', 'kiosk'],
    summary: 'Send customer events (store visit, survey answered, ...)',
    body: { schema: req.EventsBody, examples: one('A store visit', ex.events) },
    success: { status: 200, description: 'Sent on', schema: res.EventsAcceptedSchema, example: ex.eventsAccepted },
    queued: { schema: res.QueuedEventsSchema, example: ex.queuedEvents },
    errors: WRITE_ERRORS,
  },
  {
    method: 'post',
    path: '/orders/batch',
    operationId: 'uploadOrders',
    tag: 'Engagement',
    roles: TILL,
    summary: 'Upload sales rung up offline (end of day)',
    body: { schema: req.BatchOrdersBody, examples: one('One offline sale', ex.orders) },
    success: { status: 202, description: 'Accepted; poll the job', schema: res.OrderBatchAcceptedSchema, example: ex.ordersAccepted },
    queued: { schema: res.QueuedOrderBatchSchema, example: ex.queuedOrders },
    errors: WRITE_ERRORS,
  },
  {
    method: 'get',
    path: '/orders/batch/:jobId',
    operationId: 'getOrderBatch',
    tag: 'Engagement',
    roles: TILL,
    summary: 'Progress and failures of an order upload',
    params: p.jobId,
    success: { status: 200, description: 'The job', schema: res.OrderBatchStatusSchema, example: ex.orderStatus },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/outbox/:id',
    operationId: 'getOutboxEntry',
    tag: 'Outbox',
    roles: ['cashier', 'manager', 'kiosk'],
    summary: "State of a queued write (this store's)",
    description: 'queued -> delivering -> delivered, or dead (refused by the loyalty service, or too many attempts) -> retried or discarded.',
    params: p.outboxId,
    success: { status: 200, description: 'The entry', schema: outbox.OutboxEntryViewSchema, example: ex.outboxEntry },
    errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable'],
  },
  {
    method: 'get',
    path: '/outbox/dead',
    operationId: 'listDeadLetters',
    tag: 'Outbox',
    roles: ['manager'],
    summary: "This store's dead letters: queued writes that will not be delivered by themselves (manager)",
    query: outbox.DeadLetterQuery,
    success: { status: 200, description: 'Newest first', schema: outbox.DeadLettersSchema, example: { deadLetters: [ex.deadLetter] } },
    errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'ServiceUnavailable'],
  },
  {
    method: 'post',
    path: '/outbox/dead/:id/retry',
    operationId: 'retryDeadLetter',
    tag: 'Outbox',
    roles: ['manager'],
    summary: 'Put a dead letter back in the queue, once its cause is fixed (manager)',
    params: p.outboxId,
    success: {
      status: 200,
      description: 'Queued again',
      schema: outbox.OutboxEntryViewSchema,
      example: { ...ex.deadLetter, state: 'queued', deadAt: undefined },
    },
    errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable'],
  },
  {
    method: 'post',
    path: '/outbox/dead/:id/discard',
    operationId: 'discardDeadLetter',
    tag: 'Outbox',
    roles: ['manager'],
    summary: 'Give up on a dead letter: it never reaches the loyalty service (manager)',
    params: p.outboxId,
    success: { status: 200, description: 'Discarded', schema: outbox.OutboxEntryViewSchema, example: { ...ex.deadLetter, state: 'discarded' } },
    errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable'],
  },
  {
    method: 'delete',
    path: '/outbox/dead/:id',
    operationId: 'deleteDeadLetter',
    tag: 'Outbox',
    roles: ['manager'],
    summary: 'Discard a dead letter (DELETE form) (manager)',
    params: p.outboxId,
    success: { status: 200, description: 'Discarded', schema: outbox.OutboxEntryViewSchema, example: { ...ex.deadLetter, state: 'discarded' } },
    errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable'],
  },
  ...COUPON_ROUTES,
  ...CUSTOMER_ROUTES,
];

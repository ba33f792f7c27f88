import type { z } from 'zod';
import { Acknowledgement } from './common';
import {
  CouponBurnRequest,
  CouponBurnResponse,
  CouponReleaseResponse,
  CouponsValidateRequest,
  CouponsValidateResponse,
  CouponValidateRequest,
  CouponValidateResponse,
} from './coupon-lock';
import { BalanceResponse, CouponsResponse, DeleteCustomerResponse, HashResponse, TierProgressResponse } from './customer';
import { UpsertCustomerRequest, UpsertCustomerResponse } from './customer-profile';
import { EventRequest, EventResponse } from './event';
import { HoldLookupResponse, HoldRequest, HoldResponse, OtpRequest, OtpResponse } from './hold';
import { BatchOrdersRequest, BatchOrdersResponse, BatchStatusResponse } from './order';
import { OrderTransactionsResponse } from './order-transactions';
import { PaymentRequest, PaymentResponse } from './payment';
import { RewardPreviewRequest, RewardPreviewResponse } from './preview';
import { RedemptionConfigResponse } from './redemption-config';
import { RedeemRequest, RedeemResponse } from './redeem';
import { RefundRequest, RefundResponse } from './refund';
import { TrackOrderRequest, TrackOrderResponse } from './track-order';
import { TransactionsResponse } from './transactions';

export const API_PREFIX = '/api/v4.0/integrations';

/** Which keys an operation needs (spec, Authentication). */
export type KeyRequirement = 'apikey' | 'both';

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Express-style path below API_PREFIX. */
  path: string;
  keys: KeyRequirement;
  request?: z.ZodType;
  response: z.ZodType;
  summary: string;
  /** True for the operations the published reference adds to the spec's ten. */
  extension?: boolean;
}

/** Every operation of the v4.0 interface the sandbox serves and the BFF calls; paths and parameter names as published. */
export const OPERATIONS = {
  hold: {
    id: 'hold',
    method: 'POST',
    path: '/transactions/hold',
    keys: 'both',
    request: HoldRequest,
    response: HoldResponse,
    summary: 'Place loyalty points on hold',
  },
  batchOrders: {
    id: 'batchOrders',
    method: 'POST',
    path: '/batch/orders',
    keys: 'both',
    request: BatchOrdersRequest,
    response: BatchOrdersResponse,
    summary: 'Register orders in bulk',
  },
  payment: {
    id: 'payment',
    method: 'POST',
    path: '/payments',
    keys: 'both',
    request: PaymentRequest,
    response: PaymentResponse,
    summary: 'Register a payment and award points',
  },
  coupons: {
    id: 'coupons',
    method: 'GET',
    path: '/customers/:customerId/coupons',
    keys: 'both',
    response: CouponsResponse,
    summary: "List a customer's coupons",
  },
  trackOrder: {
    id: 'trackOrder',
    method: 'POST',
    path: '/orders',
    keys: 'both',
    request: TrackOrderRequest,
    response: TrackOrderResponse,
    summary: 'Track an order and award points',
    extension: true,
  },
  redeem: {
    id: 'redeem',
    method: 'POST',
    path: '/transactions/redeem',
    keys: 'both',
    request: RedeemRequest,
    response: RedeemResponse,
    summary: 'Redeem points (by amount, points or hold)',
    extension: true,
  },
  refund: {
    id: 'refund',
    method: 'POST',
    path: '/transactions/refund',
    keys: 'both',
    request: RefundRequest,
    response: RefundResponse,
    summary: 'Refund an earlier transaction',
  },
  tierProgress: {
    id: 'tierProgress',
    method: 'GET',
    path: '/customers/:customerId/tier-progress',
    keys: 'both',
    response: TierProgressResponse,
    summary: "Read a customer's tier progress",
  },
  deleteCustomer: {
    id: 'deleteCustomer',
    method: 'DELETE',
    path: '/customers/:customerId',
    keys: 'both',
    response: DeleteCustomerResponse,
    summary: 'Delete a customer and their data',
  },
  deleteCustomerPost: {
    id: 'deleteCustomerPost',
    method: 'POST',
    path: '/customers/:customerId/delete',
    keys: 'both',
    response: DeleteCustomerResponse,
    summary: 'Delete a customer (POST form)',
  },
  hash: {
    id: 'hash',
    method: 'GET',
    path: '/customers/:customerId/hash',
    keys: 'both',
    response: HashResponse,
    summary: "Get a customer's current redemption hash",
  },
  events: { id: 'events', method: 'POST', path: '/events', keys: 'apikey', request: EventRequest, response: EventResponse, summary: 'Record customer events' },
  holdLookup: {
    id: 'holdLookup',
    method: 'GET',
    path: '/transactions/hold/:holdReferenceId',
    keys: 'both',
    response: HoldLookupResponse,
    summary: 'Look up a hold',
    extension: true,
  },
  holdCancel: {
    id: 'holdCancel',
    method: 'DELETE',
    path: '/transactions/hold/:holdReferenceId',
    keys: 'both',
    response: Acknowledgement,
    summary: 'Release a hold',
    extension: true,
  },
  otp: {
    id: 'otp',
    method: 'POST',
    path: '/transactions/otp',
    keys: 'both',
    request: OtpRequest,
    response: OtpResponse,
    summary: 'Send the customer a one-time password',
    extension: true,
  },
  balance: {
    id: 'balance',
    method: 'GET',
    path: '/customers/:customerId/balance',
    keys: 'both',
    response: BalanceResponse,
    summary: "Read a customer's points balance",
    extension: true,
  },
  batchStatus: {
    id: 'batchStatus',
    method: 'GET',
    path: '/batches/:batchId/status',
    keys: 'both',
    response: BatchStatusResponse,
    summary: 'Read a batch job status',
    extension: true,
  },
  couponsValidate: {
    id: 'couponsValidate',
    method: 'POST',
    path: '/coupons/validate',
    keys: 'both',
    request: CouponsValidateRequest,
    response: CouponsValidateResponse,
    summary: 'Validate several coupons, and lock them',
    extension: true,
  },
  couponValidate: {
    id: 'couponValidate',
    method: 'POST',
    path: '/coupons/:code/validate',
    keys: 'both',
    request: CouponValidateRequest,
    response: CouponValidateResponse,
    summary: 'Validate one coupon, and lock it',
    extension: true,
  },
  couponBurn: {
    id: 'couponBurn',
    method: 'POST',
    path: '/coupons/burn',
    keys: 'both',
    request: CouponBurnRequest,
    response: CouponBurnResponse,
    summary: 'Burn coupons (by code or lock)',
    extension: true,
  },
  couponRelease: {
    id: 'couponRelease',
    method: 'DELETE',
    path: '/coupons/:lockReference',
    keys: 'both',
    response: CouponReleaseResponse,
    summary: 'Release a coupon lock',
    extension: true,
  },
  rewardPreview: {
    id: 'rewardPreview',
    method: 'POST',
    path: '/orders/reward-preview',
    keys: 'apikey',
    request: RewardPreviewRequest,
    response: RewardPreviewResponse,
    summary: 'Preview the points an order would earn',
    extension: true,
  },
  orderTransactions: {
    id: 'orderTransactions',
    method: 'GET',
    path: '/orders/:orderId/transactions',
    keys: 'both',
    response: OrderTransactionsResponse,
    summary: "List an order's loyalty transactions",
    extension: true,
  },
  transactions: {
    id: 'transactions',
    method: 'GET',
    path: '/transactions',
    keys: 'both',
    response: TransactionsResponse,
    summary: "List the account's transactions (by customer)",
    extension: true,
  },
  upsertCustomer: {
    id: 'upsertCustomer',
    method: 'POST',
    path: '/customers',
    keys: 'apikey',
    request: UpsertCustomerRequest,
    response: UpsertCustomerResponse,
    summary: 'Create a customer profile, or update the existing one',
    extension: true,
  },
  redemptionConfig: {
    id: 'redemptionConfig',
    method: 'GET',
    path: '/configurations/redemption',
    keys: 'apikey',
    response: RedemptionConfigResponse,
    summary: 'Read the redemption factor and rules',
    extension: true,
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;

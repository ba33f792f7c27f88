import {
  BatchOrdersRequest,
  EventRequest,
  HoldRequest,
  OtpRequest,
  PaymentRequest,
  RedeemRequest,
  RefundRequest,
  TrackOrderRequest,
  TierExpansion as TierExpansionSchema,
  TierProgressQuery,
  UpsertCustomerRequest,
} from '../contract';
import { problem } from '../platform/problem';
import { parseOrThrow } from '../platform/validation';
import type {
  AnswerOf,
  BalanceAnswer,
  BatchOrdersAnswer,
  BatchStatusAnswer,
  CouponsAnswer,
  HashAnswer,
  HoldAnswer,
  HoldLookupAnswer,
  PaymentAnswer,
  RedeemAnswer,
  RefundAnswer,
  SaleAnswer,
  TierProgressAnswer,
  UpsertCustomerAnswer,
} from './answers';
import { LoyaltyCallContext, LoyaltyCaller } from './call';
import type { CouponsValidateRequest, CouponValidateRequest, RewardPreviewRequest } from '../contract';
import type {
  CouponsValidateAnswer,
  CouponValidateAnswer,
  OrderTransactionsAnswer,
  RedemptionConfigAnswer,
  RewardPreviewAnswer,
  TransactionsAnswer,
} from './coupon-answers';

export type TierExpansion = 'tier' | 'referrals';
export interface TierProgressOptions {
  /** Language of the answer, e.g. `en`, `ar`, `pt-BR`. */
  lang?: string;
  /** A list, or the comma-separated form the spec uses. */
  expand?: readonly TierExpansion[] | string;
}

const LANG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/** The OTP request as the BFF gives it: `ruleId` as the till sent it (the reference wants an integer here). */
export type OtpCall = Omit<OtpRequest, 'ruleId'> & { ruleId?: string | number };

/** Nothing the BFF reads: the call succeeded. */
type Done = AnswerOf<'events'>;

/**
 * The BFF's client for the loyalty v4.0 interface: one method per operation,
 * each returning the answer as ./answers reads it, or throwing a platform
 * AppError (see ./errors for the codes). Keys come from configuration only.
 */
export class LoyaltyClient extends LoyaltyCaller {
  hold(request: HoldRequest, ctx?: LoyaltyCallContext): Promise<HoldAnswer> {
    return this.call('hold', { body: request }, ctx);
  }

  batchOrders(request: BatchOrdersRequest, ctx?: LoyaltyCallContext): Promise<BatchOrdersAnswer> {
    return this.call('batchOrders', { body: request }, ctx);
  }

  /** A duplicate `paymentId` is thrown (`duplicate_transaction`): ./records tells whether it is this payment. */
  payment(request: PaymentRequest, ctx?: LoyaltyCallContext): Promise<PaymentAnswer> {
    return this.call('payment', { body: request }, ctx);
  }

  /** A sale as a tracked order (Track Order); a duplicate `orderId` is thrown as a payment's is. Answered in a payment answer's shape. */
  trackOrder(request: TrackOrderRequest, ctx?: LoyaltyCallContext): Promise<SaleAnswer> {
    return this.call('trackOrder', { body: request }, ctx);
  }

  coupons(customerId: string, ctx?: LoyaltyCallContext): Promise<CouponsAnswer> {
    return this.call('coupons', { params: { customerId } }, ctx);
  }

  /** Points spent now under the caller's `transactionId` (a stand-in's settlement); a duplicate id is thrown as `duplicate_transaction`. */
  redeem(request: RedeemRequest, ctx?: LoyaltyCallContext): Promise<RedeemAnswer> {
    return this.call('redeem', { body: request }, ctx);
  }

  refund(request: RefundRequest, ctx?: LoyaltyCallContext): Promise<RefundAnswer> {
    return this.call('refund', { body: request }, ctx);
  }

  async tierProgress(customerId: string, options: TierProgressOptions = {}, ctx?: LoyaltyCallContext): Promise<TierProgressAnswer> {
    const headers: Record<string, string> = {};
    if (options.lang !== undefined) {
      if (!LANG.test(options.lang)) {
        throw problem('validation_failed', 'Invalid lang: must be a language tag such as "en" or "pt-BR"', {
          errors: [{ path: 'lang', message: 'must be a language tag such as "en" or "pt-BR"' }],
        });
      }
      headers.lang = options.lang;
    }
    const expand =
      typeof options.expand === 'string'
        ? parseOrThrow(TierProgressQuery, { expand: options.expand }, 'expand').expand
        : parseOrThrow(TierExpansionSchema.array(), options.expand ?? [], 'expand');
    const query = expand.length ? { expand: [...new Set(expand)].join(',') } : undefined;
    return this.call('tierProgress', { params: { customerId }, headers, query }, ctx);
  }

  /** Uses DELETE; the POST form exists only for clients that cannot send DELETE. */
  deleteCustomer(customerId: string, ctx?: LoyaltyCallContext): Promise<Done> {
    return this.call('deleteCustomer', { params: { customerId } }, ctx);
  }

  hash(customerId: string, ctx?: LoyaltyCallContext): Promise<HashAnswer> {
    return this.call('hash', { params: { customerId } }, ctx);
  }

  events(request: EventRequest, ctx?: LoyaltyCallContext): Promise<Done> {
    return this.call('events', { body: request }, ctx);
  }

  holdLookup(holdReference: string, ctx?: LoyaltyCallContext): Promise<HoldLookupAnswer> {
    return this.call('holdLookup', { params: { holdReferenceId: holdReference } }, ctx);
  }

  holdCancel(holdReference: string, ctx?: LoyaltyCallContext): Promise<Done> {
    return this.call('holdCancel', { params: { holdReferenceId: holdReference } }, ctx);
  }

  otp(request: OtpCall, ctx?: LoyaltyCallContext): Promise<Done> {
    return this.call('otp', { body: { ...request, ruleId: wholeNumber(request.ruleId) } }, ctx);
  }

  balance(customerId: string, ctx?: LoyaltyCallContext): Promise<BalanceAnswer> {
    return this.call('balance', { params: { customerId } }, ctx);
  }

  /** Get-or-create: the profile of `customerId` is created, or updated with the fields sent (never duplicated). */
  upsertCustomer(request: UpsertCustomerRequest, ctx?: LoyaltyCallContext): Promise<UpsertCustomerAnswer> {
    return this.call('upsertCustomer', { body: request }, ctx);
  }

  batchStatus(jobId: number | string, ctx?: LoyaltyCallContext): Promise<BatchStatusAnswer> {
    return this.call('batchStatus', { params: { batchId: jobId } }, ctx);
  }

  // Coupons, preview, order transactions, redemption configuration: answers read tolerantly (./coupon-answers).

  couponsValidate(request: CouponsValidateRequest, ctx?: LoyaltyCallContext): Promise<CouponsValidateAnswer> {
    return this.call('couponsValidate', { body: request }, ctx);
  }

  couponValidate(code: string, request: CouponValidateRequest, ctx?: LoyaltyCallContext): Promise<CouponValidateAnswer> {
    return this.call('couponValidate', { params: { code }, body: request }, ctx);
  }

  async couponRelease(lockReference: string, ctx?: LoyaltyCallContext): Promise<void> {
    await this.call('couponRelease', { params: { lockReference } }, ctx);
  }

  rewardPreview(request: RewardPreviewRequest, ctx?: LoyaltyCallContext): Promise<RewardPreviewAnswer> {
    return this.call('rewardPreview', { body: request }, ctx);
  }

  orderTransactions(orderId: string, ctx?: LoyaltyCallContext): Promise<OrderTransactionsAnswer> {
    return this.call('orderTransactions', { params: { orderId } }, ctx);
  }

  /** One page of a customer's transactions (`startAfter`: the last page's last `gameballTransactionId`). */
  transactions(query: { customerId: string; startAfter?: string; limit?: number }, ctx?: LoyaltyCallContext): Promise<TransactionsAnswer> {
    const q: Record<string, string> = { customerId: query.customerId };
    if (query.startAfter !== undefined) q.startAfter = query.startAfter;
    if (query.limit !== undefined) q.limit = String(query.limit);
    return this.call('transactions', { query: q }, ctx);
  }

  redemptionConfig(ctx?: LoyaltyCallContext): Promise<RedemptionConfigAnswer> {
    return this.call('redemptionConfig', {}, ctx);
  }
}

/** A rule id of digits as the integer the OTP request wants; anything else is left for the request check to refuse. */
function wholeNumber(v: string | number | undefined): string | number | undefined {
  return typeof v === 'string' && /^[0-9]{1,15}$/.test(v) ? Number(v) : v;
}

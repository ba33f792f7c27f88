import {
  Acknowledgement,
  BalanceResponse,
  BatchOrdersRequest,
  BatchOrdersResponse,
  BatchStatusResponse,
  CouponsResponse,
  DeleteCustomerResponse,
  EventRequest,
  EventResponse,
  HashResponse,
  HoldLookupResponse,
  HoldRequest,
  HoldResponse,
  OtpRequest,
  OtpResponse,
  PaymentRequest,
  PaymentResponse,
  RefundRequest,
  RefundResponse,
  TierExpansion as TierExpansionSchema,
  TierProgressQuery,
  TierProgressResponse,
} from '../contract';
import { BadRequestError } from '../platform/errors';
import { parseOrThrow } from '../platform/validation';
import { LoyaltyCallContext, LoyaltyCaller, WriteOutcome } from './call';

/**
 * `applied`: the upstream recorded the payment now and answered with its body.
 * `already_applied`: an earlier attempt of this same call reached the upstream
 * but its answer was lost, and the retry was refused as a duplicate of that
 * `paymentId`: the payment IS recorded, its reward figures are unknown here.
 * A duplicate on the first attempt (someone else used the id) is thrown as
 * ConflictError `duplicate_transaction`.
 */
export type PaymentOutcome = WriteOutcome<PaymentResponse>;
/** As PaymentOutcome, keyed by `refundTransactionId`. */
export type RefundOutcome = WriteOutcome<RefundResponse>;

export type TierExpansion = 'tier' | 'referrals';
export interface TierProgressOptions {
  /** Language of the answer, e.g. `en`, `ar`, `pt-BR`. */
  lang?: string;
  /** A list, or the comma-separated form the spec uses. */
  expand?: readonly TierExpansion[] | string;
}

const LANG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/**
 * The BFF's client for the loyalty v4.0 interface: one method per operation,
 * each returning the contract's validated response or throwing a platform
 * AppError (see ./errors for the codes). Keys come from configuration only.
 */
export class LoyaltyClient extends LoyaltyCaller {
  hold(request: HoldRequest, ctx?: LoyaltyCallContext): Promise<HoldResponse> {
    return this.call('hold', { body: request }, ctx);
  }

  batchOrders(request: BatchOrdersRequest, ctx?: LoyaltyCallContext): Promise<BatchOrdersResponse> {
    return this.call('batchOrders', { body: request }, ctx);
  }

  payment(request: PaymentRequest, ctx?: LoyaltyCallContext): Promise<PaymentOutcome> {
    return this.callWrite('payment', request, ctx);
  }

  coupons(customerId: string, ctx?: LoyaltyCallContext): Promise<CouponsResponse> {
    return this.call('coupons', { params: { customerId } }, ctx);
  }

  refund(request: RefundRequest, ctx?: LoyaltyCallContext): Promise<RefundOutcome> {
    return this.callWrite('refund', request, ctx);
  }

  async tierProgress(customerId: string, options: TierProgressOptions = {}, ctx?: LoyaltyCallContext): Promise<TierProgressResponse> {
    const headers: Record<string, string> = {};
    if (options.lang !== undefined) {
      if (!LANG.test(options.lang)) {
        throw new BadRequestError('validation_failed', 'Invalid lang: must be a language tag such as "en" or "pt-BR"', {
          errors: [{ path: 'lang', message: 'must be a language tag such as "en" or "pt-BR"' }],
        });
      }
      headers.lang = options.lang;
    }
    const expand = typeof options.expand === 'string'
      ? parseOrThrow(TierProgressQuery, { expand: options.expand }, 'expand').expand
      : parseOrThrow(TierExpansionSchema.array(), options.expand ?? [], 'expand');
    const query = expand.length ? { expand: [...new Set(expand)].join(',') } : undefined;
    return this.call('tierProgress', { params: { customerId }, headers, query }, ctx);
  }

  /** Uses DELETE; the POST form exists only for clients that cannot send DELETE. */
  deleteCustomer(customerId: string, ctx?: LoyaltyCallContext): Promise<DeleteCustomerResponse> {
    return this.call('deleteCustomer', { params: { customerId } }, ctx);
  }

  hash(customerId: string, ctx?: LoyaltyCallContext): Promise<HashResponse> {
    return this.call('hash', { params: { customerId } }, ctx);
  }

  events(request: EventRequest, ctx?: LoyaltyCallContext): Promise<EventResponse> {
    return this.call('events', { body: request }, ctx);
  }

  holdLookup(holdReference: string, ctx?: LoyaltyCallContext): Promise<HoldLookupResponse> {
    return this.call('holdLookup', { params: { holdReference } }, ctx);
  }

  holdCancel(holdReference: string, ctx?: LoyaltyCallContext): Promise<Acknowledgement> {
    return this.call('holdCancel', { params: { holdReference } }, ctx);
  }

  otp(request: OtpRequest, ctx?: LoyaltyCallContext): Promise<OtpResponse> {
    return this.call('otp', { body: request }, ctx);
  }

  balance(customerId: string, ctx?: LoyaltyCallContext): Promise<BalanceResponse> {
    return this.call('balance', { params: { customerId } }, ctx);
  }

  batchStatus(jobId: number | string, ctx?: LoyaltyCallContext): Promise<BatchStatusResponse> {
    return this.call('batchStatus', { params: { jobId } }, ctx);
  }
}

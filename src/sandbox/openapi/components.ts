import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import * as c from '../../contract';
import { named } from '../../platform/openapi';
import { loyaltyError } from './examples';

/** Component names for the contract's schemas (src/contract), used as they are. */
export function nameContractSchemas(): void {
  const names: [z.ZodType, string][] = [
    [c.HoldRequest, 'HoldRequest'],
    [c.HoldResponse, 'HoldResponse'],
    [c.HoldLookupResponse, 'HoldLookupResponse'],
    [c.HoldState, 'HoldState'],
    [c.OtpRequest, 'OtpRequest'],
    [c.OtpResponse, 'OtpResponse'],
    [c.PaymentRequest, 'PaymentRequest'],
    [c.PaymentResponse, 'PaymentResponse'],
    [c.PaymentDetail, 'PaymentDetail'],
    [c.PaymentRedemption, 'PaymentRedemption'],
    [c.RewardLine, 'RewardLine'],
    [c.CashbackConfigurations, 'CashbackConfigurations'],
    [c.RefundRequest, 'RefundRequest'],
    [c.RefundResponse, 'RefundResponse'],
    [c.RefundLineItem, 'RefundLineItem'],
    [c.Merchant, 'Merchant'],
    [c.Branch, 'Branch'],
    [c.Channel, 'Channel'],
    [c.Extra, 'Extra'],
    [c.Coupon, 'Coupon'],
    [c.CouponsResponse, 'CouponsResponse'],
    [c.Tier, 'Tier'],
    [c.TierProgressResponse, 'TierProgressResponse'],
    [c.HashResponse, 'HashResponse'],
    [c.BalanceResponse, 'BalanceResponse'],
    [c.DeleteCustomerResponse, 'DeleteCustomerResponse'],
    [c.EventRequest, 'EventRequest'],
    [c.EventResponse, 'EventResponse'],
    [c.EventMetadata, 'EventMetadata'],
    [c.BatchOrdersRequest, 'BatchOrdersRequest'],
    [c.BatchOrdersResponse, 'BatchOrdersResponse'],
    [c.OrderItem, 'OrderItem'],
    [c.BatchStatusResponse, 'BatchStatusResponse'],
    [c.BatchItemResult, 'BatchItemResult'],
    [c.BatchItemError, 'BatchItemError'],
    [c.BatchJobStatus, 'BatchJobStatus'],
    [c.CouponType, 'CouponType'],
    [c.CouponTarget, 'CouponTarget'],
    [c.FreeExtra, 'FreeExtra'],
    [c.Acknowledgement, 'Acknowledgement'],
  ];
  for (const [schema, id] of names) named(schema, id);
  named(c.LoyaltyErrorBody, 'Error', {
    description:
      'The published v4.0 error body. `code` is numeric (see the table in the description above), `type` is its category, `reason` (sandbox only) names the rule.',
  });
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const ERRORS = {
  MissingField: {
    status: 400,
    description: 'A required field is missing (3000), or the body is not a JSON object (3016).',
    example: loyaltyError(3000, 'MissingField', 'Missing required field in request body: customerId'),
  },
  Unauthorized: {
    status: 401,
    description: 'The apikey is missing or unknown (1000), or the secretkey is missing where needed or wrong (1001).',
    example: loyaltyError(1001, 'SecretKeyRequired', 'The secretkey header is required for this operation'),
  },
  NotFound: {
    status: 404,
    description: 'Not found: customer (7000), transaction (9002), reversed transaction (9005), hold reference (9006), anything else (4004).',
    example: loyaltyError(7000, 'CustomerNotFound', 'Customer "alice" was not found'),
  },
  Unprocessable: {
    status: 422,
    description:
      'A value is invalid (3003; `reason` names the rule, e.g. OTPRequired, HashInvalid), null for a required field (3001), already cancelled (9001), duplicate transaction id (9004), insufficient points (9008).',
    example: loyaltyError(9008, 'InsufficientPoints', 'The customer has 150 available points; 200 were asked for'),
  },
  RateLimited: {
    status: 429,
    description:
      "Too many requests: past the rate (per second) or the 30-s quota of the operation's bucket in the published table, for this account (its rateLimits setting), or injected by a fault rule; wait Retry-After seconds.",
    example: loyaltyError(429, 'RateLimited', 'Too many requests; try again in 1 s'),
  },
  InternalError: {
    status: 500,
    description: 'An internal error (5000); no details are shown.',
    example: loyaltyError(5000, 'InternalError', 'An internal error occurred'),
  },
} as const;
export type LoyaltyErrorName = keyof typeof ERRORS;

export function loyaltyErrors(names: readonly LoyaltyErrorName[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((n) => [String(ERRORS[n].status), ref('responses', n)]));
}

export const REQUEST_ID_PARAM = ref('parameters', 'RequestId');
export const REQUEST_ID_HEADER = { 'X-Request-Id': ref('headers', 'XRequestId') };

export function registerLoyaltyComponents(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'apikey',
    description: "The account's API key; selects the account.",
  });
  registry.registerComponent('securitySchemes', 'secretKey', {
    type: 'apiKey',
    in: 'header',
    name: 'secretkey',
    description: 'The secret key: needed by every operation except events, and by events too in High Security Mode. Server to server only, never on a till.',
  });
  registry.registerComponent('parameters', 'RequestId', {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Echoed in the X-Request-Id response header and in error bodies; one is made up when absent.',
    schema: { type: 'string' },
    example: 'posbff-3f1c9a0e',
  });
  registry.registerComponent('headers', 'XRequestId', { description: 'The request id (yours, or a new one).', schema: { type: 'string' } });
  registry.registerComponent('headers', 'RetryAfter', { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 1 } });
  for (const [name, e] of Object.entries(ERRORS)) {
    registry.registerComponent('responses', name, {
      description: e.description,
      headers: { ...REQUEST_ID_HEADER, ...(e.status === 429 ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}) },
      content: { 'application/json': { schema: ref('schemas', 'Error'), example: e.example } },
    });
  }
}

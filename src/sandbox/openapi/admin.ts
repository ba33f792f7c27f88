import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { named } from '../../platform/openapi';
import { AccountSettings, BucketLimitSettings, RateLimitSettings, SeedCustomer } from '../accounts';
import { BulkSeed, ClockAdvance } from '../operations/admin';
import { FaultRulesInput } from '../operations/faults';
import { loyaltyErrors, REQUEST_ID_PARAM } from './components';

/**
 * The sandbox's own admin API (`/_sandbox`), for developers and tests: not
 * part of the v4.0 interface. Bodies use the schemas the admin routes
 * validate with; answers are described loosely (they are for people).
 */
const json = (schema: z.ZodType, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });
const anyObject = z.record(z.string(), z.unknown());
const ok = (description: string, schema: z.ZodType = anyObject, example?: unknown) => ({ description, content: json(schema, example) });
const clock = z.object({ now: z.string(), epochMs: z.number(), offsetMs: z.number() });
const BOTH = [{ apiKey: [], secretKey: [] }];
const tags = ['Sandbox admin'];
const errors = loyaltyErrors(['MissingField', 'Unauthorized', 'NotFound', 'Unprocessable']);

export function adminRoutes(): RouteConfig[] {
  named(SeedCustomer, 'SeedCustomer');
  named(AccountSettings, 'AccountSettings', {
    description:
      'Every dashboard setting of an account. PUT /_sandbox/accounts/{apikey} takes any of these fields (apiKey must equal the path; secretKey left out is kept).',
  });
  named(FaultRulesInput, 'FaultRules');
  named(BucketLimitSettings, 'BucketLimitSettings', {
    description: "A bucket's own figures: rate per second, quota per 30 s; one left out stays the published figure times the multiplier.",
  });
  named(RateLimitSettings, 'RateLimitSettings', {
    description:
      "An account's published rate limits: each v4.0 operation counts against its bucket (the reference table's rows); past the bucket's rate in any one second " +
      'or its quota in any 30 s the request is refused with 429 and Retry-After, and not counted. Default: enforced at the published figures.',
  });
  const apikey = z.object({ apikey: z.string().meta({ description: 'The account apikey', example: 'sbx_demo_api_key' }) });
  const customerId = z.object({ customerId: z.string().meta({ example: 'alice' }) });
  const route = (r: Omit<RouteConfig, 'tags' | 'parameters'>): RouteConfig => ({
    ...r,
    tags,
    parameters: [REQUEST_ID_PARAM],
    responses: { ...r.responses, ...errors },
  });
  return [
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      tags,
      parameters: [REQUEST_ID_PARAM],
      summary: 'This document',
      security: [],
      responses: { 200: ok('OpenAPI 3.1 document') },
    },
    route({
      method: 'get',
      path: '/_sandbox/health',
      operationId: 'sandboxHealth',
      summary: 'The sandbox answers',
      security: [],
      responses: { 200: ok('Up', z.object({ status: z.literal('ok'), now: z.string() })) },
    }),
    route({
      method: 'post',
      path: '/_sandbox/reset',
      operationId: 'sandboxReset',
      summary: "Back to the configured accounts and seed customers (any account's keys; its configured secret key also works)",
      security: BOTH,
      responses: { 200: ok('Reset') },
    }),
    route({
      method: 'post',
      path: '/_sandbox/customers',
      operationId: 'sandboxSeedCustomer',
      summary: 'Create or top up a customer',
      security: BOTH,
      request: { body: { required: true, content: json(SeedCustomer, { customerId: 'alice', points: 1000 }) } },
      responses: { 200: ok('Updated; the balance'), 201: ok('Created; the balance') },
    }),
    route({
      method: 'post',
      path: '/_sandbox/customers/bulk',
      operationId: 'sandboxSeedCustomers',
      summary: 'Create prefix0..prefix{count-1} (load tests)',
      security: BOTH,
      request: { body: { required: true, content: json(BulkSeed, { prefix: 'load-', count: 10000, points: 500 }) } },
      responses: { 200: ok('Counts', z.object({ created: z.number(), updated: z.number(), totalCustomers: z.number() })) },
    }),
    route({
      method: 'get',
      path: '/_sandbox/customers/{customerId}/activity',
      operationId: 'sandboxCustomerActivity',
      summary: "A customer's recorded activity",
      security: BOTH,
      request: { params: customerId },
      responses: { 200: ok('Activity, oldest first') },
    }),
    route({
      method: 'delete',
      path: '/_sandbox/transactions/{transactionId}',
      operationId: 'sandboxForgetTransaction',
      summary:
        "Forget one payment's, order's or redeem's record, as if the service had lost it (its order transactions answer 404, its id is free again); balances, holds and refunds stay",
      security: BOTH,
      request: { params: z.object({ transactionId: z.string().meta({ example: 'rdm_AAAAAAAAAAAA' }) }) },
      responses: {
        200: ok(
          'Forgotten',
          z.object({ forgotten: z.literal(true), transactionId: z.string(), kind: z.enum(['payment', 'order', 'redeem']), customerId: z.string() }),
        ),
      },
    }),
    route({
      method: 'get',
      path: '/_sandbox/accounts/{apikey}',
      operationId: 'sandboxGetAccount',
      summary: "An account's settings (without the secret key)",
      security: BOTH,
      request: { params: apikey },
      responses: { 200: ok('Settings') },
    }),
    route({
      method: 'put',
      path: '/_sandbox/accounts/{apikey}',
      operationId: 'sandboxReplaceAccount',
      summary:
        "Change an account's settings: the fields given replace the current ones, objects (earn, eventRewards, rateLimits) are merged one level, arrays replaced whole",
      security: BOTH,
      request: {
        params: apikey,
        body: {
          required: true,
          content: json(
            z.looseObject({ rateLimits: RateLimitSettings.optional() }).meta({
              description: 'Any fields of AccountSettings (rateLimits among them); apiKey, if given, must equal the path',
            }),
            { otpEnabled: true, earn: { pointsPerUnit: 2 }, rateLimits: { multiplier: 10 } },
          ),
        },
      },
      responses: { 200: ok('The new settings (without the secret key)') },
    }),
    route({
      method: 'get',
      path: '/_sandbox/clock',
      operationId: 'sandboxClock',
      summary: 'The sandbox clock',
      security: BOTH,
      responses: { 200: ok('Now', clock) },
    }),
    route({
      method: 'post',
      path: '/_sandbox/clock/advance',
      operationId: 'sandboxAdvanceClock',
      summary: 'Move the clock forward (holds, OTPs and return windows then end)',
      security: BOTH,
      request: { body: { required: true, content: json(ClockAdvance, { ms: 600000 }) } },
      responses: { 200: ok('Now', clock) },
    }),
    route({
      method: 'get',
      path: '/_sandbox/otp/{customerId}',
      operationId: 'sandboxReadOtp',
      summary: 'The last OTP "sent" to a customer',
      security: BOTH,
      request: { params: customerId },
      responses: { 200: ok('The code', z.object({ otp: z.string(), expiresAt: z.string(), expired: z.boolean(), used: z.boolean() })) },
    }),
    route({
      method: 'get',
      path: '/_sandbox/faults',
      operationId: 'sandboxGetFaults',
      summary: 'Fault rules in force',
      security: BOTH,
      responses: { 200: ok('The rules') },
    }),
    route({
      method: 'put',
      path: '/_sandbox/faults',
      operationId: 'sandboxReplaceFaults',
      summary: 'Inject latency, errors, dropped connections or broken bodies per operation, before it runs or after (applied)',
      security: BOTH,
      request: { body: { required: true, content: json(FaultRulesInput, { rules: [{ operation: 'payment', status: 503, times: 2 }] }) } },
      responses: { 200: ok('The rules') },
    }),
    route({
      method: 'delete',
      path: '/_sandbox/faults',
      operationId: 'sandboxClearFaults',
      summary: 'Remove every fault rule',
      security: BOTH,
      responses: { 200: ok('No rules') },
    }),
  ];
}

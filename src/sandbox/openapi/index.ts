import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  API_PREFIX,
  CustomerId,
  LoyaltyErrorBody,
  Operation,
  PUBLISHED_LIMITS,
  QUOTA_WINDOW_SECONDS,
  SERVED_OPERATION_BUCKET,
  SERVED_OPERATIONS,
  ServedOperationId,
  TierProgressQuery,
} from '../../contract';
import { openApiPath, pathParams } from '../../platform/openapi';
import { adminRoutes } from './admin';
import { LoyaltyErrorName, loyaltyErrors, nameContractSchemas, registerLoyaltyComponents, REQUEST_ID_HEADER, REQUEST_ID_PARAM } from './components';
import { OPERATION_EXAMPLES } from './examples';

export const LOYALTY_API_VERSION = '4.0.0';

const PARAM_SCHEMAS: Record<string, z.ZodType> = {
  customerId: CustomerId.meta({ description: 'The customer id', example: 'alice' }),
  holdReferenceId: z.string().min(1).max(200).meta({ description: 'The holdReference of the hold response', example: 'hold_4kq9T2mXc8LpAZv3' }),
  batchId: z.string().min(1).max(200).meta({ description: 'The jobId of the batch orders response', example: '17' }),
};

function security(op: Operation): Record<string, string[]>[] {
  // Both keys in one requirement = both needed; two requirements = either suffices.
  return op.keys === 'both' ? [{ apiKey: [], secretKey: [] }] : [{ apiKey: [] }, { apiKey: [], secretKey: [] }];
}

function errorsOf(op: Operation): LoyaltyErrorName[] {
  const names: LoyaltyErrorName[] = op.request ? ['MissingField'] : [];
  return [...names, 'Unauthorized', 'NotFound', 'Unprocessable', 'RateLimited', 'InternalError'];
}

function toRouteConfig(op: Operation): RouteConfig {
  const ex = OPERATION_EXAMPLES[op.id as ServedOperationId];
  const params = pathParams(op.path);
  const keysNote = op.keys === 'both' ? 'Keys: apikey and secretkey.' : 'Keys: apikey (and secretkey when the account is in High Security Mode).';
  const limit = PUBLISHED_LIMITS[SERVED_OPERATION_BUCKET[op.id as ServedOperationId]];
  const limitNote = ` Rate limit (${limit.row}): ${limit.rate} per second and ${limit.quota} per ${QUOTA_WINDOW_SECONDS} s per account, unless its rateLimits setting says otherwise.`;
  return {
    method: op.method.toLowerCase() as 'get' | 'post' | 'delete',
    path: API_PREFIX + openApiPath(op.path),
    operationId: op.id,
    tags: [op.extension ? 'Published beyond the spec' : 'v4.0 operations'],
    summary: op.summary,
    description:
      keysNote + limitNote + (op.extension ? " Not one of the specification's ten operations; shaped as the published v4.0 reference documents it." : ''),
    security: security(op),
    parameters: [
      REQUEST_ID_PARAM,
      ...(op.id === 'tierProgress'
        ? [
            {
              name: 'lang',
              in: 'header' as const,
              required: false,
              description: 'Language of tier names, e.g. en, ar, fr',
              schema: { type: 'string' as const },
              example: 'en',
            },
          ]
        : []),
    ],
    request: {
      params: params.length ? z.object(Object.fromEntries(params.map((p) => [p, PARAM_SCHEMAS[p] ?? z.string()]))) : undefined,
      query: op.id === 'tierProgress' ? TierProgressQuery : undefined,
      body: op.request && { required: true, content: { 'application/json': { schema: op.request, ...(ex?.request ? { example: ex.request } : {}) } } },
    },
    responses: {
      200: {
        description: 'Done',
        headers: REQUEST_ID_HEADER,
        content: { 'application/json': { schema: op.response, ...(ex ? { example: ex.response } : {}) } },
      },
      ...loyaltyErrors(errorsOf(op)),
    },
  };
}

/** The loyalty v4.0 interface the sandbox serves, from the contract's SERVED_OPERATIONS table, plus its admin API. */
export function buildLoyaltyOpenApi() {
  nameContractSchemas();
  const registry = new OpenAPIRegistry();
  registerLoyaltyComponents(registry);
  for (const op of Object.values(SERVED_OPERATIONS) as Operation[]) registry.registerPath(toRouteConfig(op));
  for (const r of adminRoutes()) registry.registerPath(r);
  const generator = new OpenApiGeneratorV31([...registry.definitions, { type: 'schema' as const, schema: LoyaltyErrorBody }], {
    sortComponents: 'alphabetically',
  });
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Loyalty service v4.0 (sandbox)',
      version: LOYALTY_API_VERSION,
      description:
        'The loyalty v4.0 integration interface as the bundled sandbox serves it: the ten operations of the specification, the few the BFF needs that ' +
        'the specification only mentions (hold lookup and release, OTP, balance, batch status) in the shapes of the published reference, published ' +
        'extensions the BFF calls (track order, redeem by transaction id), and the sandbox admin API.\n\n' +
        'Error bodies: `{ code, type, message, documentationUrl, requestId }` as published, `type` being the category of the code ' +
        '(AUTHENTICATION_ERROR 1xxx, PAYLOAD_ERROR 3xxx, GENERAL_ERROR 4xxx, SERVER_ERROR 5xxx, CUSTOMER_ERROR 7xxx, TRANSACTIONS_ERROR 9xxx), ' +
        "plus the sandbox's `reason` naming the rule. Codes: 1000 API key invalid (401), 1001 secret key required/invalid (401), 3000 missing field (400), " +
        '3001 null for a required field (422), 3003 invalid value (422), 3016 invalid payload (400), 4004 not found (404), 7000 customer not found (404), ' +
        '9001 already cancelled (422), 9002 transaction not found (404), 9004 duplicate transaction id (422), 9005 reversed transaction not found (404), ' +
        "9006 hold reference not found (404), 9008 insufficient points (422), 429 rate limited (429, the sandbox's code), 5000 internal (500). " +
        '`null` on an optional request field means "not given".',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: '/', description: 'This sandbox' }],
    tags: [
      { name: 'v4.0 operations', description: 'The published interface' },
      { name: 'Published beyond the spec', description: 'Operations the specification mentions without showing them, as the published reference shows them' },
      { name: 'Sandbox admin', description: 'Developer and test controls; not part of the real service' },
    ],
  });
}

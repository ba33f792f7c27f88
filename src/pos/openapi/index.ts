import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { openApiPath } from '../../platform/openapi';
import { catalogueTable } from '../../platform/error-table';
import { withRetryExtensions } from '../../platform/retry-table';
import * as answers from '../answers';
import { nameSchemas, problemResponses, PARAMS, RATE_LIMIT_HEADERS, registerComponents, REPLAYED_HEADER, REQUEST_ID_HEADER } from './components';
import { POS_API_PREFIX, type PosRoute } from '../http/route';
import { codesByStatus } from './codes';
import { POS_ROUTES } from '../routes';
import { PendingAnswerSchema, pendingAnswer } from '../till-answers/schemas';

export { POS_ROUTES } from '../routes';
export { POS_API_PREFIX, type PosRoute } from '../http/route';
export const POS_API_VERSION = '1.0.0';

/** Routes outside /pos/v1, without a terminal token. */
export const OPS_ROUTES: { method: 'get'; path: string }[] = [
  { method: 'get', path: '/healthz' },
  { method: 'get', path: '/readyz' },
  { method: 'get', path: '/metrics' },
  { method: 'get', path: '/openapi.json' },
];

function roleText(roles: readonly string[]): string {
  return `**Terminal roles:** ${roles.join(', ')}.`;
}

const QUEUED_NOTE =
  'Queued in the outbox: the loyalty service was out of reach, slow, or over its rate limit (or this customer already had queued writes). GET /pos/v1/outbox/{outboxId} shows when it is delivered.';

/** Response headers as the generator takes them: `$ref`s and inline header objects. */
type Headers = Exclude<ResponseConfig['headers'], undefined | z.ZodObject>;

/** The success answer, and the 202 of a queued write (one 202 with either body when the success is a 202 too). */
function successResponses(r: PosRoute, headers: Headers): RouteConfig['responses'] {
  const forms = Object.fromEntries(Object.entries(r.formats ?? {}).map(([, f]) => [f.contentType, { schema: z.string(), example: f.example }]));
  const ok = {
    [r.success.status]: {
      description: r.success.description,
      headers,
      content: { 'application/json': { schema: r.success.schema, example: r.success.example }, ...forms },
    },
  };
  if (!r.queued) return ok;
  const queued = {
    description: `${QUEUED_NOTE} Or: ${PENDING_NOTE}`,
    headers,
    content: { 'application/json': { schema: r.queued.schema, example: r.queued.example } },
  };
  if (r.success.status !== 202) return { ...ok, 202: queued };
  return {
    202: {
      description: `${r.success.description}; or, when the loyalty service was out of reach, queued in the outbox (GET /pos/v1/outbox/{outboxId})`,
      headers,
      content: {
        'application/json': {
          schema: z.union([r.success.schema, r.queued.schema]),
          examples: {
            accepted: { summary: r.success.description, value: r.success.example },
            queued: { summary: 'Queued in the outbox', value: r.queued.example },
          },
        },
      },
    },
  };
}

const PENDING_NOTE =
  'The till stopped waiting (Prefer: wait) while the write was under way at the loyalty service: it may have been done. ' +
  'Read the outcome at Location (GET /pos/v1/answers/{requestId}) after Retry-After, or send the same request again with the same Idempotency-Key.';

/** Every write sent to the loyalty service may answer 202 at the till's deadline; a route whose own answer is a 202 (queued) names it there. */
function pendingResponse(r: PosRoute, headers: Headers): RouteConfig['responses'] {
  if (r.method === 'get' || !r.callsLoyalty || r.readsOnly) return {};
  const pendingHeaders = {
    ...headers,
    Location: { description: 'GET it for the outcome', schema: { type: 'string' as const } },
    'Retry-After': { description: 'Seconds', schema: { type: 'string' as const } },
  };
  if (r.queued || r.success.status === 202) return {};
  return {
    202: {
      description: PENDING_NOTE,
      headers: pendingHeaders,
      content: { 'application/json': { schema: PendingAnswerSchema, example: pendingAnswer('till-7-000123') } },
    },
  };
}

function toRouteConfig(r: PosRoute): RouteConfig {
  const headers: Headers = { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS };
  if (r.method === 'post') Object.assign(headers, REPLAYED_HEADER);
  if (r.success.location) headers.Location = { description: `Where to read it: ${POS_API_PREFIX}${r.path}/{id}`, schema: { type: 'string' } };
  return {
    method: r.method,
    path: POS_API_PREFIX + openApiPath(r.path),
    operationId: r.operationId,
    tags: [r.tag],
    summary: r.summary,
    description: [r.description, roleText(r.roles)].filter(Boolean).join('\n\n'),
    'x-terminal-roles': r.roles,
    parameters: [
      ...(r.method === 'post' ? [r.idempotencyKey === 'required' ? PARAMS.idempotencyKeyRequired : PARAMS.idempotencyKey] : []),
      PARAMS.requestId,
      PARAMS.prefer,
      ...(r.method === 'get' ? [] : [PARAMS.cashierId, PARAMS.shiftId]),
    ],
    request: {
      params: r.params,
      query: r.query,
      body: r.body && {
        required: true,
        content: { 'application/json': { schema: r.body.schema, examples: r.body.examples } },
      },
    },
    responses: {
      ...pendingResponse(r, headers),
      ...successResponses(r, headers),
      ...problemResponses(codesByStatus(r)),
    },
  };
}

function opsRoutes(): RouteConfig[] {
  const noStore = { 'Cache-Control': { description: 'no-store', schema: { type: 'string' as const } } };
  const ready = { status: 'ready', checks: { redis: 'ok', upstream: 'ok', sweeper: 'ok', worker: 'ok', process: 'ok' } };
  return [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      tags: ['Operations'],
      summary: 'Liveness: the process answers',
      security: [],
      responses: {
        200: { description: 'Alive', headers: noStore, content: { 'application/json': { schema: answers.HealthSchema, example: { status: 'ok' } } } },
      },
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      tags: ['Operations'],
      summary: 'Readiness: Redis (when configured), the loyalty service, the hold sweeper, the outbox worker, not shutting down',
      description: 'For load balancers: send checkouts only while this is 200. Each check is ok, down, not_configured, stopped or shutting_down.',
      security: [],
      responses: {
        200: { description: 'Ready', headers: noStore, content: { 'application/json': { schema: answers.ReadinessSchema, example: ready } } },
        503: {
          description: 'Not ready; the checks name what is wrong',
          headers: noStore,
          content: { 'application/json': { schema: answers.ReadinessSchema, example: { status: 'not_ready', checks: { ...ready.checks, redis: 'down' } } } },
        },
      },
    },
    {
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      tags: ['Operations'],
      summary: 'Prometheus metrics',
      description:
        'Text exposition format 0.0.4: HTTP requests by route, status and role; upstream calls; redemption transitions; holds; outbox; Redis; circuit breaker.',
      security: [],
      responses: {
        200: {
          description: 'The metrics',
          content: {
            'text/plain': { schema: z.string(), example: 'http_requests_total{method="GET",route="/pos/v1/customers/:id",status="200",role="cashier"} 3\n' },
          },
        },
      },
    },
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      tags: ['Operations'],
      summary: 'This document',
      security: [],
      responses: { 200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } } },
    },
  ];
}

/** The cashier API as OpenAPI 3.1, generated from the zod schemas. Deterministic: `npm run openapi` commits it. */
export function buildPosOpenApi() {
  nameSchemas();
  const registry = new OpenAPIRegistry();
  registerComponents(registry);
  for (const r of POS_ROUTES) registry.registerPath(toRouteConfig(r));
  // The header bound (431) guards the operator routes too: it runs before any route.
  for (const r of opsRoutes())
    registry.registerPath({ ...r, responses: { ...r.responses, ...problemResponses(new Map([[431, ['too_many_headers', 'headers_too_large']]])) } });
  const generator = new OpenApiGeneratorV31([...registry.definitions, { type: 'schema' as const, schema: answers.ProblemSchema }], {
    sortComponents: 'alphabetically',
  });
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'POS loyalty checkout: cashier API',
      version: POS_API_VERSION,
      description:
        "The API that POS terminals and in-store tablets call. Every `/pos/v1` route needs a terminal token; the terminal's store " +
        'and role decide what it may do and see. Errors are RFC 9457 problem details with a stable `code`.\n\n' +
        'A checkout with points: `GET /customers/{id}` -> `POST /redemptions` (-> `POST /redemptions/{id}/otp`) -> `POST /payments` with `redemptionId`.\n\n' +
        '**Authentication.** `Authorization: Bearer <terminal token>`; or, when the BFF serves HTTPS with TLS_CLIENT_CA_FILE set, a client certificate ' +
        '(mutual TLS) signed by that CA whose subject CN or a DNS subject alternative name is the terminal id (scheme `clientCertificate`). ' +
        'Sent together, both must name the same terminal (else 401 `credentials_disagree`).\n\n' +
        '**Limits.** Per terminal: TERMINAL_RATE_LIMIT_PER_MINUTE requests a minute (429 `rate_limited`; RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset ' +
        'on every answer) and MAX_OPEN_REDEMPTIONS_PER_TERMINAL open redemptions (409 `too_many_open_redemptions`). Per credential presented ' +
        '(without one, per source address): AUTH_FAILURE_LIMIT_PER_MINUTE failed authentications a minute, and per address ten times that, ' +
        'counted once a request has failed, so a valid token is never refused for its neighbours (429 `too_many_auth_failures`). Per request: BODY_LIMIT_BYTES of JSON (413) ' +
        'nested at most 32 deep (400 `body_too_deep`), MAX_HEADER_COUNT headers and MAX_HEADER_BYTES of them (431). Browsers may call only from ' +
        'CORS_ORIGINS; a preflight from any other origin is 403 `cors_origin_not_allowed`.\n\n' +
        '**Every error code**, with what the till should do:\n\n' +
        catalogueTable(),
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: '/', description: 'This BFF' }],
    security: [{ terminalToken: [] }, { clientCertificate: [] }],
    tags: [
      { name: 'Customers', description: 'Look-up, QR hash, deletion' },
      { name: 'Redemptions', description: 'Holding points for a sale: OTP -> hold -> payment' },
      { name: 'Payments', description: 'Sales, voids and refunds' },
      { name: 'Engagement', description: 'Events and offline order uploads' },
      { name: 'Outbox', description: 'Writes queued while the loyalty service was out of reach, and their dead letters' },
      { name: 'Store reports', description: "For managers: the store's audit trail and its end-of-day reconciliation against the loyalty service" },
      { name: 'Operations', description: 'For operators, without a terminal token' },
    ],
  });
  return withRetryExtensions(document);
}

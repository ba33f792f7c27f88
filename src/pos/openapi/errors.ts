import { STATUS_CODES } from 'node:http';
import { PROBLEM_CATALOGUE, type ProblemCode } from '../../platform/problem-catalogue';

/** Header components (registered in components.ts) an error response may carry. */
export type HeaderName = 'RetryAfter' | 'RateLimitLimit' | 'RateLimitRemaining' | 'RateLimitReset' | 'WwwAuthenticate';

/** A problem+json body as the BFF writes it, with the catalogue's status for the code. */
function problemExample(code: ProblemCode, detail: string, extra: Record<string, unknown> = {}) {
  const { status } = PROBLEM_CATALOGUE[code];
  return {
    type: `urn:pos-loyalty:problem:${code}`,
    title: STATUS_CODES[status],
    status,
    detail,
    code,
    requestId: '3f1c9a0e-5b1d-4a59-9d2e-0c7b8f6e2a41',
    errorId: '8d0f7c55-2b43-4d0e-a1f6-5e9b7c3d2a10',
    ...extra,
  };
}

type Answer = [code: ProblemCode, example: { summary: string; value: object }];

/** One documented answer, keyed by its code (the example's `code`), with the catalogue's status for it. */
function answer(summary: string, code: ProblemCode, detail: string, extra: Record<string, unknown> = {}): Answer {
  return [code, { summary, value: problemExample(code, detail, extra) }];
}
const answers = (...list: Answer[]) => Object.fromEntries(list);

const RETRY_AFTER: Record<string, HeaderName> = { 'Retry-After': 'RetryAfter' };
export const RATE_LIMIT_HEADER_NAMES: Record<string, HeaderName> = {
  'RateLimit-Limit': 'RateLimitLimit',
  'RateLimit-Remaining': 'RateLimitRemaining',
  'RateLimit-Reset': 'RateLimitReset',
};

/**
 * Example answers, one per code that has one: each operation's error answer
 * shows those of the codes it can answer (src/pos/openapi/codes.ts).
 */
export const PROBLEM_EXAMPLES: Partial<Record<ProblemCode, { summary: string; value: object }>> = answers(
  answer('A field is invalid', 'validation_failed', 'Invalid request body: points: Too small: expected number to be >0', {
    errors: [{ path: 'points', message: 'Too small: expected number to be >0' }],
  }),
  answer('The body is not JSON', 'malformed_json', 'The request body is not valid JSON'),
  answer('The body nests too deep', 'body_too_deep', 'The request body nests deeper than 32 levels'),
  answer('The body does not decode as its Content-Encoding says', 'malformed_body_encoding', 'The request body is not valid gzip data'),
  answer('The path has broken percent-encoding (e.g. %zz)', 'malformed_path', 'The request path has invalid percent-encoding'),
  answer('The Idempotency-Key is unusable', 'idempotency_key_invalid', 'Idempotency-Key must be 1 to 255 visible ASCII characters (0x21-0x7E), sent once'),
  answer(
    'No Idempotency-Key on a write that requires one',
    'idempotency_key_required',
    'Idempotency-Key is required here: a retry without it could do this twice. Send a new key per request, the same key on its retries',
  ),
  answer('Unknown or revoked token', 'invalid_token', 'The terminal token is not valid (unknown or revoked)'),
  answer('No credentials', 'missing_token', 'This route needs a terminal token: Authorization: Bearer <token>'),
  answer('Not a bearer token', 'malformed_authorization', 'The Authorization header must be "Bearer <terminal token>"'),
  answer(
    'mTLS: the certificate names no usable terminal, or several',
    'invalid_client_certificate',
    'The client certificate does not name exactly one usable terminal',
  ),
  answer(
    'mTLS: the token and the certificate name different terminals',
    'credentials_disagree',
    'The bearer token and the client certificate name different terminals',
  ),
  answer('Wrong role', 'role_not_allowed', 'This route needs a manager terminal; this terminal is a cashier', {
    requiredRoles: ['manager'],
    role: 'cashier',
  }),
  answer('Unknown customer', 'customer_not_found', 'The customer was not found in the loyalty programme'),
  answer('The redemption is no longer held', 'redemption_not_held', 'Redemption rdm_Zk3vQ9bT2mXc8LpA is expired; start a new redemption', {
    state: 'expired',
  }),
  answer(
    "Over the customer's daily redemption cap",
    'redemption_cap_reached',
    'This customer may redeem at most 500 points a day and has 400 redeemed or held today: 100 points are left, 200 were asked for',
    { capPoints: 500, usedPoints: 400, pointsLeft: 100 },
  ),
  answer(
    'Too many open redemptions on this terminal',
    'too_many_open_redemptions',
    'This terminal already has 10 open redemptions (the limit is 10); complete or void one first',
    {
      openRedemptions: 10,
      limit: 10,
    },
  ),
  answer(
    "Another redemption's code is still out",
    'otp_pending_for_another_redemption',
    'A code sent to this customer for redemption rdm_Zk3vQ9bT2mXc8LpA is still out: confirm that redemption with it (POST /redemptions/{id}/otp), or start again after 2026-03-02T10:05:00.000Z',
    { redemptionId: 'rdm_Zk3vQ9bT2mXc8LpA', pendingUntil: '2026-03-02T10:05:00.000Z' },
  ),
  answer('Body too large', 'payload_too_large', 'The request body is larger than the limit of 262144 bytes'),
  answer('Not JSON', 'unsupported_media_type', 'Send the body as application/json (got text/plain)'),
  answer('Unknown Content-Encoding', 'unsupported_encoding', 'unsupported content encoding "compress"'),
  answer('Not enough points', 'insufficient_points', 'The customer does not have enough points for this'),
  answer('Per-terminal request limit', 'rate_limited', 'This terminal sent more than 600 requests in a minute; try again in 12 s', {
    retryAfterSeconds: 12,
    limitPerMinute: 600,
  }),
  answer(
    'Too many failed authentications with this token',
    'too_many_auth_failures',
    'More than 20 failed authentications with these credentials in a minute; try again in 41 s',
    {
      retryAfterSeconds: 41,
    },
  ),
  answer('Too many headers', 'too_many_headers', 'The request has more than 100 headers; send at most 100'),
  answer('Unusable upstream answer', 'upstream_invalid_response', 'The loyalty service gave an answer that could not be understood'),
  answer('Loyalty service down', 'upstream_unavailable', 'The loyalty service is unavailable; try again shortly', { retryAfterSeconds: 2 }),
  answer(
    'Another request with this Idempotency-Key is still running',
    'idempotency_request_in_progress',
    'A request with this Idempotency-Key is still running; retry shortly to get its answer',
    { retryAfterSeconds: 1 },
  ),
);

/** The headers an error answer of each status carries (besides X-Request-Id). */
export const STATUS_HEADERS: Partial<Record<number, Record<string, HeaderName>>> = {
  401: { 'WWW-Authenticate': 'WwwAuthenticate' },
  409: RETRY_AFTER,
  429: { ...RETRY_AFTER, ...RATE_LIMIT_HEADER_NAMES },
  503: RETRY_AFTER,
};

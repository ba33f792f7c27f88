import { PROBLEM_CATALOGUE, type ProblemCode } from '../../platform/problem-catalogue';
import type { PosRoute } from '../http/route';
import { TERMINAL_ROLES } from '../terminals/types';

/**
 * Where a code an operation can answer comes from: a piece of shared
 * middleware (every operation with that piece can answer it), or the
 * operation's own use case (its entry's `codes`).
 */
export type CodeSource = 'every route' | 'input' | 'path' | 'write' | 'POST' | 'key required' | 'role' | 'redis' | 'loyalty' | 'own';

/**
 * Before any route: the header bound, authentication, the per-terminal limit,
 * reading the body (any method: a GET with a body has it parsed too), the
 * cashier headers; and the one error handler.
 */
const EVERY_ROUTE: readonly ProblemCode[] = [
  'missing_token',
  'malformed_authorization',
  'invalid_token',
  'invalid_client_certificate',
  'credentials_disagree',
  'too_many_auth_failures',
  'rate_limited',
  'too_many_headers',
  'malformed_json',
  'body_too_deep',
  'malformed_body_encoding',
  'payload_too_large',
  'unsupported_media_type',
  'unsupported_encoding',
  'cashier_header_invalid',
  'internal_error',
];
/** A route with path, query or body fields checks them. */
const INPUT: readonly ProblemCode[] = ['validation_failed'];
/** Every POST takes an Idempotency-Key (src/pos/idempotency). */
const POST: readonly ProblemCode[] = ['idempotency_key_invalid', 'idempotency_key_reused', 'idempotency_request_in_progress'];
/**
 * Routes that call the loyalty service (src/upstream): its failures, limits,
 * key refusals, and its refusals that have no code of their own.
 */
const LOYALTY: readonly ProblemCode[] = [
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_circuit_open',
  'upstream_busy',
  'upstream_invalid_response',
  'loyalty_key_refused',
  'upstream_auth_failed',
  'upstream_rejected',
  'upstream_not_found',
  'till_deadline_reached',
];

/** Every code `r` can answer, with where it comes from; shared middleware first, then its own, each in catalogue order. */
export function codesOf(r: PosRoute): Map<ProblemCode, CodeSource> {
  const codes = new Map<ProblemCode, CodeSource>();
  const add = (list: readonly ProblemCode[], source: CodeSource) => list.forEach((c) => codes.has(c) || codes.set(c, source));
  add(EVERY_ROUTE, 'every route');
  if (r.params || r.query || r.body) add(INPUT, 'input');
  if (r.params) add(['malformed_path'], 'path');
  if (r.method !== 'get') add(['cashier_required'], 'write');
  if (r.method === 'post') add(POST, 'POST');
  if (r.idempotencyKey === 'required') add(['idempotency_key_required'], 'key required');
  if (r.rolesFor || TERMINAL_ROLES.some((role) => !r.roles.includes(role))) add(['role_not_allowed'], 'role');
  if (r.needsRedis) add(['redis_unavailable'], 'redis');
  if (r.callsLoyalty) add(LOYALTY, 'loyalty');
  add(r.codes, 'own');
  const order = Object.keys(PROBLEM_CATALOGUE);
  return new Map([...codes].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)));
}

/** `r`'s codes by the status the catalogue gives each, statuses ascending. */
export function codesByStatus(r: PosRoute): Map<number, ProblemCode[]> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codesOf(r).keys()) {
    const status = PROBLEM_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

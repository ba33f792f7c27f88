import type { ProblemCode, RetryRule } from './problem-catalogue';

export type { RetryRule } from './problem-catalogue';

/**
 * What a till may send after an answer. Each catalogue row has one
 * (`retry`); ROUTE_RETRY names the routes where a code calls for another.
 * The README, the OpenAPI document and the till client's table are made from
 * these two (src/platform/retry-table.ts), so they cannot say otherwise.
 */

export const RETRY_RULES: Record<RetryRule, string> = {
  same: 'Send the same request again with the same Idempotency-Key: after Retry-After when the answer gives one, else after a short pause, growing. An answer that comes back replayed (Idempotent-Replayed: true) is final for that key',
  new: 'Send a new request with a new Idempotency-Key, once the cashier or the app has done what the answer asks',
  read: "Read the outcome back: follow a 202's Location, or GET the resource the answer names; do not send the write again",
  stop: 'Do not send it again: fix the app, ask a manager, or call support, as the error table says',
};

/** A pending write (202 with `pending: true` and Location) is read back, never sent again. */
export const PENDING_RULE: RetryRule = 'read';

interface RouteRule {
  rule: RetryRule;
  /** Why this route differs from the code's rule (shown in README "Retrying safely"). */
  why: string;
}

/**
 * The outcome of the write is unknown and the answer is kept for its key: the same key only replays it.
 * (Not upstream_call_aborted: no till route hands the loyalty call a cancel signal, so none answers it.)
 */
const UNKNOWN_OUTCOME = ['upstream_timeout', 'upstream_unavailable'] as const;

const each = (rule: RetryRule, why: string): Partial<Record<ProblemCode, RouteRule>> =>
  Object.fromEntries(UNKNOWN_OUTCOME.map((code) => [code, { rule, why }]));

const BY_ID = each(
  'new',
  'the same body with a new key: the loyalty service takes each paymentId/refundId once, so a sale that landed answers already_recorded (already_refunded) and one that did not is written once',
);
const PLACES_SOMETHING = (what: string) =>
  each(
    'stop',
    `the ${what} may stand upstream with no record here: a new key would place a second one; it lapses at its expiry. Never start again with a new key; go on without it or ask a manager`,
  );
const READ = (where: string) => each('read', `the change may have landed: ${where} shows whether it did; sending it again with a new key is not needed`);

/** Routes (method and path as in the OpenAPI document) where a code's rule is not the catalogue's. */
export const ROUTE_RETRY: Record<string, Partial<Record<ProblemCode, RouteRule>>> = {
  'POST /pos/v1/payments': BY_ID,
  'POST /pos/v1/payments/{paymentId}/void': BY_ID,
  'POST /pos/v1/refunds': BY_ID,
  'POST /pos/v1/redemptions': PLACES_SOMETHING('points hold'),
  'POST /pos/v1/coupon-locks': PLACES_SOMETHING('coupon lock'),
  'POST /pos/v1/redemptions/{id}/otp': READ('GET /pos/v1/redemptions/{id}'),
  'POST /pos/v1/redemptions/{id}/void': READ('GET /pos/v1/redemptions/{id}'),
  'POST /pos/v1/coupon-locks/{id}/release': READ('GET /pos/v1/coupon-locks/{id}'),
  'POST /pos/v1/events': each('stop', 'events carry no id, so a copy sent again could be counted twice; treat them as sent'),
  'POST /pos/v1/coupons/validate': each('new', 'nothing is written: ask again with a new key'),
  'POST /pos/v1/earn-preview': each('new', 'nothing is written: ask again with a new key'),
  'POST /pos/v1/orders/batch': each('new', 'an order id is counted once (a duplicate fails on its own), so a new job with a new key is safe'),
  'POST /pos/v1/customers/{id}/delete': each('new', 'deleting twice does no harm (the repeat answers 404)'),
};

/** The routes where `code` has a rule of its own. */
export function routesOverriding(code: ProblemCode): { route: string; rule: RetryRule }[] {
  return Object.entries(ROUTE_RETRY).flatMap(([route, codes]) => (codes[code] ? [{ route, rule: codes[code].rule }] : []));
}

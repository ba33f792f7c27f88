import cors from 'cors';
import type { RequestHandler } from 'express';
import { problem } from '../../platform/problem';
import { CASHIER_HEADER, SHIFT_HEADER } from '../audit/cashier';
import { PREFERENCE_APPLIED } from '../till-wait';
import { ANSWER_REPLAYED, REPLAYED_HEADER } from '../stored-response';

/**
 * Refuses a request with more than `max` headers. The server parses them all
 * (their total size is bounded by MAX_HEADER_BYTES), so "too many" is seen
 * and named here instead of extra headers being dropped silently.
 */
export function headerCountLimit(max: number): RequestHandler {
  return (req, _res, next) => {
    const count = req.rawHeaders.length / 2;
    if (count <= max) return next();
    next(problem('too_many_headers', `The request has more than ${max} headers; send at most ${max}`));
  };
}

/**
 * Headers a tablet web app sends (the cashier and shift too: a store may
 * require them; `Prefer: wait` on every call of the till client) and may read
 * (a replayed or read-back answer says so, and which wait was honoured).
 */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Prefer', 'X-Request-Id', CASHIER_HEADER, SHIFT_HEADER];
const EXPOSED_HEADERS = [
  'Location',
  'Retry-After',
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  REPLAYED_HEADER,
  ANSWER_REPLAYED,
  PREFERENCE_APPLIED,
];

/**
 * CORS for in-store tablet web apps: only the listed origins (none = CORS off).
 * A browser preflight from any other origin is a clear 403 rather than a 401
 * from the token check, so a misconfigured tablet says what is wrong. Bearer
 * tokens, not cookies: no credentials mode.
 */
export function corsFor(origins: readonly string[]): RequestHandler[] {
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  const isAllowed = (origin: string | undefined) => origin !== undefined && allowed.has(origin.toLowerCase());
  const refuseForeignPreflight: RequestHandler = (req, _res, next) => {
    const preflight = req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    if (!preflight || isAllowed(req.headers.origin)) return next();
    next(problem('cors_origin_not_allowed', `Browser calls from origin ${String(req.headers.origin).slice(0, 200)} are not allowed (CORS_ORIGINS)`));
  };
  if (allowed.size === 0) return [refuseForeignPreflight];
  const allow = cors({
    origin: (origin, cb) => cb(null, isAllowed(origin) ? origin : false),
    methods: ['GET', 'PUT', 'POST', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
  });
  return [refuseForeignPreflight, allow];
}

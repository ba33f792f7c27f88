import cors from 'cors';
import type { Request, RequestHandler } from 'express';
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
export function corsFor(origins: readonly string[], docsOrigin?: (req: Request) => string | undefined): RequestHandler[] {
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  // The /docs page on the ops port is another origin: its "Try it out" calls are allowed from exactly that page's origin.
  const isAllowed = (req: Request, origin: string | undefined) =>
    origin !== undefined && (allowed.has(origin.toLowerCase()) || origin.toLowerCase() === docsOrigin?.(req)?.toLowerCase());
  const refuseForeignPreflight: RequestHandler = (req, _res, next) => {
    const preflight = req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    if (!preflight || isAllowed(req, req.headers.origin)) return next();
    next(problem('cors_origin_not_allowed', `Browser calls from origin ${String(req.headers.origin).slice(0, 200)} are not allowed (CORS_ORIGINS)`));
  };
  if (allowed.size === 0 && !docsOrigin) return [refuseForeignPreflight];
  const options = {
    methods: ['GET', 'PUT', 'POST', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
  };
  const allow = cors((req, cb) => {
    const origin = (req as Request).headers.origin;
    cb(null, { ...options, origin: isAllowed(req as Request, origin) ? origin : false });
  });
  return [refuseForeignPreflight, allow];
}

/**
 * The origin of the /docs page served on the ops port, as the browser that asks the till port names it: the same
 * host name (from Host, checked to be one), plain HTTP, the ops port. Undefined when the Host is not a host name.
 */
export function opsDocsOrigin(opsPort: number): (req: Request) => string | undefined {
  return (req) => {
    const host = hostNameOf(req);
    return host && `http://${host}:${opsPort}`;
  };
}

/** The Host header's host name when it is a plain host name or IP literal (so it is safe to put in a URL or a CSP). */
export function hostNameOf(req: Request): string | undefined {
  const host = req.headers.host ?? '';
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253})(?::\d{1,5})?$/.exec(host);
  return m?.[1];
}

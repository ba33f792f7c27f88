import type { Request, RequestHandler, Response } from 'express';
import type { Metrics } from '../../platform/metrics';
import { REPLAYED_HEADER } from '../idempotency';

/** Label for a request no route matched (unknown paths must not grow the label set). */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * Remembers the mount path of the router it runs in, so a request that ends in
 * the app's error handler (after Express has unwound `req.baseUrl`) is still
 * labelled with its full route pattern. Mount first in every sub-router.
 */
export const markRouteBase: RequestHandler = (req, res, next) => {
  res.locals.routeBase = req.baseUrl;
  next();
};

/** The route pattern a request matched: `/pos/v1/redemptions/:id`, `/healthz`, `/pos/v1/*` (refused before routing), or `(unmatched)`. */
export function routeLabel(req: Request, res: Response): string {
  const base = typeof res.locals.routeBase === 'string' ? res.locals.routeBase : '';
  const route = (req as { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return base + route.path;
  return base ? `${base}/*` : UNMATCHED_ROUTE;
}

function roleOf(res: Response): string {
  return (res.locals as { identity?: { terminal?: { role?: string } } }).identity?.terminal?.role ?? 'none';
}

/** Counts and times every request once it is answered (or the client went away), and idempotent replays. */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let done = false;
    const record = () => {
      if (done) return;
      done = true;
      const labels = { method: req.method, route: routeLabel(req, res), status: String(res.statusCode), role: roleOf(res) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      if (res.getHeader(REPLAYED_HEADER) === 'true') metrics.idempotentReplays.inc();
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

/** `GET /metrics`: the Prometheus exposition of this app's registry. */
export function metricsRoute(metrics: Metrics): RequestHandler {
  return async (_req, res) => {
    const body = await metrics.render();
    res.setHeader('Cache-Control', 'no-store');
    res.type(metrics.contentType).send(body);
  };
}

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
  // prom-client hashes a label object on every inc/observe; the label sets are few
  // (route patterns, not URLs), so each one's series are looked up once and kept.
  const series = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
  const seriesOf = (method: string, route: string, status: string, role: string) => {
    const key = `${method} ${route} ${status} ${role}`;
    let s = series.get(key);
    if (!s) {
      const labels = { method, route, status, role };
      s = { count: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      series.set(key, s);
    }
    return s;
  };
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let done = false;
    const record = () => {
      if (done) return;
      done = true;
      const s = seriesOf(req.method, routeLabel(req, res), String(res.statusCode), roleOf(res));
      s.count.inc();
      s.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
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

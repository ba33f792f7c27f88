import express, { type Express, type Request, type Router } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { errorHandler, requestLogger, unknownRoute } from '../../platform/http';
import type { Metrics } from '../../platform/metrics';
import { mountApiDocs } from '../../platform/openapi';
import { metricsRoute } from '../metrics';
import { buildPosOpenApi } from '../openapi';
import { methodNotAllowed } from './method-not-allowed';
import { renderProblem } from './problem';

/** `/docs` and `/openapi.json` of the cashier API, where "Try it out" sends each write with a new Idempotency-Key. */
export function mountPosDocs(app: Express, apiOrigin?: (req: Request) => string | undefined): void {
  mountApiDocs(app, buildPosOpenApi, { title: 'POS loyalty checkout: cashier API', freshIdempotencyKeys: true, apiOrigin });
}

export interface OpsAppOptions {
  logger: Logger;
  /** /healthz and /readyz, the same router the cashier port mounts. */
  health?: Router;
  /** Serve /metrics from these. */
  metrics?: Metrics;
  /** Serve /docs and /openapi.json. */
  docs?: boolean;
  /** The cashier API's origin as the browser on this page reaches it: "Try it out" calls it there. */
  tillOrigin?: (req: Request) => string | undefined;
}

/** The ops listener (OPS_PORT): what operators and scrapers read, on a port the tills never see. */
export function createOpsApp(opts: OpsAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(helmet());
  app.use(requestLogger(opts.logger.child({ listener: 'ops' })));
  if (opts.health) app.use(opts.health);
  if (opts.metrics) app.get('/metrics', metricsRoute(opts.metrics));
  if (opts.docs) mountPosDocs(app, opts.tillOrigin);
  app.use(methodNotAllowed(app));
  app.use(unknownRoute);
  app.use(errorHandler(opts.logger, renderProblem));
  return app;
}

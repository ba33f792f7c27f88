import express from 'express';
import { API_PREFIX } from '../contract';
import { boundedBodyDepth, errorHandler, requestLogger, unknownRoute } from '../platform/http';
import { mountApiDocs } from '../platform/openapi';
import type { SandboxContext } from './context';
import { renderLoyaltyError } from './errors';
import { buildLoyaltyOpenApi } from './openapi';
import { ADMIN_ROUTES, API_ROUTES } from './routes';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** The sandbox's Express app: v4.0 routes under API_PREFIX, the admin API under /_sandbox. */
export function buildApp(ctx: SandboxContext, bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLogger(ctx.logger));
  app.use(express.json({ limit: bodyLimitBytes, type: ['application/json', 'application/*+json'] }));
  app.use(boundedBodyDepth());

  app.get('/_sandbox/health', (_req, res) => {
    res.json({ status: 'ok', now: ctx.clock.iso() });
  });
  mountApiDocs(app, buildLoyaltyOpenApi, { title: 'Loyalty v4.0 sandbox' });

  const api = express.Router();
  for (const mount of API_ROUTES) mount(api, ctx);
  app.use(API_PREFIX, api);

  const admin = express.Router();
  for (const mount of ADMIN_ROUTES) mount(admin, ctx);
  app.use('/_sandbox', admin);

  app.use(unknownRoute);
  app.use(errorHandler(ctx.logger, renderLoyaltyError));
  return app;
}

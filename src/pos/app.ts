import express, { Express, Request, RequestHandler } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { boundedBodyDepth, errorHandler, jsonBodiesOnly, requestLogger, unknownRoute } from '../platform/http';
import { terminalAuth } from './auth';
import type { PosDeps } from './deps';
import { admissionBeforeErrors, awaitAdmission } from './security/admission';
import { mountRoutes } from './http/route';
import { tillDeadline } from './http/till-deadline';
import { enterLogContext } from './http/log-context';
import { methodNotAllowed } from './http/method-not-allowed';
import { mountPosDocs } from './http/ops';
import { cashierHeaders, cashierOf } from './audit/cashier';
import { renderProblem } from './http/problem';
import { operationOfRequest } from './http/problem-trace';
import { createIdempotencyStore, idempotency, type Idempotency } from './idempotency';
import { httpMetrics, markRouteBase, metricsRoute } from './metrics';
import { POS_ROUTES } from './routes';
import { corsFor, headerCountLimit, terminalRateLimit, type BffSecurity } from './security';
import type { TerminalRegistry } from './terminals';

export interface BffAppOptions {
  deps: PosDeps;
  registry: TerminalRegistry;
  logger: Logger;
  bodyLimitBytes: number;
  /** Extra ops routes (health) mounted before `/pos/v1`. */
  mountOps?: (app: Express) => void;
  /** `/metrics` on this app (default true; METRICS_ON may put it on the ops listener, or nowhere). */
  serveMetrics?: boolean;
  /** `/docs` and `/openapi.json` on this app (default true; DOCS_ON, as METRICS_ON). */
  serveDocs?: boolean;
  /** The origin of the /docs page on the ops port, allowed to call the cashier API from a browser ("Try it out"). */
  docsOrigin?: (req: Request) => string | undefined;
  /** Rate limits, auth-failure limit, CORS, header bound, mTLS (src/pos/security); each off when absent. */
  security?: BffSecurity;
  /** Idempotency-Key handling for every POST; default: in-process records (24 h, 30 s lease). */
  idempotency?: Idempotency;
  /**
   * Express `trust proxy` (TRUST_PROXY): with a balancer in front, the till's
   * address is taken from X-Forwarded-For as far as these hops are trusted.
   * Off by default: a till could otherwise claim any address.
   */
  trustProxy?: boolean | number | string;
  /** Put in front of routes that need Redis (redemptions, coupon locks) so they answer 503 at once while it is down. */
  requireRedis?: RequestHandler;
  /** How long the answer of a request the till stopped waiting for is kept for its read-back; default 24 h (as idempotency records). */
  answerTtlMs?: number;
}

const ANSWER_TTL_MS = 24 * 3_600_000;

/** The terminal and store on every log line of an authenticated request. */
function terminalLogProps(req: Request): Record<string, unknown> {
  const identity = (req.res?.locals as { identity?: { terminal: { id: string; role: string }; store: { id: string } } } | undefined)?.identity;
  return identity ? { terminalId: identity.terminal.id, storeId: identity.store.id, role: identity.terminal.role, ...(req.res ? cashierOf(req.res) : {}) } : {};
}

export function createBffApp(opts: BffAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (opts.trustProxy) app.set('trust proxy', opts.trustProxy);
  app.use(httpMetrics(opts.deps.metrics));
  app.use(operationOfRequest(POS_ROUTES, '/pos/v1'));
  app.use(helmet());
  app.use(requestLogger(opts.logger, terminalLogProps));
  if (opts.security?.maxHeaderCount) app.use(headerCountLimit(opts.security.maxHeaderCount));
  opts.mountOps?.(app);
  if (opts.serveMetrics ?? true) app.get('/metrics', metricsRoute(opts.deps.metrics));
  if (opts.serveDocs ?? true) mountPosDocs(app);

  const pos = express.Router();
  pos.use(markRouteBase);
  pos.use(corsFor(opts.security?.corsOrigins ?? [], opts.docsOrigin));
  pos.use(
    terminalAuth(opts.registry, {
      failures: opts.security?.authFailures,
      addressFailures: opts.security?.addressFailures,
      clientCertificates: opts.security?.clientCertificates,
    }),
  );
  if (opts.security?.terminalLimiter) pos.use(terminalRateLimit(opts.security.terminalLimiter, opts.logger));
  pos.use(jsonBodiesOnly);
  pos.use(express.json({ limit: opts.bodyLimitBytes, strict: true, type: ['application/json', 'application/*+json'] }));
  pos.use(boundedBodyDepth());
  pos.use(cashierHeaders({ requiredByDefault: opts.deps.settings.cashierRequired ?? false }));
  pos.use(enterLogContext);
  // Before the key: a same-key retry waits for its first run's answer as long as its till waits.
  pos.use(tillDeadline(opts.deps.settings, opts.deps.clock));
  // After auth and parsing: a key is scoped to the terminal and bound to the parsed body.
  const keys =
    opts.idempotency ??
    idempotency({
      store: createIdempotencyStore({ prefix: '' }),
      ttlMs: ANSWER_TTL_MS,
      leaseMs: 30_000,
      clock: opts.deps.clock,
      logger: opts.logger,
      answers: opts.deps.tillAnswers,
    });
  pos.use(keys.handler);
  pos.use(awaitAdmission);
  mountRoutes(pos, opts.deps, POS_ROUTES, {
    requireRedis: opts.requireRedis,
    inTime: { answers: opts.deps.tillAnswers, ttlMs: opts.answerTtlMs ?? ANSWER_TTL_MS, logger: opts.logger },
  });
  pos.use(admissionBeforeErrors);
  pos.use(keys.noteError);
  app.use('/pos/v1', pos);

  app.use(methodNotAllowed(app));
  app.use(unknownRoute);
  app.use(errorHandler(opts.logger, renderProblem));
  return app;
}

import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger, SerializedRequest, SerializedResponse } from 'pino';
import { pinoHttp } from 'pino-http';
import { AppError, isAppError } from './errors';
import { problem } from './problem';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id: the caller's `X-Request-Id` when it is sane, a new UUID otherwise. */
export function requestIdOf(req: Request): string {
  return String((req as { id?: unknown }).id ?? '');
}

/** Probes a balancer or an orchestrator sends every few seconds: readiness logs its changes itself (src/pos/http/health.ts). */
const PROBES = new Set(['/healthz', '/readyz']);

export function requestLogger(logger: Logger, extraProps?: (req: Request) => Record<string, unknown>): RequestHandler {
  return pinoHttp({
    logger,
    autoLogging: { ignore: (req) => (req.method === 'GET' || req.method === 'HEAD') && PROBES.has((req.url ?? '').split('?')[0]) },
    genReqId(req, res) {
      const sent = req.headers['x-request-id'];
      const id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customProps: extraProps ? (req) => extraProps(req as Request) : undefined,
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
    // Only what an operator needs; header values are never logged whole.
    serializers: {
      req: (req: SerializedRequest) => ({ id: req.id, method: req.method, url: req.url, remoteAddress: req.remoteAddress }),
      res: (res: SerializedResponse) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}

/** Unknown route: a clear 404 in the program's own error shape. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(problem('route_not_found', `No route for ${req.method} ${req.path}`));
};

/** How a program writes an error: the BFF as problem+json, the sandbox in the v4.0 shape. */
export type ErrorRenderer = (err: AppError, req: Request, res: Response) => void;

/** Turns anything thrown into an AppError; unknown errors become a masked 500. */
export function toAppError(err: unknown, req?: Request): AppError {
  if (isAppError(err)) return err;
  // Found by fuzzing: an undecodable path parameter (`%zz`) arrives as a URIError.
  if (err instanceof URIError) return problem('malformed_path', 'The request path has invalid percent-encoding');
  // zlib and brotli failures carry a numeric errno; body-parser makes them a bare 400.
  const z = err as { errno?: unknown; status?: unknown } | null;
  if (typeof z?.errno === 'number' && z.status === 400) {
    const encoding = String(req?.headers['content-encoding'] ?? 'its Content-Encoding').slice(0, 40);
    return problem('malformed_body_encoding', `The request body is not valid ${encoding} data`);
  }
  const e = err as { type?: string; status?: number; statusCode?: number; message?: string; limit?: number; expose?: boolean };
  switch (e?.type) {
    case 'entity.parse.failed':
      return problem('malformed_json', 'The request body is not valid JSON');
    case 'entity.too.large':
      return problem('payload_too_large', `The request body is larger than the limit of ${e.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return problem('unsupported_encoding', e.message ?? 'Unsupported content encoding');
    case 'request.aborted':
      return problem('request_aborted', 'The request was aborted by the client');
    case 'request.size.invalid':
      return problem('request_size_invalid', 'The request size did not match Content-Length');
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return problem('request_unreadable', 'The request body could not be read');
    default:
      break;
  }
  const status = e?.status ?? e?.statusCode;
  if (e?.expose && typeof status === 'number' && status >= 400 && status < 500) {
    return problem('bad_request', e.message ?? 'Bad request');
  }
  // Its own message may name internals: it goes to the log (as the cause), the answer stays generic.
  return problem('internal_error', 'An internal error occurred', { cause: err });
}

export function errorHandler(logger: Logger, render: ErrorRenderer): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const appError = toAppError(err, req);
    const log = (req as { log?: Logger }).log ?? logger;
    if (appError.status >= 500) {
      log.error({ errorId: appError.id, code: appError.code, err: appError.cause ?? err }, appError.message);
    } else {
      log.info({ errorId: appError.id, code: appError.code, status: appError.status }, appError.message);
    }
    if (appError.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(appError.retryAfterSeconds))));
    }
    render(appError, req, res);
  };
}

/**
 * A body must be JSON: anything else is refused with 415 before it is parsed,
 * so a till sending form data gets told so instead of "field missing".
 */
export const jsonBodiesOnly: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    return next(problem('unsupported_media_type', `Send the body as application/json (got ${req.headers['content-type'] ?? 'no content type'})`));
  }
  next();
};

/** No request of either interface nests deeper than this; deeper bodies are hostile or broken. */
export const MAX_BODY_DEPTH = 32;

/** How deep a parsed JSON value nests, walked iteratively so a hostile body cannot overflow the stack. */
export function jsonDepth(value: unknown, stopAt = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const d = depth + 1;
    if (d > deepest) deepest = d;
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(v as object)) stack.push([child, d]);
  }
  return deepest;
}

/**
 * Refuses a parsed body nested deeper than `maxDepth` with a 400, before any
 * code (fingerprinting, validation) recurses into it.
 */
export function boundedBodyDepth(maxDepth = MAX_BODY_DEPTH): RequestHandler {
  return (req, _res, next) => {
    if (req.body !== null && typeof req.body === 'object' && jsonDepth(req.body, maxDepth) > maxDepth) {
      return next(problem('body_too_deep', `The request body nests deeper than ${maxDepth} levels`));
    }
    next();
  };
}

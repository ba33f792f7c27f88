import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Express, Request, RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { z } from 'zod';

/**
 * Shared plumbing of the two OpenAPI documents (cashier API, loyalty v4.0
 * sandbox): naming existing zod schemas as components, Express paths in
 * OpenAPI form, and serving `/openapi.json` with Swagger UI at `/docs`.
 */

/**
 * Names an existing schema as `#/components/schemas/<id>` wherever the
 * documents use it, without copying it: the name goes on this very instance
 * (in zod-to-openapi's own metadata registry, not zod's global one), so
 * nested uses become `$ref`s too. `.openapi(name)` would name a copy instead.
 */
export function named<S extends z.ZodType>(schema: S, id: string, meta: { description?: string; example?: unknown } = {}): S {
  if (!zodToOpenAPIRegistry.has(schema)) zodToOpenAPIRegistry.add(schema, { _internal: { refId: id }, ...meta });
  return schema;
}

/** `/customers/:customerId` -> `/customers/{customerId}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Path parameter names of an Express path, in order. */
export function pathParams(expressPath: string): string[] {
  return [...expressPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
}

/**
 * The page's own policy, scoped to /docs: Swagger UI needs inline styles;
 * everything else stays 'self' (its assets are served from node_modules, never
 * a CDN). No `upgrade-insecure-requests`: on a store LAN the BFF is plain HTTP
 * and upgrading the page's asset requests to HTTPS would break it.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface ApiDocsOptions {
  /** Browser tab title of /docs. */
  title: string;
  /**
   * "Try it out" sends every write with a new Idempotency-Key instead of the
   * example Swagger UI fills in (the same one each time, so a second sale from
   * the page would be refused as a reused key). A key typed by hand is sent as
   * typed, so a replay can be tried on purpose.
   */
  freshIdempotencyKeys?: boolean;
  /**
   * Where "Try it out" sends its calls, per request, when the API is on another origin than this page (the
   * cashier port, when /docs is on the ops port): the document's server and the page's connect-src name it.
   */
  apiOrigin?: (req: Request) => string | undefined;
}

const KEY_HEADER = 'Idempotency-Key';

/** The examples a document gives its Idempotency-Key header parameters: what Swagger UI pre-fills. */
function keyExamples(document: object): string[] {
  const found = new Set<string>();
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const p = node as { in?: unknown; name?: unknown; example?: unknown };
    if (p.in === 'header' && typeof p.name === 'string' && p.name.toLowerCase() === KEY_HEADER.toLowerCase() && typeof p.example === 'string')
      found.add(p.example);
    for (const child of Object.values(node)) visit(child);
  };
  visit(document);
  return [...found];
}

/**
 * Swagger UI's requestInterceptor, run in the browser: a write whose key is
 * missing or a pre-filled example gets a new random one. Written as source
 * (swagger-ui-express copies a function's text into the page's init script),
 * with getRandomValues because randomUUID is missing on plain-HTTP pages.
 */
function freshKeyInterceptor(examples: string[]): (req: unknown) => unknown {
  return new Function(
    'req',
    `var examples = ${JSON.stringify(examples)};
    var method = String(req.method || 'GET').toUpperCase();
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return req;
    var headers = req.headers || (req.headers = {});
    var name = Object.keys(headers).filter(function (k) { return k.toLowerCase() === ${JSON.stringify(KEY_HEADER.toLowerCase())}; })[0];
    if (name && headers[name] && examples.indexOf(headers[name]) < 0) return req;
    if (name) delete headers[name];
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    headers[${JSON.stringify(KEY_HEADER)}] = 'docs-' + Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join('');
    return req;`,
  ) as (req: unknown) => unknown;
}

/** `GET /openapi.json` (the document, built once: on first request, or when mounted if the page needs its key examples) and `GET /docs/` (Swagger UI). */
export function mountApiDocs(app: Express, document: () => object, opts: ApiDocsOptions): void {
  let json: string | undefined;
  // The page needs the document's key examples now, so the document is built now too.
  const built = opts.freshIdempotencyKeys ? document() : undefined;
  const interceptor = built ? freshKeyInterceptor(keyExamples(built)) : undefined;
  const byOrigin = new Map<string, string>();
  app.get('/openapi.json', (req, res) => {
    const origin = opts.apiOrigin?.(req);
    if (!origin) {
      json ??= JSON.stringify(built ?? document());
      return void res.type('application/json').send(json);
    }
    // One entry per host name a browser used (a few); each names the API's origin as the document's server.
    let text = byOrigin.get(origin);
    if (!text) {
      text = JSON.stringify({ ...(built ?? document()), servers: [{ url: origin, description: 'The cashier API' }] });
      if (byOrigin.size < 32) byOrigin.set(origin, text);
    }
    res.type('application/json').send(text);
  });
  const docsCsp: RequestHandler = (req, res, next) => {
    const origin = opts.apiOrigin?.(req);
    res.setHeader('Content-Security-Policy', origin ? DOCS_CSP.replace("connect-src 'self'", `connect-src 'self' ${origin}`) : DOCS_CSP);
    next();
  };
  const swaggerOptions = { validatorUrl: null, displayRequestDuration: true, ...(interceptor ? { requestInterceptor: interceptor } : {}) };
  const ui = { swaggerUrl: '/openapi.json', customSiteTitle: opts.title, swaggerOptions };
  // serveFiles, not serve: serve shares one init script per process, and main runs the BFF and the sandbox together.
  app.use('/docs', docsCsp, ...swaggerUi.serveFiles(undefined, ui), swaggerUi.setup(undefined, ui));
}

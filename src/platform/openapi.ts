import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Express, RequestHandler } from 'express';
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
}

/** `GET /openapi.json` (the document, built once on first request) and `GET /docs/` (Swagger UI). */
export function mountApiDocs(app: Express, document: () => object, opts: ApiDocsOptions): void {
  let json: string | undefined;
  app.get('/openapi.json', (_req, res) => {
    json ??= JSON.stringify(document());
    res.type('application/json').send(json);
  });
  const docsCsp: RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    next();
  };
  const ui = { swaggerUrl: '/openapi.json', customSiteTitle: opts.title, swaggerOptions: { validatorUrl: null, displayRequestDuration: true } };
  // serveFiles, not serve: serve shares one init script per process, and main runs the BFF and the sandbox together.
  app.use('/docs', docsCsp, ...swaggerUi.serveFiles(undefined, ui), swaggerUi.setup(undefined, ui));
}

import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fixture } from './sandbox-published';

/**
 * Checks a request against the published reference's request schemas (ajv,
 * JSON Schema 2020-12, from the committed fixture): the operation exists,
 * the keys its security requires are sent, the JSON body fits the schema.
 */

export interface SentRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const COMPONENTS = 'https://reference.local/loyalty-v4.0';

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', `${COMPONENTS}#/$defs/`) : rewriteRefs(v);
  }
  return out;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  /** Header names, any one set of which must all be present. */
  security: string[][];
  body?: ValidateFunction;
  bodyRequired: boolean;
}

let routes: Route[] | undefined;

function build(): Route[] {
  // `example` is an OpenAPI keyword, not JSON Schema: allowed, ignored.
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema({ $id: COMPONENTS, $defs: rewriteRefs(fixture.components.schemas) as object });
  const schemes = fixture.components.securitySchemes as Record<string, { name: string }>;
  const out: Route[] = [];
  for (const [p, item] of Object.entries<Record<string, any>>(fixture.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const media = op.requestBody?.content?.['application/json'];
      out.push({
        method: method.toUpperCase(),
        template: p,
        pattern: new RegExp(`^${p.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        security: (op.security ?? []).map((req: Record<string, unknown>) =>
          Object.keys(req).map((name) => (schemes[name].name ?? 'authorization').toLowerCase()),
        ),
        body: media?.schema ? ajv.compile(rewriteRefs(media.schema) as object) : undefined,
        bodyRequired: Boolean(op.requestBody?.required),
      });
    }
  }
  return out;
}

/** What is wrong with `req` by the published reference; empty when it fits. */
export function referenceViolations(req: SentRequest): string[] {
  routes ??= build();
  const pathOnly = req.url.split('?')[0];
  const route = routes.find((r) => r.method === req.method && r.pattern.test(pathOnly));
  const where = `${req.method} ${pathOnly}`;
  if (!route) return [`${where}: not an operation of the reference fixture`];
  const problems: string[] = [];
  if (route.security.length && !route.security.some((set) => set.every((h) => req.headers[h] !== undefined))) {
    problems.push(`${where}: missing keys (${route.security.map((s) => s.join('+')).join(' or ')})`);
  }
  if (route.body) {
    if (!req.body) {
      if (route.bodyRequired) problems.push(`${where}: body required`);
    } else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(req.body);
      } catch {
        return [...problems, `${where}: body is not JSON`];
      }
      if (!route.body(parsed)) problems.push(...(route.body.errors ?? []).map((e) => `${route.template} ${req.method} body${e.instancePath}: ${e.message}`));
    }
  }
  return problems;
}

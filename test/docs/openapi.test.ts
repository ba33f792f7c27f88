import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { LOYALTY_ERROR_STATUS, LoyaltyErrorBody, OPERATIONS, Operation } from '../../src/contract';
import { DOCS_CSP } from '../../src/platform/openapi';
import { OPS_ROUTES, POS_ROUTES } from '../../src/pos/openapi';
import { ProblemSchema, ReadinessSchema } from '../../src/pos/answers';
import { PROBLEM_CATALOGUE, type ProblemCode } from '../../src/platform/problem-catalogue';
import { OPERATION_EXAMPLES } from '../../src/sandbox/openapi/examples';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

type ProblemAnswer = {
  content?: Record<string, { schema?: { allOf?: { properties?: { code?: { enum?: string[] } } }[] }; examples?: Record<string, { $ref: string }> }>;
};
type Doc = {
  security?: unknown[];
  paths: Record<string, Record<string, { operationId?: string; security?: unknown[]; responses: Record<string, ProblemAnswer> }>>;
  components: {
    responses: Record<string, { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }>;
    examples?: Record<string, { value: unknown }>;
    securitySchemes?: Record<string, { type: string; scheme?: string }>;
  };
};
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}
const committed = (file: string): Doc => JSON.parse(readFileSync(path.join(__dirname, '../../openapi', file), 'utf8'));
const posDoc = committed('pos-v1.json');
const loyaltyDoc = committed('loyalty-v4.json');

type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] }; rawPath?: string };
/** Every `METHOD /path` an Express app routes (Express path syntax), walking mounted routers. */
function servedRoutes(app: Express): string[] {
  const walk = (stack: Layer[], prefix: string): string[] =>
    stack.flatMap((l) => {
      if (l.route) return Object.keys(l.route.methods).map((m) => `${m.toUpperCase()} ${prefix}${l.route!.path}`);
      if (l.handle?.stack) return walk(l.handle.stack, prefix + (l.rawPath === '/' || l.rawPath === undefined ? '' : l.rawPath));
      return [];
    });
  return [...new Set(walk((app as unknown as { router: { stack: Layer[] } }).router.stack, ''))].sort();
}
function documentedRoutes(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{([^}]+)\}/g, ':$1')}`))
    .sort();
}

describe('OpenAPI documents against the running programs', () => {
  let s: Stack;
  // Every route is called once without a token: more 401s than the default per-minute auth-failure limit.
  beforeAll(async () => { s = await startStack({ store: 'memory', env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '1000' } }); });
  afterAll(async () => { await s?.close(); });

  it('each program serves its committed document at /openapi.json', async () => {
    const pos = await request(s.bff.url).get('/openapi.json').expect(200).expect('Content-Type', /application\/json/);
    expect(pos.body).toEqual(posDoc);
    const sandbox = await request(s.sandbox.url).get('/openapi.json').expect(200);
    expect(sandbox.body).toEqual(loyaltyDoc);
  });

  it('documents every route the BFF serves, and no route it does not', () => {
    expect(documentedRoutes(posDoc)).toEqual(servedRoutes(s.bff.app));
    expect(POS_ROUTES.length + OPS_ROUTES.length).toBe(documentedRoutes(posDoc).length);
  });

  it('documents every route the sandbox serves, and no route it does not', () => {
    expect(documentedRoutes(loyaltyDoc)).toEqual(servedRoutes(s.sandbox.app));
  });

  it('every /pos/v1 route needs a terminal token, as documented; the operator routes do not', async () => {
    // A bearer token, or (mTLS configured) a client certificate naming the terminal: test/security/tls.test.ts.
    expect(posDoc.security).toEqual([{ terminalToken: [] }, { clientCertificate: [] }]);
    expect(posDoc.components.securitySchemes).toEqual({
      terminalToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      clientCertificate: expect.objectContaining({ type: 'mutualTLS' }),
    });
    const http = request(s.bff.url);
    for (const r of POS_ROUTES) {
      const url = `/pos/v1${r.path.replace(/:id/, 'rdm_AAAAAAAAAAAA').replace(/:(\w+)/g, '1')}`;
      const res = await http[r.method](url).send(r.method === 'post' ? {} : undefined);
      expect({ route: `${r.method} ${r.path}`, status: res.status }).toEqual({ route: `${r.method} ${r.path}`, status: 401 });
      expect(ProblemSchema.safeParse(res.body).success).toBe(true);
      expect(posDoc.paths[`/pos/v1${r.path.replace(/:(\w+)/g, '{$1}')}`][r.method].responses['401']).toBeDefined();
    }
    for (const r of OPS_ROUTES) {
      expect(posDoc.paths[r.path].get.security).toEqual([]);
      const res = await http.get(r.path);
      expect({ route: r.path, ok: res.status === 200 || (r.path === '/readyz' && res.status === 503) }).toEqual({ route: r.path, ok: true });
    }
    const ready = ReadinessSchema.parse((await http.get('/readyz')).body);
    expect(ready.checks).toMatchObject({ sweeper: 'ok', worker: 'ok' });
  });

  it('each v4.0 operation asks for the keys the contract says, and the sandbox enforces exactly that', async () => {
    const http = request(s.sandbox.url);
    for (const op of Object.values(OPERATIONS) as Operation[]) {
      const p = `/api/v4.0/integrations${op.path.replace(/:(\w+)/g, '{$1}')}`;
      const documented = loyaltyDoc.paths[p][op.method.toLowerCase()].security;
      expect({ op: op.id, documented }).toEqual({
        op: op.id,
        documented: op.keys === 'both' ? [{ apiKey: [], secretKey: [] }] : [{ apiKey: [] }, { apiKey: [], secretKey: [] }],
      });
      const url = `/api/v4.0/integrations${op.path.replace(/:(\w+)/g, 'x1')}`;
      const method = op.method.toLowerCase() as 'get' | 'post' | 'delete';
      const res = await http[method](url).set({ apikey: SANDBOX_KEYS.apikey }).send(op.request ? {} : undefined);
      // Without the secret key: refused (1001) where both keys are documented, let through to validation otherwise.
      if (op.keys === 'both') expect({ op: op.id, code: res.body.code }).toEqual({ op: op.id, code: 1001 });
      else expect(res.status).not.toBe(401);
    }
  });

  it('every example in the cashier document matches its schema', () => {
    for (const r of POS_ROUTES) {
      for (const [name, ex] of Object.entries(r.body?.examples ?? {})) {
        const parsed = r.body!.schema.safeParse(ex.value);
        expect({ route: r.operationId, example: name, issues: parsed.error?.issues ?? [] }).toEqual({ route: r.operationId, example: name, issues: [] });
      }
      const parsed = r.success.schema.safeParse(r.success.example);
      expect({ route: r.operationId, issues: parsed.error?.issues ?? [] }).toEqual({ route: r.operationId, issues: [] });
      const queued = r.queued?.schema.safeParse(r.queued.example);
      expect({ route: r.operationId, issues: queued?.error?.issues ?? [] }).toEqual({ route: r.operationId, issues: [] });
    }
    const examples = Object.entries(posDoc.components.examples ?? {});
    expect(examples.length).toBeGreaterThan(8);
    for (const [name, { value }] of examples) {
      const example = value as { status: number; code: ProblemCode };
      expect({ name, ok: ProblemSchema.safeParse(example).success, code: example.code, status: example.status }).toEqual({
        name,
        ok: true,
        code: name,
        status: PROBLEM_CATALOGUE[example.code].status,
      });
    }
  });

  it("each operation's error answers list codes of their own status, with examples of those codes only", () => {
    for (const ops of Object.values(posDoc.paths)) {
      for (const op of Object.values(ops)) {
        for (const [status, answer] of Object.entries(op.responses).filter(([, a]) => a.content?.['application/problem+json'])) {
          const problem = answer.content?.['application/problem+json'];
          const codes = (problem?.schema?.allOf?.[1]?.properties?.code?.enum ?? []) as ProblemCode[];
          const where = `${op.operationId} ${status}`;
          expect({ where, listed: codes.length > 0 }).toEqual({ where, listed: true });
          expect({ where, statuses: [...new Set(codes.map((c) => PROBLEM_CATALOGUE[c]?.status))] }).toEqual({ where, statuses: [Number(status)] });
          const shown = Object.values(problem?.examples ?? {}).map((e) => e.$ref.replace('#/components/examples/', ''));
          expect({ where, unlisted: shown.filter((c) => !codes.includes(c as ProblemCode)) }).toEqual({ where, unlisted: [] });
        }
      }
    }
  });

  it('every error code the cashier document shows is one the BFF really raises', () => {
    // The codes' real answers are exercised in test/security (limits, mTLS, CORS, fuzzing) and test/e2e;
    // here only that no documented code is made up or misspelt.
    const sources = sourceFiles(path.join(__dirname, '../../src'))
      .filter((f) => !f.includes(`${path.sep}openapi${path.sep}`))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const codes = Object.values(posDoc.paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) =>
        Object.values(op.responses).flatMap((r) => r.content?.['application/problem+json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? []),
      ),
    );
    expect(codes).toEqual(expect.arrayContaining(['rate_limited', 'too_many_auth_failures', 'too_many_open_redemptions', 'too_many_headers', 'invalid_client_certificate']));
    expect([...new Set(codes)].filter((c) => !sources.includes(`'${c}'`))).toEqual([]);
  });

  it('every example in the v4.0 document matches the contract', () => {
    for (const op of Object.values(OPERATIONS) as Operation[]) {
      const ex = OPERATION_EXAMPLES[op.id as keyof typeof OPERATIONS];
      expect({ op: op.id, hasExample: ex !== undefined && (op.request === undefined || ex.request !== undefined) }).toEqual({ op: op.id, hasExample: true });
      if (op.request) expect({ op: op.id, issues: op.request.safeParse(ex!.request).error?.issues ?? [] }).toEqual({ op: op.id, issues: [] });
      expect({ op: op.id, issues: op.response.safeParse(ex!.response).error?.issues ?? [] }).toEqual({ op: op.id, issues: [] });
    }
    for (const [name, response] of Object.entries(loyaltyDoc.components.responses)) {
      const example = LoyaltyErrorBody.parse(response.content['application/json'].example);
      const status = Number(Object.entries(loyaltyDoc.paths['/api/v4.0/integrations/transactions/hold'].post.responses).find(([, v]) => JSON.stringify(v).includes(`/${name}"`))?.[0]);
      expect({ name, status }).toEqual({ name, status: LOYALTY_ERROR_STATUS[example.code as keyof typeof LOYALTY_ERROR_STATUS] });
    }
  });

  it.each(['bff', 'sandbox'] as const)('/docs on the %s: Swagger UI from this server, under a policy scoped to the page', async (which) => {
    const http = request(which === 'bff' ? s.bff.url : s.sandbox.url);
    await http.get('/docs').expect(301).expect('Location', '/docs/');
    const page = await http.get('/docs/').expect(200).expect('Content-Type', /text\/html/);
    expect(page.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(DOCS_CSP).not.toContain('upgrade-insecure-requests');
    // Every script and stylesheet is relative (this server), none from a CDN.
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(expect.arrayContaining(['./swagger-ui-bundle.js', './swagger-ui-init.js', './swagger-ui.css']));
    expect(assets.filter((a) => /^(https?:)?\/\//.test(a))).toEqual([]);
    await http.get('/docs/swagger-ui-bundle.js').expect(200).expect('Content-Type', /javascript/);
    const init = await http.get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('"swaggerUrl": "/openapi.json"');
    expect(init.text).toContain('"validatorUrl": null');
  });

  it("the BFF's other routes keep helmet's stricter policy", async () => {
    const res = await request(s.bff.url).get('/healthz').expect(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildFixture, USED_OPERATIONS } from '../../scripts/reference-fixture';

const fixture = JSON.parse(readFileSync(path.join(__dirname, 'loyalty-v4.0.fixture.json'), 'utf8'));

it('the committed fixture has every operation we use, and no prose', () => {
  for (const [method, p] of USED_OPERATIONS) {
    expect(fixture.paths[`/api/v4.0/integrations${p}`]?.[method]).toBeDefined();
  }
  // Prose is left out: the only description strings are the empty ones OpenAPI requires on responses.
  expect(JSON.stringify(fixture)).not.toMatch(/"(summary|description)":\s*"[^"]/);
});

it('the committed fixture is an OpenAPI 3.1 document prism can serve: every response has a description', () => {
  expect(fixture.openapi).toMatch(/^3\.1\.\d+$/);
  expect(typeof fixture.info.title).toBe('string');
  expect(typeof fixture.info.version).toBe('string');
  const missing: string[] = [];
  let responses = 0;
  for (const [p, item] of Object.entries<Record<string, { responses?: Record<string, Record<string, unknown>> }>>(fixture.paths)) {
    for (const [method, op] of Object.entries(item)) {
      // OpenAPI 3.1 lets an operation leave `responses` out (the published OTP operation does).
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        responses += 1;
        if (!('$ref' in r) && typeof r.description !== 'string') missing.push(`${method.toUpperCase()} ${p} ${status}`);
      }
    }
  }
  expect(responses).toBeGreaterThanOrEqual(USED_OPERATIONS.length);
  expect(missing).toEqual([]);
});

it('buildFixture keeps structure and examples, drops prose, and pulls in referenced schemas', () => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [m, p] of USED_OPERATIONS) {
    (paths[`/api/v4.0/integrations${p}`] ??= {})[m] = {
      description: 'prose',
      responses: { 200: { description: 'prose', content: { 'application/json': { schema: { $ref: '#/components/schemas/A' }, example: { x: 1 } } } } },
    };
  }
  const doc = {
    openapi: '3.1.0',
    info: { version: '4.0' },
    paths,
    components: {
      schemas: {
        A: { type: 'object', description: 'prose', properties: { description: { type: 'string' }, b: { $ref: '#/components/schemas/B' } } },
        B: { type: 'number' },
        Unused: {},
      },
      securitySchemes: {},
    },
  };
  const out = buildFixture(doc, 'doc.json') as any;
  const op = out.paths['/api/v4.0/integrations/payments'].post;
  expect(op.description).toBeUndefined();
  expect(op.responses[200].content['application/json'].example).toEqual({ x: 1 });
  // A response keeps the description key OpenAPI requires, emptied.
  expect(op.responses[200].description).toBe('');
  expect(out.components.schemas.A).toEqual({ type: 'object', properties: { description: { type: 'string' }, b: { $ref: '#/components/schemas/B' } } });
  expect(out.components.schemas.B).toEqual({ type: 'number' });
  expect(out.components.schemas.Unused).toBeUndefined();
});

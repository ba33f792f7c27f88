/**
 * Regenerates test/reference/loyalty-v4.0.fixture.json from the loyalty
 * service's published OpenAPI document: only the operations the BFF and the
 * sandbox use, their structure and example values, with prose (descriptions,
 * summaries) left out, and the component schemas they reach. A response keeps
 * `description: ""`: OpenAPI requires the key, and prism needs it.
 *
 *   npm run reference:fixture [-- path/to/loyalty-v4.0-openapi.json]
 *
 * Default source: ../shared/reference/loyalty-v4.0-openapi.json (the copy the
 * team keeps beside the repository). The fixture is committed, so tests never
 * need the source.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const PREFIX = '/api/v4.0/integrations';

/** method + path (below PREFIX) of every operation we implement or call. */
export const USED_OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ['post', '/customers'],
  ['post', '/transactions/hold'],
  ['get', '/transactions/hold/{holdReferenceId}'],
  ['delete', '/transactions/hold/{holdReferenceId}'],
  ['post', '/transactions/otp'],
  ['post', '/payments'],
  ['post', '/transactions/refund'],
  ['get', '/customers/{customerId}/coupons'],
  ['get', '/customers/{customerId}/tier-progress'],
  ['get', '/customers/{customerId}/balance'],
  ['get', '/customers/{customerId}/hash'],
  ['delete', '/customers/{customerId}'],
  ['post', '/events'],
  ['post', '/batch/orders'],
  ['get', '/batches/{batchId}/status'],
  ['post', '/coupons/validate'],
  ['post', '/coupons/{code}/validate'],
  ['post', '/coupons/burn'],
  ['delete', '/coupons/{lockReference}'],
  ['post', '/orders/reward-preview'],
  ['get', '/orders/{orderId}/transactions'],
  ['get', '/transactions'],
  ['get', '/configurations/redemption'],
  // Published extensions (track order, redeem by transaction id).
  ['post', '/orders'],
  ['post', '/transactions/redeem'],
];

const PROSE = new Set(['description', 'summary', 'externalDocs']);

/** Drops prose and vendor extensions, keeps structure and example values. */
function strip(node: unknown, inProperties = false): unknown {
  if (Array.isArray(node)) return node.map((n) => strip(n));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    // Under `properties`, keys are field names (a field may be called "description").
    if (!inProperties && (PROSE.has(k) || k.startsWith('x-'))) continue;
    out[k] = strip(v, k === 'properties' && !inProperties);
  }
  return out;
}

/**
 * OpenAPI requires a `description` on every Response Object, and prism refuses to
 * serve a response without one: each keeps the key, emptied (structure, no prose).
 */
function keepResponseDescriptions(op: { responses?: Record<string, Record<string, unknown>> }): unknown {
  const responses = op.responses ?? {};
  for (const [status, response] of Object.entries(responses)) {
    if (!('$ref' in response)) responses[status] = { description: '', ...response };
  }
  return op;
}

function refsIn(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, found));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') found.add(v);
      else refsIn(v, found);
    }
  }
}

/** The parts of the published OpenAPI document the fixture reads. */
type PublishedDoc = {
  openapi: string;
  info?: { version?: string };
  paths: Record<string, Record<string, unknown> | undefined>;
  components: { schemas: Record<string, unknown>; securitySchemes: unknown };
};

export function buildFixture(doc: PublishedDoc, source: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [method, p] of USED_OPERATIONS) {
    const item = doc.paths[PREFIX + p];
    const op = item?.[method];
    if (!op) throw new Error(`${method.toUpperCase()} ${PREFIX}${p} is not in ${source}`);
    paths[PREFIX + p] = { ...(paths[PREFIX + p] ?? {}), [method]: keepResponseDescriptions(strip(op) as Parameters<typeof keepResponseDescriptions>[0]) };
  }
  // Component schemas reached from those operations, transitively.
  const schemas: Record<string, unknown> = {};
  const pending = new Set<string>();
  refsIn(paths, pending);
  while (pending.size) {
    const [ref] = pending;
    pending.delete(ref);
    const name = ref.replace('#/components/schemas/', '');
    if (schemas[name] || !ref.startsWith('#/components/schemas/')) continue;
    const schema = doc.components.schemas[name];
    if (!schema) throw new Error(`unresolved ${ref}`);
    schemas[name] = strip(schema);
    refsIn(schemas[name], pending);
  }
  return {
    $comment: `Derived by scripts/reference-fixture.ts from the loyalty service's published OpenAPI ${doc.info?.version ?? ''} (${path.basename(source)}): the operations we use, structure and example values only. Do not edit; regenerate.`,
    openapi: doc.openapi,
    info: { title: 'loyalty v4.0 reference fixture', version: doc.info?.version ?? '4.0' },
    paths,
    components: { schemas, securitySchemes: strip(doc.components.securitySchemes) },
  };
}

if (require.main === module) {
  const source = process.argv[2] ?? path.resolve(__dirname, '../../shared/reference/loyalty-v4.0-openapi.json');
  const out = path.resolve(__dirname, '../test/reference/loyalty-v4.0.fixture.json');
  const fixture = buildFixture(JSON.parse(readFileSync(source, 'utf8')) as PublishedDoc, source);
  writeFileSync(out, JSON.stringify(fixture, null, 2) + '\n');
  console.log(`wrote ${path.relative(process.cwd(), out)} (${Object.keys(fixture.paths as object).length} paths)`);
}

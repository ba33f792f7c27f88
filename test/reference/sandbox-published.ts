import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * The published v4.0 reference as every test reads it: the committed fixture
 * (test/reference/loyalty-v4.0.fixture.json), its response schemas compiled
 * with ajv, a check that every documented property is present, and values
 * assembled from the published examples.
 */

export const PREFIX = '/api/v4.0/integrations';
export const fixture = JSON.parse(readFileSync(path.join(__dirname, 'loyalty-v4.0.fixture.json'), 'utf8'));

type Schema = Record<string, any>;

/** `$ref`s to components replaced by the component itself (the fixture's schemas used here are not recursive). */
export function inline(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(inline);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace('#/components/schemas/', '');
    const target = fixture.components.schemas[name];
    if (!target) throw new Error(`unresolved ${s.$ref}`);
    return inline(target);
  }
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, inline(v)]));
}

export function operation(method: string, p: string): Schema {
  const op = fixture.paths[PREFIX + p]?.[method];
  if (!op) throw new Error(`${method} ${p} is not in the fixture`);
  return op;
}

/** The published 200 schema of an operation, or undefined when the reference documents no body. */
function responseSchema(method: string, p: string): Schema | undefined {
  const schema = operation(method, p).responses?.['200']?.content?.['application/json']?.schema;
  return schema ? inline(schema) : undefined;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** Every property a schema lists, missing from the value, as paths (recursing into objects and array items). */
function missingDocumented(schema: Schema, value: unknown, at = ''): string[] {
  const out: string[] = [];
  if (schema.type === 'object' && schema.properties && value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, sub] of Object.entries(schema.properties as Record<string, Schema>)) {
      const v = (value as Record<string, unknown>)[name];
      if (v === undefined) out.push(`${at}${name}`);
      else out.push(...missingDocumented(sub, v, `${at}${name}.`));
    }
  }
  if (schema.type === 'array' && schema.items && Array.isArray(value)) {
    value.forEach((item, i) => out.push(...missingDocumented(schema.items, item, `${at}${i}.`)));
  }
  return out;
}

/** ajv's errors plus every documented property that is absent; empty when the answer conforms. */
export function conformance(method: string, p: string, body: unknown): string[] {
  return [...schemaProblems(method, p, body), ...missingDocumented(publishedSchema(method, p), body).map((m) => `${m} is documented but absent`)];
}

/** ajv's errors alone: the answer against the published schema, which requires no property. */
export function schemaProblems(method: string, p: string, body: unknown): string[] {
  const key = `${method} ${p}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(publishedSchema(method, p));
    compiled.set(key, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}`);
}

const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

function publishedSchema(method: string, p: string): Schema {
  const schema = responseSchema(method, p);
  if (!schema) throw new Error(`${method} ${p} has no published response schema`);
  return schema;
}

/**
 * The request a published example makes: the body's `example` (or first of
 * `examples`), else one assembled from the `example` of every property
 * (nested objects and arrays of objects included), nulls kept.
 */
export function publishedRequest(method: string, p: string): Record<string, unknown> {
  const content = operation(method, p).requestBody?.content?.['application/json'];
  if (!content) throw new Error(`${method} ${p} has no request body`);
  if (content.example !== undefined) return content.example;
  const first = content.examples && Object.values(content.examples as Record<string, { value: unknown }>)[0];
  if (first) return first.value as Record<string, unknown>;
  return fromPropertyExamples(content.schema) as Record<string, unknown>;
}

/**
 * A value made of the example values a schema's properties carry (nested
 * objects and arrays of objects included), as `prism mock` builds an answer
 * that has no example of its own; undefined when no property has one.
 */
export function fromPropertyExamples(schema: Schema): unknown {
  const s = inline(schema);
  if ('example' in s) return s.example;
  if (s.type === 'array' && s.items) {
    const item = fromPropertyExamples(s.items);
    return item === undefined ? undefined : [item];
  }
  if (s.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(s.properties as Record<string, Schema>)) {
      const v = fromPropertyExamples(sub);
      if (v !== undefined) out[name] = v;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return undefined;
}

/** The published error table (status per code), as the reference's status-and-error-codes page lists it. */
export const PUBLISHED_STATUS: Record<number, number> = {
  1000: 401,
  1001: 401,
  1002: 403,
  2000: 412,
  2001: 422,
  3000: 400,
  3001: 422,
  3003: 422,
  3016: 400,
  4000: 400,
  4004: 404,
  5000: 500,
  5003: 503,
  7000: 404,
  9001: 422,
  9002: 404,
  9004: 422,
  9005: 404,
  9006: 404,
  9008: 422,
};

/** The published categories by the thousands digit of the code. */
export const PUBLISHED_CATEGORY: Record<number, string> = {
  1: 'AUTHENTICATION_ERROR',
  2: 'REQUEST_ERROR',
  3: 'PAYLOAD_ERROR',
  4: 'GENERAL_ERROR',
  5: 'SERVER_ERROR',
  6: 'CONFIGURATIONS_ERROR',
  7: 'CUSTOMER_ERROR',
  8: 'SUBSCRIPTION_ERROR',
  9: 'TRANSACTIONS_ERROR',
};

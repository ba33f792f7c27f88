import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The published reference fixture (see scripts/reference-fixture.ts). */
export const fixture = JSON.parse(readFileSync(path.join(__dirname, 'loyalty-v4.0.fixture.json'), 'utf8'));
export const PREFIX = '/api/v4.0/integrations';

type Schema = Record<string, unknown>;

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? resolve(fixture.components.schemas[ref.replace('#/components/schemas/', '')]) : schema;
}

/**
 * An answer made of the example values the schema's properties carry, as
 * `prism mock` builds one when an answer has no example of its own
 * (undefined when no property has an example).
 */
export function fromPropertyExamples(schema: Schema): unknown {
  const s = resolve(schema);
  if ('example' in s) return s.example;
  if (s.type === 'array' && s.items) {
    const item = fromPropertyExamples(s.items as Schema);
    return item === undefined ? undefined : [item];
  }
  if (s.properties) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.properties as Record<string, Schema>)) {
      const value = fromPropertyExamples(v);
      if (value !== undefined) out[k] = value;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return undefined;
}

export interface PublishedAnswer {
  name: string;
  status: string;
  /** Undefined: the reference documents no body (e.g. `200` with a description only). */
  body: unknown;
}

/** Every 2xx answer the reference publishes for an operation: its `example`, each of its `examples`, and the one its property examples make. */
export function publishedAnswers(method: string, p: string): PublishedAnswer[] {
  const op = fixture.paths[PREFIX + p]?.[method];
  if (!op) throw new Error(`${method} ${p} is not in the fixture`);
  const out: PublishedAnswer[] = [];
  for (const [status, response] of Object.entries<Record<string, any>>(op.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    const media = response.content?.['application/json'];
    if (!media) {
      out.push({ name: 'no body', status, body: undefined });
      continue;
    }
    if ('example' in media) out.push({ name: 'example', status, body: media.example });
    for (const [name, ex] of Object.entries<{ value: unknown }>(media.examples ?? {})) out.push({ name: `examples.${name}`, status, body: ex.value });
    const assembled = media.schema ? fromPropertyExamples(media.schema) : undefined;
    if (assembled !== undefined) out.push({ name: 'property examples', status, body: assembled });
  }
  return out;
}

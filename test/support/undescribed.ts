import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The fields of the cashier document without a description (test/docs/descriptions.test.ts). */
type Schema = {
  $ref?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
type Described = { description?: string; $ref?: string; name?: string; schema?: Schema };
export type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: Described[];
        requestBody?: { content: Record<string, { schema?: Schema }> };
        responses: Record<string, { headers?: Record<string, Described>; content?: Record<string, { schema?: Schema }> }>;
      }
    >
  >;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Described>; headers: Record<string, Described> };
};

const doc = JSON.parse(readFileSync(path.join(__dirname, '../../openapi/pos-v1.json'), 'utf8')) as Doc;

/** A property's description may sit on it, or on the one schema it wraps (`allOf: [$ref]`). */
const described = (s: Schema) => Boolean(s.description || s.$ref);

function walk(s: Schema | undefined, where: string, out: Set<string>): void {
  if (!s || typeof s !== 'object') return;
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    if (!described(p)) out.add(`${where}.${name}`);
    walk(p, `${where}.${name}`, out);
  }
  walk(s.items, `${where}[]`, out);
  if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${where}{}`, out);
  for (const v of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(v, where, out);
}

/** Every field of the document without a description, by where it is. */
export function undescribed(d: Doc = doc): string[] {
  const out = new Set<string>();
  for (const [name, s] of Object.entries(d.components.schemas)) walk(s, name, out);
  for (const [name, p] of Object.entries(d.components.parameters)) if (!p.description) out.add(`parameter ${name}`);
  for (const [name, h] of Object.entries(d.components.headers)) if (!h.description) out.add(`header ${name}`);
  for (const ops of Object.values(d.paths)) {
    for (const op of Object.values(ops)) {
      for (const p of op.parameters ?? []) if (!p.$ref && !p.description) out.add(`${op.operationId} parameter ${p.name}`);
      for (const c of Object.values(op.requestBody?.content ?? {})) walk(c.schema, `${op.operationId} body`, out);
      for (const [status, r] of Object.entries(op.responses)) {
        for (const [name, h] of Object.entries(r.headers ?? {})) if (!h.$ref && !h.description) out.add(`${op.operationId} ${status} header ${name}`);
        for (const c of Object.values(r.content ?? {})) walk(c.schema, `${op.operationId} ${status}`, out);
      }
    }
  }
  return [...out].sort();
}

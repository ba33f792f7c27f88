import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fixture from '../reference/loyalty-v4.0.fixture.json';

/**
 * Checks a sandbox answer against the published v4.0 reference (the derived
 * fixture): the 2xx response schema of that method and path, components
 * resolved. Fails with ajv's errors.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'ref', components: (fixture as { components: unknown }).components }, 'ref');

const PREFIX = '/api/v4.0/integrations';

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' ? `ref${v}` : rewrite(v);
  return out;
}

const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

export function referenceValidator(method: string, path: string, status = 200) {
  const key = `${method} ${path} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    const op = (fixture as any).paths[PREFIX + path]?.[method];
    const schema = op?.responses?.[String(status)]?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`no published ${status} schema for ${method} ${path}`);
    validate = ajv.compile(rewrite(schema) as object);
    compiled.set(key, validate);
  }
  return validate;
}

/** Asserts `body` matches the published response schema of `method path`. */
export function expectReferenceShape(method: string, path: string, body: unknown, status = 200): void {
  const validate = referenceValidator(method, path, status);
  const ok = validate(body);
  if (!ok) throw new Error(`${method.toUpperCase()} ${path}: answer does not match the published schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}

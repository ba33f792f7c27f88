import type { Request } from 'express';
import { z } from 'zod';
import { CustomerId } from '../../contract';
import { describeIssues, fieldErrors } from '../../platform/validation';
import { loyaltyErrors } from '../errors';

/** A required field that was not sent (as opposed to one sent with a bad value). */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type') return !('input' in issue) || issue.input === undefined;
  if (issue.code === 'custom') return (issue.params as { rule?: string } | undefined)?.rule === 'missing_one_of';
  return false;
}

/** Objects whose values are the caller's own data: a `null` in them is a value, not "not given". */
const FREE_FORM = new Set(['extra', 'events']);

/**
 * The body with every `null` property removed: the published examples send
 * `null` for fields they do not use (`"amountToHold": null`), so `null` on an
 * optional field means "not given". Free-form objects keep their nulls.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null) continue;
    out[k] = FREE_FORM.has(k) ? v : withoutNulls(v);
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Validates `input` with a contract schema, in v4.0 terms: `null` on an
 * optional field is ignored, `null` on a required one is 422/3001, anything
 * missing is 400/3000 naming the fields, any other problem 422/3003 naming them.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what = 'request body'): z.output<S> {
  const result = schema.safeParse(withoutNulls(input), { reportInput: true });
  if (result.success) return result.data;
  const missing = result.error.issues.filter(isMissing);
  const nulls = missing.filter((i) => i.path.length > 0 && valueAt(input, i.path) === null);
  if (nulls.length) {
    const names = nulls.map((i) => i.path.map(String).join('.'));
    throw loyaltyErrors.nullArgument(
      `null is not a value for required field${names.length > 1 ? 's' : ''} in ${what}: ${names.join(', ')}`,
      fieldErrors(new z.ZodError(nulls)),
    );
  }
  if (missing.length) {
    const names = missing.map((i) => (i.path.length ? i.path.map(String).join('.') : i.message));
    throw loyaltyErrors.missingField(
      `Missing required field${names.length > 1 ? 's' : ''} in ${what}: ${names.join(', ')}`,
      fieldErrors(new z.ZodError(missing)),
    );
  }
  const errors = fieldErrors(result.error);
  throw loyaltyErrors.invalidValue(`Invalid ${what}: ${describeIssues(errors)}`, 'InvalidValue', { errors });
}

/** The JSON object body of a request, validated; anything that is not a JSON object is 400/3016. */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  if (!req.is('application/json') && !req.is('application/*+json')) {
    throw loyaltyErrors.invalidPayload('The request body must be JSON, sent with Content-Type: application/json');
  }
  const body: unknown = req.body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw loyaltyErrors.invalidPayload('The request body must be a JSON object');
  }
  return parseWith(schema, body);
}

/** A customer id from the path, held to the same rule as in bodies. */
export function customerIdParam(req: Request): string {
  const raw = req.params.customerId;
  const parsed = CustomerId.safeParse(raw);
  if (!parsed.success) throw loyaltyErrors.invalidValue('customerId in the path must be 1 to 200 characters', 'InvalidValue');
  return parsed.data;
}

/** Any other path parameter: present and reasonably short. */
export function pathParam(req: Request, name: string): string {
  const raw = req.params[name];
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 200) {
    throw loyaltyErrors.invalidValue(`${name} in the path must be 1 to 200 characters`, 'InvalidValue');
  }
  return raw;
}

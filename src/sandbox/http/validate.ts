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

/**
 * Validates `input` with a contract schema, in v4.0 terms: anything missing
 * is 400/3000 naming the fields, any other problem 422/3003 naming them.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what = 'request body'): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const missing = result.error.issues.filter(isMissing);
  if (missing.length) {
    const names = missing.map((i) => (i.path.length ? i.path.map(String).join('.') : i.message));
    throw loyaltyErrors.missingField(`Missing required field${names.length > 1 ? 's' : ''} in ${what}: ${names.join(', ')}`, fieldErrors(new z.ZodError(missing)));
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

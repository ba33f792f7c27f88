import { z } from 'zod';
import { FieldError } from './errors';
import { problem } from './problem';

/** Turns zod issues into field errors a till developer can act on. */
export function fieldErrors(error: z.ZodError, topLevel = '(body)'): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : topLevel,
    message: issue.message,
  }));
}

export function describeIssues(errors: FieldError[]): string {
  return errors
    .slice(0, 5)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
}

/** Parses `input` with `schema`, or throws a 400 that names every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = 'request body'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = fieldErrors(result.error, what === 'request body' ? '(body)' : `(${what})`);
  throw problem('validation_failed', `Invalid ${what}: ${describeIssues(errors)}`, { errors });
}

/** True when A and B are the same type: a schema's output and the type it documents, kept in step by the compiler. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

import { AppError, type AppErrorOptions, ERROR_CLASS_OF_STATUS } from './errors';
import { PROBLEM_CATALOGUE, type ProblemCode, type StatusOf } from './problem-catalogue';

/** The error class a code's status picks: `problem('payment_id_taken', ...)` is a ConflictError. */
export type ProblemError<C extends ProblemCode> = InstanceType<(typeof ERROR_CLASS_OF_STATUS)[StatusOf<C>]>;

/**
 * The error a till sees, built from its catalogue row: the compiler checks the
 * code, and the status is the one the catalogue declares for it.
 */
export function problem<C extends ProblemCode>(code: C, detail: string, options?: AppErrorOptions): ProblemError<C> {
  const ErrorClass = ERROR_CLASS_OF_STATUS[PROBLEM_CATALOGUE[code].status];
  return new ErrorClass(code, detail, options) as ProblemError<C>;
}

/** Whether `err` is a problem with one of these codes. */
export function isProblem<C extends ProblemCode>(err: unknown, ...codes: C[]): err is AppError & { code: C } {
  return err instanceof AppError && (codes as readonly string[]).includes(err.code);
}

import os from 'node:os';

/**
 * The environment a BFF started as a child process gets from the test: PATH
 * and HOME, and the problem trace directory (jest's global setup sets it), so
 * the codes such a BFF answers are checked against its operations too; in the
 * order-mode project, SALES_RECORDED_AS.
 * Not for a previous release (test/upgrade): it has no trace and is not checked.
 */
export function childEnv(): Record<string, string> {
  const trace = process.env.POS_PROBLEM_TRACE_DIR;
  const salesAs = process.env.E2E_SALES_RECORDED_AS;
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    ...(trace ? { POS_PROBLEM_TRACE_DIR: trace } : {}),
    // The sale suites' run in order mode (test/support/sales-as-orders.ts).
    ...(salesAs ? { SALES_RECORDED_AS: salesAs } : {}),
  };
}

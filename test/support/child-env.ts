import os from 'node:os';

/**
 * The environment a BFF started as a child process gets from the test: PATH
 * and HOME, and the problem trace directory (jest's global setup sets it), so
 * the codes such a BFF answers are checked against its operations too.
 * Not for a previous release (test/upgrade): it has no trace and is not checked.
 */
export function childEnv(): Record<string, string> {
  const trace = process.env.POS_PROBLEM_TRACE_DIR;
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...(trace ? { POS_PROBLEM_TRACE_DIR: trace } : {}) };
}

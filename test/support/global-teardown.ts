import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { Config } from '@jest/types';
import { disagreements, isWholeRun, readTrace, summary } from './problem-codes';

export default async function globalTeardown(globalConfig: Config.GlobalConfig): Promise<void> {
  const child = (globalThis as { __REDIS_CHILD__?: ChildProcess }).__REDIS_CHILD__;
  if (child && child.exitCode === null) {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 3000).unref();
    });
  }
  checkProblemCodes(globalConfig);
}

/** Fails the run naming each code answered on an operation that does not list it, and (on a whole run) each listed code no test produced. */
function checkProblemCodes(globalConfig: Config.GlobalConfig): void {
  const dir = process.env.POS_PROBLEM_TRACE_DIR;
  if (!dir) return;
  const answered = readTrace(dir);
  rmSync(dir, { recursive: true, force: true });
  const whole = isWholeRun(globalConfig);
  const wrong = disagreements(answered, whole);
  console.log(`\nProblem codes: ${summary(answered)}${whole ? '' : ' (a filtered run: only answered codes are checked)'}.`);
  if (wrong.length) throw new Error(`Problem codes and the documented lists disagree:\n- ${wrong.join('\n- ')}`);
}

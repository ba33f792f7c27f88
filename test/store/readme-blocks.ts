import { ChildProcess, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { docWithHeading } from '../support/docs';

/** The `nth` ```bash block after the heading line that starts with `heading` in the Markdown `file`. */
export function docBlock(file: string, heading: string, nth = 0): string {
  const section = readFileSync(file, 'utf8').split(`\n${heading}`)[1] ?? '';
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)];
  if (!blocks[nth]) throw new Error(`${file} has no bash block #${nth} under "${heading}"`);
  return blocks[nth][1];
}

/** The `nth` ```bash block under `heading` in whichever document has that heading (README.md or a page of docs/). */
export function readmeBlock(heading: string, nth = 0): string {
  return docBlock(docWithHeading(heading).file, heading, nth);
}

export function runBash(script: string, opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs ?? 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve({ stdout, stderr }),
    ),
  );
}

/** Resolves with everything the child printed once `pattern` shows up; rejects if it exits first. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${out}`));
    });
  });
}

/** Waits for a child to exit; resolves with its exit code and all it printed. */
export function exited(child: ChildProcess, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not exit within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * A doc's `line` read as the `printed` command (a hint the program logs) with its `<placeholders>`
 * filled and maybe options added after: the printed command so filled, or undefined when the line
 * is not that command.
 */
export function filledCommand(printed: string, line: string): string | undefined {
  const placeholder = /"?<([a-z-]+)>"?/g;
  const pattern = new RegExp(
    `^${printed
      .split(placeholder)
      .map((part, j) => (j % 2 ? '("[^"]*"|\\S+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('')}( .*)?$`,
  );
  const m = pattern.exec(line);
  if (!m) return undefined;
  let k = 1;
  return printed.replace(placeholder, () => m[k++]) + (m[k] ?? '');
}

import { ChildProcess, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The first ```bash block under `heading` in README.md. */
export function readmeBlock(heading: string, nth = 0): string {
  const section = readFileSync('README.md', 'utf8').split(heading)[1] ?? '';
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)];
  if (!blocks[nth]) throw new Error(`README has no bash block #${nth} under "${heading}"`);
  return blocks[nth][1];
}

/** The `nth` ```bash block under `heading` in a Markdown file, before the next heading of the same level. */
export function docBlock(file: string, heading: string, nth = 0): string {
  const after = readFileSync(file, 'utf8').split(`\n${heading}\n`)[1] ?? '';
  const level = /^#+/.exec(heading)?.[0] ?? '#';
  const section = after.split(new RegExp(`\n${level} `))[0];
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)];
  if (!blocks[nth]) throw new Error(`${file} has no bash block #${nth} under "${heading}"`);
  return blocks[nth][1];
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

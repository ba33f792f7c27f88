import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { childEnv } from '../support/child-env';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { REPO, startProgram } from '../store/program';

/**
 * Every line the program writes, on stdout and stderr, is a JSON log line, also what
 * it does not write itself: Node's own warnings and libraries' console output
 * (ioredis warns through console.warn when sent a password Redis does not need).
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-json-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Collects stdout and stderr apart, line by line; `until` resolves once a line matches. */
function watch(child: ChildProcess) {
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += String(d)));
  child.stderr!.on('data', (d) => (out.stderr += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const until = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out.stdout}\n${out.stderr}`)), timeoutMs);
      const check = () => {
        if (pattern.test(out.stdout + out.stderr)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`exited before ${pattern}:\n${out.stdout}\n${out.stderr}`));
      });
      check();
    });
  return { out, exited, until };
}

/** Each non-empty line parsed; a line that is not JSON fails the test, naming it. */
function jsonLines(text: string, stream: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`a line on ${stream} is not JSON: ${l}`);
      }
    });
}

describe('every line the program writes is JSON', () => {
  it('Node warnings, console output of libraries and the Redis client warning become log lines', async () => {
    const file = path.join(dir, 'terminals.json');
    addStore(file, { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Retail' }, branch: { uniqueId: 'b-1', name: 'Main' } });
    addTerminal(file, { storeId: 'store-001', role: 'cashier' });
    const redis = new URL(process.env.TEST_REDIS_URL!);
    // The test Redis has no password: ioredis says so through console.warn.
    redis.password = 'not-needed-here';
    const child = startProgram(
      {
        LOYALTY_BASE_URL: 'http://127.0.0.1:9',
        LOYALTY_API_KEY: 'live_key',
        LOYALTY_SECRET_KEY: 'live_secret',
        REDIS_URL: redis.toString(),
        REDIS_KEY_PREFIX: `json-lines:${process.pid}:`,
        TERMINALS_FILE: file,
        SHUTDOWN_GRACE_SECONDS: '0',
        NODE_OPTIONS: `--import ${pathToFileURL(path.join(__dirname, 'fixtures/warning-library.mjs')).href}`,
      },
      ['--bff-only'],
    );
    const { out, exited, until } = watch(child);
    try {
      await until(/POS BFF listening/);
      await until(/does not require a password/);
      child.kill('SIGUSR2');
      await until(/library: done/);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    const lines = [...jsonLines(out.stdout, 'stdout'), ...jsonLines(out.stderr, 'stderr')];
    const find = (pattern: RegExp) => lines.filter((l) => pattern.test(String(l.msg)));
    expect(find(/does not require a password/)[0]).toMatchObject({ level: 40, component: 'console' });
    expect(find(/^MaxListenersExceededWarning: /)).toEqual([
      expect.objectContaining({ level: 40, component: 'node', warning: { name: 'MaxListenersExceededWarning' } }),
    ]);
    expect(find(/^DeprecationWarning: .*punycode/)).toEqual([
      expect.objectContaining({ level: 40, component: 'node', warning: { name: 'DeprecationWarning', code: 'DEP0040' } }),
    ]);
    expect(find(/^library: a console warning$/)).toEqual([expect.objectContaining({ level: 40, component: 'console' })]);
    expect(find(/^Error: library: a console error\n {4}at /)).toEqual([expect.objectContaining({ level: 50, component: 'console' })]);
    expect(find(/^library: a console line$/)).toEqual([expect.objectContaining({ level: 30, component: 'console' })]);
    expect(out.stderr).toBe('');
    expect(out.stdout).not.toContain('not-needed-here');
  }, 60_000);

  it('a warning emitted before the logger exists is held, then written as a log line', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/early-warning.ts')], {
      cwd: REPO,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { out, exited } = watch(child);
    expect(await exited).toBe(0);
    expect(out.stderr).toBe('');
    expect(jsonLines(out.stdout, 'stdout')).toEqual([
      expect.objectContaining({ level: 40, component: 'node', warning: { name: 'DeprecationWarning', code: 'DEP_EARLY_TEST' } }),
    ]);
  }, 30_000);
});

import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports';

/**
 * Starts a private redis-server for the whole test run, so no test depends on
 * (or dirties) the machine's shared Redis. Its URL reaches the test workers
 * through TEST_REDIS_URL.
 */
export default async function globalSetup(): Promise<void> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir], {
    stdio: 'ignore',
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`Cannot start redis-server (is it installed? .ci/run installs it): ${err.message}`)));
    child.once('spawn', () => resolve());
  });
  await waitForPort(port, 10_000, 'redis-server');
  process.env.TEST_REDIS_URL = `redis://127.0.0.1:${port}`;
  (globalThis as { __REDIS_CHILD__?: unknown }).__REDIS_CHILD__ = child;
  // Every problem the BFF answers is traced here (src/pos/http/problem-trace.ts) and checked at teardown.
  process.env.POS_PROBLEM_TRACE_DIR = mkdtempSync(path.join(os.tmpdir(), 'posbff-problems-'));
}

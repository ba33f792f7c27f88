import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Child, freePort, track, waitForPort } from './processes';

export interface PrivateRedis extends Child {
  url: string;
  port: number;
}

/**
 * A redis-server of the bench's own on a free loopback port, with no
 * persistence, so the bench neither depends on nor dirties the machine's Redis.
 * REDIS_SERVER names another binary.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-bench-redis-'));
  const bin = process.env.REDIS_SERVER ?? 'redis-server';
  const proc = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    proc.once('error', (err) => reject(new Error(`Cannot start ${bin} (is Redis installed?): ${err.message}`)));
    proc.once('spawn', () => resolve());
  });
  await waitForPort(port, 10_000, 'redis-server');
  const child = track('redis', proc);
  return {
    ...child,
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

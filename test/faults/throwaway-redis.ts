import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eventually } from './process-stack';

/** A redis-server of this test's own, which it may kill and start again on the same port (with AOF, as production should run). */
export class ThrowawayRedis {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-redis-down-'));
  constructor(readonly port: number) {}
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir],
      { stdio: 'ignore' },
    );
    await eventually(
      () =>
        new Promise<boolean>((resolve) => {
          const s = net.connect(this.port, '127.0.0.1', () => {
            s.end();
            resolve(true);
          });
          s.on('error', () => resolve(false));
        }),
      10_000,
      'redis-server listening',
    );
  }
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  }
  async cleanup(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

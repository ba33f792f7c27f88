import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from '../support/ports';

export interface RedisServerOptions {
  /** AOF on (appendfsync always), as production should run; off: a restart comes back empty. */
  persist: boolean;
  /** More redis-server arguments, e.g. `['--maxmemory-policy', 'allkeys-lru']` or `['--rename-command', 'CONFIG', '']`. */
  args?: string[];
}

/** A redis-server of the test's own, which it may kill and start again on the same port and directory. */
export class RedisServer {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-redis-loss-'));
  constructor(
    readonly port: number,
    private readonly opts: RedisServerOptions,
  ) {}

  static async start(opts: RedisServerOptions): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), opts);
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const persistence = this.opts.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', this.dir, ...(this.opts.args ?? [])];
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPort(this.port, 15_000, 'redis-server');
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

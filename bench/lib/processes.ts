import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, waitForPort } from '../../test/support/ports';

export { freePort, waitForPort };

/** Repository root (bench/lib/.. /..), so the bench runs from any working directory. */
export const ROOT = path.resolve(__dirname, '..', '..');

/** A process the bench started; `stop()` ends it (SIGTERM, then SIGKILL) and waits. */
export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

export function track(name: string, proc: ChildProcess): Child {
  const exited = new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve();
    else proc.once('exit', () => resolve());
  });
  return {
    name,
    proc,
    pid: proc.pid ?? -1,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/**
 * `node [flags] --import tsx <file> [args]`: one process (tsx's CLI would add
 * a wrapper process). `root`: the checkout to run it from (default this one).
 */
export function spawnTs(file: string, args: string[], opts: SpawnOptions & { nodeFlags?: string[]; root?: string } = {}): ChildProcess {
  const { nodeFlags = [], root = ROOT, ...rest } = opts;
  return spawn(process.execPath, [...nodeFlags, '--import', 'tsx', path.resolve(root, file), ...args], { cwd: root, ...rest });
}

/**
 * Starts one of the bench's own servers (bench/servers/*), which report
 * `{ ready: true, port }` over IPC once listening.
 */
export async function startServer(
  name: string,
  file: string,
  env: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<Child & { port: number; url: string }> {
  const proc = spawnTs(file, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], nodeFlags });
  const child = track(name, proc);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not report ready within 30 s`)), 30_000);
    proc.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before it was ready`)));
    proc.on('message', (m: { ready?: boolean; port?: number }) => {
      if (m?.ready && typeof m.port === 'number') {
        clearTimeout(timer);
        resolve(m.port);
      }
    });
  });
  return { ...child, port, url: `http://127.0.0.1:${port}` };
}

/** For the bench's own servers: tell the parent we listen on `port`. */
export function reportReady(port: number): void {
  process.send?.({ ready: true, port });
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../support/ports';

export const FIXTURE = path.join(__dirname, 'loyalty-v4.0.fixture.json');
const PRISM = path.join(__dirname, '../../node_modules/.bin/prism');

export interface RunningPrism {
  url: string;
  /** Everything prism printed: its request/response validation findings are in it. */
  output: () => string;
  close(): Promise<void>;
}

/** `prism mock` of the published reference fixture on a free port; static examples, or generated answers with `dynamic`. */
export async function startPrism(opts: { dynamic?: boolean; seed?: string } = {}): Promise<RunningPrism> {
  const port = await freePort();
  // The fixture as committed: every response keeps its (empty) description, which prism needs.
  const args = ['mock', '-p', String(port), '-h', '127.0.0.1', FIXTURE];
  if (opts.dynamic) args.push('-d', ...(opts.seed ? ['--seed', opts.seed] : []));
  const child: ChildProcess = spawn(PRISM, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start in 60 s:\n${out}`)), 60_000);
    const check = () => {
      if (/Prism is listening/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited with ${code}:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

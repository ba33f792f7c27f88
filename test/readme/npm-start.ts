import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';
import { waitForOutput } from '../store/readme-blocks';
import { docWithHeading } from '../support/docs';

/**
 * `npm start`'s stack (the BFF with the bundled sandbox and demo terminals) on
 * free ports, and a directory laid out as the README's reader has it: the demo
 * tokens in config/, clients/ and node_modules/ of the repository. README
 * blocks run there as written, with PORT and SANDBOX_PORT in their
 * environment as `npm start` had them; nothing in them is replaced.
 */
export interface NpmStart {
  port: number;
  sandboxPort: number;
  started: string;
  /** Runs a README block in the reader's directory; resolves with what it printed. */
  run(script: string): Promise<string>;
  close(): void;
}

const REPO = path.join(__dirname, '../..');

export async function startNpmStart(): Promise<NpmStart> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-readme-'));
  mkdirSync(path.join(dir, 'config'));
  for (const linked of ['clients', 'node_modules']) symlinkSync(path.join(REPO, linked), path.join(dir, linked));
  const [port, sandboxPort] = [await freePort(), await freePort()];
  const env = { ...process.env, PORT: String(port), SANDBOX_PORT: String(sandboxPort) };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPO,
    env: {
      ...env,
      TERMINALS_FILE: path.join(dir, 'config/terminals.json'),
      LOG_LEVEL: 'info',
      REDIS_URL: '',
      NODE_ENV: 'development',
      LOG_PRETTY: 'false',
      SHUTDOWN_GRACE_SECONDS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = await waitForOutput(child, /POS BFF listening/, 30_000);
  return {
    port,
    sandboxPort,
    started,
    run: (script) =>
      new Promise<string>((resolve, reject) =>
        execFile('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: dir, env, timeout: 60_000 }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
        ),
      ),
    close() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `nth` fenced block of `lang` ('bash', 'ts', or '' for a plain one) under `heading` in README.md. */
export function readmeFence(heading: string, lang: string, nth = 0): string {
  const section = docWithHeading(heading).text.split(heading)[1]?.split(/\n## /)[0] ?? '';
  const blocks = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))];
  if (!blocks[nth]) throw new Error(`README has no ${lang || 'plain'} block #${nth} under "${heading}"`);
  return blocks[nth][1];
}

/** What README says a block under `heading` prints: the plain block after "It prints". */
export function readmePrints(heading: string): string[] {
  const section = docWithHeading(heading).text.split(heading)[1] ?? '';
  const block = /It prints[^\n]*:\n\n```\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`README shows no "It prints" block under "${heading}"`);
  return block[1].trim().split('\n');
}

/** Checks printed lines against README's: `...` is what changes from run to run, a run of spaces any run of spaces. */
export function expectPrinted(actual: string, expected: string[]): void {
  const lines = actual.trim().split('\n');
  const pattern = (l: string) =>
    new RegExp(
      `^${l
        .split('...')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ +/g, ' +'))
        .join('[A-Za-z0-9_.:-]+')}$`,
    );
  expect({ lines: lines.length, text: actual }).toEqual({ lines: expected.length, text: actual });
  lines.forEach((line, i) => expect({ line, matches: pattern(expected[i]).test(line) }).toEqual({ line, matches: true }));
}

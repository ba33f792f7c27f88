import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { childEnv } from '../support/child-env';
import { pathToFileURL } from 'node:url';

/** The repository and `npm start`'s entry point, as the start-up tests run it. */
export const REPO = path.join(__dirname, '../..');
export const MAIN = path.join(REPO, 'src/main.ts');

/**
 * `npm start`'s program as its own process: one process (tsx as a loader, not
 * its CLI, which would leave a child behind when killed), on loopback and
 * free ports, with JSON logs, and only the environment given (plus PATH and HOME).
 */
export function startProgram(env: Record<string, string>, args: string[] = [], cwd = REPO): ChildProcess {
  return spawn(process.execPath, ['--import', pathToFileURL(path.join(REPO, 'node_modules/tsx/dist/loader.mjs')).href, MAIN, ...args], {
    cwd,
    env: {
      ...childEnv(),
      HOST: '127.0.0.1',
      PORT: '0',
      SANDBOX_PORT: '0',
      LOG_PRETTY: 'false',
      SANDBOX_ACCOUNTS_FILE: path.join(REPO, 'config/sandbox-accounts.json'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The JSON log lines in `output` (other lines, such as a pretty block, left out), as parsed: each test reads the fields it expects. */
export function logLines(output: string): any[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

/** The settings named by the one configuration report start-up writes before it exits 2 (a JSON line, level fatal). */
export function reportedSettings(output: string): string[] {
  const reports = logLines(output).filter((l) => l.level === 60 && Array.isArray(l.problems));
  if (reports.length !== 1) throw new Error(`expected one configuration report, found ${reports.length}:\n${output}`);
  return (reports[0].problems as { setting: string }[]).map((p) => p.setting);
}

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import request from 'supertest';
import { KEY_REQUIRED, SANDBOX_KEYS } from '../support/e2e';
import { freePort } from '../support/ports';
import { REPO } from '../store/program';

/**
 * The parts of a rolling upgrade as real processes: the previous release's
 * source (from git, pinned in previous-release.txt) and this checkout, each
 * run as `src/main.ts --bff-only` from its own tree, and the sandbox as
 * `--sandbox-only`. Each process is ready when it logs its start-up line.
 */

/** The pinned commit: the first line of previous-release.txt that is not a comment. */
export function previousReleaseCommit(): string {
  const line = readFileSync(path.join(__dirname, 'previous-release.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('#'));
  if (!line || !/^[0-9a-f]{40}$/.test(line)) throw new Error(`test/upgrade/previous-release.txt must hold a full commit hash, found "${line ?? ''}"`);
  return line;
}

/**
 * The previous release's tree in a temporary directory, with this checkout's
 * node_modules linked in. A clone without the commit (a shallow one) fails
 * here, saying how to fetch it: the upgrade test never passes by not running.
 */
export function extractRelease(commit: string): { dir: string; remove(): void } {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: REPO, stdio: 'ignore' });
  } catch {
    throw new Error(
      `the previous release ${commit} (test/upgrade/previous-release.txt) is not in this clone's history; ` +
        `fetch it (\`git fetch --unshallow\`, or \`git fetch origin ${commit}\`) and run the test again`,
    );
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-previous-'));
  execFileSync('bash', ['-c', `set -o pipefail; git archive "$1" | tar -x -C "$2"`, 'extract', commit, dir], {
    cwd: REPO,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Program {
  child: ChildProcess;
  /** Every line the process wrote. */
  logs: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first line matching `pattern` (already written or still to come); fails if the process exits first or after `timeoutMs`. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/** `tree`'s src/main.ts with `args`, run from `tree` (tsx as a loader), with only `env` (plus PATH and HOME). */
export function run(tree: string, args: string[], env: Record<string, string>): Program {
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(path.join(tree, 'node_modules/tsx/dist/loader.mjs')).href, path.join(tree, 'src/main.ts'), ...args],
    {
      cwd: tree,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? os.tmpdir(),
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'false',
        SHUTDOWN_GRACE_SECONDS: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: string[] = [];
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    logs.push(...String(chunk).split('\n').filter(Boolean));
    for (const w of waiters) w();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      gone = true;
      for (const w of waiters) w();
      resolve({ code, signal });
    }),
  );
  const line = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = logs.find((l) => pattern.test(l));
        if (found !== undefined || gone) {
          waiters.delete(check);
          clearTimeout(timer);
          if (found !== undefined) resolve(found);
          else reject(new Error(`exited before logging ${pattern}:\n${logs.join('\n')}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no line ${pattern} within ${timeoutMs} ms:\n${logs.join('\n')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { child, logs, exited, line };
}

/** Kills `p` with `signal` (if still running) and waits for it to exit. */
export async function stop(p: Program, signal: NodeJS.Signals = 'SIGKILL') {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(signal);
  return p.exited;
}

export interface Sandbox extends Program {
  url: string;
  admin: ReturnType<typeof request>;
}

/** This checkout's sandbox (the upstream does not change in an upgrade) with `accounts`, on a free port. */
export async function startSandboxProcess(dir: string, accounts: object[]): Promise<Sandbox> {
  const accountsFile = path.join(dir, 'sandbox-accounts.json');
  writeFileSync(accountsFile, JSON.stringify(accounts));
  const port = await freePort();
  const p = run(REPO, ['--sandbox-only'], { SANDBOX_HOST: '127.0.0.1', SANDBOX_PORT: String(port), SANDBOX_ACCOUNTS_FILE: accountsFile });
  await p.line(/"msg":"loyalty sandbox listening"/);
  const url = `http://127.0.0.1:${port}`;
  return { ...p, url, admin: request(url) };
}

export interface Bff extends Program {
  url: string;
  pos(token: string): { get(p: string): request.Test; post(p: string, body?: object): request.Test };
}

/** A BFF of `tree` on a free port; resolves once it logged that it listens. Its requests carry `cashierId` (X-Cashier-Id), so the audit trail shows which instance served each. */
export async function startBffProcess(tree: string, cashierId: string, env: Record<string, string>): Promise<Bff> {
  const port = await freePort();
  const p = run(tree, ['--bff-only'], {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOYALTY_API_KEY: SANDBOX_KEYS.apikey,
    LOYALTY_SECRET_KEY: SANDBOX_KEYS.secretkey,
    ...env,
  });
  await p.line(/"msg":"POS BFF listening"/);
  const url = `http://127.0.0.1:${port}`;
  const http = request(url);
  return {
    ...p,
    url,
    pos: (token) => ({
      get: (p) => http.get(`/pos/v1${p}`).set('Authorization', `Bearer ${token}`).set('X-Cashier-Id', cashierId),
      post: (p, body) => {
        const t = http.post(`/pos/v1${p}`).set('Authorization', `Bearer ${token}`).set('X-Cashier-Id', cashierId);
        if (KEY_REQUIRED.test(p)) void t.set('Idempotency-Key', randomUUID());
        return body === undefined ? t : t.send(body);
      },
    }),
  };
}

import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Child, freePort, ROOT, spawnTs, track, waitForPort } from './processes';

/** Where `--compiled` builds the product (inside the repository, so node_modules resolve). */
export const BUILD_DIR = path.join(ROOT, 'bench', '.build');
let compiledMain: string | undefined;

/**
 * Compiles src/ as the Dockerfile does (tsconfig.build.json), into BUILD_DIR,
 * and runs the programs from there with plain node from then on. Type errors
 * do not stop the emit (another change in progress must not stop a bench).
 */
export function useCompiledPrograms(): void {
  compiledMain = path.join(builtProduct(), 'main.js');
}

let built = false;

/** src/ compiled into BUILD_DIR (once per bench run), for what is measured as an install runs it (the terminal CLI). */
export function builtProduct(): string {
  if (!built) {
    rmSync(BUILD_DIR, { recursive: true, force: true });
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', BUILD_DIR, '--sourceMap', 'false'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    if (!existsSync(path.join(BUILD_DIR, 'main.js'))) throw new Error(`compiling src/ produced no ${BUILD_DIR}/main.js; run npm run build to see why`);
    built = true;
  }
  return BUILD_DIR;
}

/**
 * The product's own programs, started as `npm start` would start them
 * (src/main.ts, configured through the environment only), each in its own
 * process so the load generator never shares their event loop. Logs go at
 * `info` as JSON lines to a file, as they would to a collector in production.
 */
export interface Program extends Child {
  url: string;
  port: number;
}

function tail(file: string): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
}

async function startMain(
  name: string,
  mode: '--bff-only' | '--sandbox-only',
  env: Record<string, string>,
  logFile: string,
  nodeFlags: string[],
  root?: string,
): Promise<Program> {
  const port = await freePort();
  const portEnv = mode === '--bff-only' ? { HOST: '127.0.0.1', PORT: String(port) } : { SANDBOX_HOST: '127.0.0.1', SANDBOX_PORT: String(port) };
  const fd = openSync(logFile, 'a');
  const options = {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', LOG_PRETTY: 'false', SHUTDOWN_GRACE_SECONDS: '0', ...portEnv, ...env },
    stdio: ['ignore', fd, fd] as ['ignore', number, number],
  };
  // A checkout to compare always runs from its TypeScript source.
  const proc =
    compiledMain && !root
      ? spawn(process.execPath, [...nodeFlags, compiledMain, mode], { ...options, cwd: ROOT })
      : spawnTs('src/main.ts', [mode], { ...options, nodeFlags, root });
  closeSync(fd);
  const child = track(name, proc);
  const died = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`${name} exited (code ${code}) before listening:\n${tail(logFile)}`))),
  );
  await Promise.race([waitForPort(port, 60_000, name), died]);
  died.catch(() => undefined);
  return { ...child, port, url: `http://127.0.0.1:${port}` };
}

export interface BffProgramOptions {
  upstream: { url: string; apiKey: string; secretKey: string };
  redisUrl: string;
  redisKeyPrefix: string;
  terminalsFile: string;
  logFile: string;
  /** e.g. ['--cpu-prof', '--cpu-prof-dir=...']: the profile is written when the BFF exits on SIGTERM. */
  nodeFlags?: string[];
  /** Any further settings (e.g. a new setting another part of the product adds). */
  env?: Record<string, string>;
  /** Another checkout whose BFF to run (e.g. a git worktree with a change to compare). */
  root?: string;
}

/** `src/main.ts --bff-only` against `upstream`, with Redis. */
export function startBffProgram(o: BffProgramOptions): Promise<Program> {
  return startMain(
    'bff',
    '--bff-only',
    {
      LOYALTY_BASE_URL: o.upstream.url,
      LOYALTY_API_KEY: o.upstream.apiKey,
      LOYALTY_SECRET_KEY: o.upstream.secretKey,
      REDIS_URL: o.redisUrl,
      REDIS_KEY_PREFIX: o.redisKeyPrefix,
      TERMINALS_FILE: o.terminalsFile,
      DEMO_SETUP: 'false',
      NODE_ENV: 'test', // production refuses the sandbox's demo keys, which the sandbox scenarios use
      ...o.env,
    },
    o.logFile,
    o.nodeFlags ?? [],
    o.root,
  );
}

/**
 * The sandbox's published rate limits stay enforced (their cost is measured)
 * but out of reach, as the BFF's own limiters are: the bench sends far more
 * than one real account may.
 */
const SANDBOX_LIMITS_OUT_OF_REACH = { enforced: true, multiplier: 10_000 };

/**
 * `src/main.ts --sandbox-only` (what `npm run sandbox` runs), with the repository's sandbox accounts unless `env` names others;
 * it is given a copy of that file (next to `logFile`) with each account's limits out of reach, unless the account sets its own.
 */
export function startSandboxProgram(logFile: string, env: Record<string, string> = {}): Promise<Program> {
  const source = path.resolve(ROOT, env.SANDBOX_ACCOUNTS_FILE ?? path.join('config', 'sandbox-accounts.json'));
  const accounts = JSON.parse(readFileSync(source, 'utf8')) as Record<string, unknown>[];
  const accountsFile = logFile.replace(/(\.log)?$/, '-accounts.json');
  writeFileSync(accountsFile, JSON.stringify(accounts.map((a) => ({ rateLimits: SANDBOX_LIMITS_OUT_OF_REACH, ...a }))));
  return startMain('sandbox', '--sandbox-only', { ...env, SANDBOX_ACCOUNTS_FILE: accountsFile }, logFile, []);
}

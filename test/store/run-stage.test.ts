import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSandboxAccounts, startSandbox, StartedSandbox } from '../../src/sandbox';
import { freePort } from '../support/ports';
import { readmeBlock, runBash, waitForOutput } from './readme-blocks';

/**
 * The README's deployment section, followed as written, on what the image's
 * run stage holds (Dockerfile), without Docker: `dist/` compiled from src,
 * production dependencies only, a terminals directory, the CLI from dist.
 * Only step 1 is reproduced instead of run (npm ci needs the registry): tsc
 * into dist/, and node_modules made of exactly the packages
 * `npm ls --omit=dev` lists. The loyalty service is the sandbox on a port.
 */
const REPO = process.cwd();

function productionNodeModules(appDir: string): void {
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--parseable', '--all'], { cwd: REPO, encoding: 'utf8' })
    .split('\n')
    .filter((p) => p.startsWith(path.join(REPO, 'node_modules') + path.sep))
    .map((p) => path.relative(REPO, p))
    .sort();
  const copied: string[] = [];
  for (const rel of listed) {
    if (copied.some((c) => rel.startsWith(c + path.sep))) continue; // inside a package already copied
    cpSync(path.join(REPO, rel), path.join(appDir, rel), { recursive: true, dereference: false, verbatimSymlinks: true });
    copied.push(rel);
  }
}

describe('the README deployment section, on the run stage reproduced without Docker', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'posbff-runstage-'));
  const appDir = path.join(tmp, 'app');
  let sandbox: StartedSandbox | undefined;
  let bff: ChildProcess | undefined;
  afterAll(async () => {
    if (bff?.pid && bff.exitCode === null) process.kill(-bff.pid, 'SIGTERM');
    await sandbox?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('builds, adds a terminal, serves it, and refuses it within two seconds of a CLI revoke', async () => {
    const steps = readmeBlock('### Deployment')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'));
    // Step 1, as written; reproduced below rather than run.
    expect(steps[0]).toBe('npm ci && npm run build && npm prune --omit=dev');
    mkdirSync(appDir, { recursive: true });
    execFileSync(
      process.execPath,
      [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', path.join(REPO, 'tsconfig.build.json'), '--outDir', path.join(appDir, 'dist')],
      { cwd: REPO },
    );
    for (const f of ['package.json', 'package-lock.json']) copyFileSync(path.join(REPO, f), path.join(appDir, f));
    mkdirSync(path.join(appDir, 'config'));
    copyFileSync(path.join(REPO, 'config/sandbox-accounts.json'), path.join(appDir, 'config/sandbox-accounts.json'));
    productionNodeModules(appDir);
    // It really is production-only: the toolchain and pino-pretty are absent, the runtime is there.
    for (const dev of ['typescript', 'tsx', 'jest', 'pino-pretty']) expect(existsSync(path.join(appDir, 'node_modules', dev))).toBe(false);
    for (const dep of ['express', 'ioredis', 'pino', 'zod']) expect(existsSync(path.join(appDir, 'node_modules', dep))).toBe(true);

    const demo = loadSandboxAccounts('config/sandbox-accounts.json')[0];
    sandbox = await startSandbox({ accounts: [demo], port: 0 });
    const port = await freePort();
    const srv = path.join(tmp, 'srv');
    const env = {
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
      HOME: tmp,
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_KEY_PREFIX: `runstage${process.pid}:`,
    };
    const fill = (line: string) =>
      line
        .replaceAll('/srv/pos', srv)
        .replace('redis://127.0.0.1:6379/0', process.env.TEST_REDIS_URL as string)
        .replace('https://loyalty.example.com', sandbox!.url)
        .replace('your-api-key', demo.apiKey)
        .replace('your-secret-key', demo.secretKey);
    const exportLine = fill(steps.find((l) => l.startsWith('export '))!);
    const runAt = steps.findIndex((l) => l.includes('node dist/main.js'));
    expect(runAt).toBeGreaterThan(1);

    // Steps 2 and 3: the directory, a store and a terminal.
    const setup = await runBash(steps.slice(1, runAt).map(fill).join('\n'), { cwd: appDir, env });
    const token = /^pos_[A-Za-z0-9_-]{43}$/m.exec(setup.stdout)?.[0];
    expect(token).toBeDefined();
    expect(statSync(path.join(srv, 'terminals')).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(srv, 'terminals/terminals.json')).mode & 0o777).toBe(0o600);

    // Step 4: the service, from dist, with production dependencies only.
    // Its own process group, so the shell and node are stopped together.
    bff = spawn('bash', ['-c', `${exportLine}\n${fill(steps[runAt])}`], { cwd: appDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const started = await waitForOutput(bff, /POS BFF listening/, 30_000);
    expect(started).not.toContain('tokens are shown once'); // no demo terminals in production
    const call = () => fetch(`http://127.0.0.1:${port}/pos/v1/customers/demo-customer`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await call()).status).toBe(200);

    // Step 5: revoke from "another shell"; the running service refuses the token within two seconds.
    await runBash([exportLine, ...steps.slice(runAt + 1)].map(fill).join('\n'), { cwd: appDir, env });
    const revokedAt = Date.now();
    let status = 200;
    while (Date.now() - revokedAt < 2000 && status !== 401) {
      status = (await call()).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(2000);
  }, 180_000);
});

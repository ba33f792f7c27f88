import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSandboxAccounts, startSandbox, StartedSandbox } from '../../src/sandbox';
import { freePort } from '../support/ports';
import { docBlock, runBash, waitForOutput } from './readme-blocks';
import { logLines } from './program';

/**
 * The image's run stage (Dockerfile) reproduced without Docker, and docs/operator/deploy.md's
 * Compose commands run in it: `dist/` compiled from src, node_modules made of exactly the packages
 * `npm ls --omit=dev` lists as `npm ci --omit=dev --ignore-scripts` leaves them (no Node fetched by
 * the `node` package: the image has its own), the image's `terminal` command made from its
 * Dockerfile line, and compose.yaml's settings. `docker compose up -d` is the image's CMD started
 * on this Node 24; `docker compose run --rm bff terminal` is that `terminal` command.
 * The loyalty service is the sandbox on a port.
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
    // --ignore-scripts: the `node` package's install script never fetched its Node (bin/).
    const filter = (src: string) => !src.startsWith(path.join(REPO, 'node_modules/node/bin'));
    cpSync(path.join(REPO, rel), path.join(appDir, rel), { recursive: true, dereference: false, verbatimSymlinks: true, filter });
    copied.push(rel);
  }
}

const PAGE = 'docs/operator/deploy.md';
const dockerfile = readFileSync(path.join(REPO, 'Dockerfile'), 'utf8');
const runStage = dockerfile.slice(dockerfile.indexOf(' AS runtime'));

it('the run stage installs with --ignore-scripts, which skips no install script a production dependency needs', () => {
  expect(runStage).toMatch(/^RUN npm ci --omit=dev --ignore-scripts /m);
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
  };
  const skipped = Object.entries(lock.packages)
    .filter(([name, p]) => name && !p.dev && p.hasInstallScript)
    .map(([name]) => name);
  // `node` fetches a Node the image has; @scarf/scarf (swagger-ui-express's) only reports the install.
  expect(skipped.sort()).toEqual(['node_modules/@scarf/scarf', 'node_modules/node']);
});

describe("deploy.md's Compose commands, on the run stage reproduced without Docker", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'posbff-runstage-'));
  const appDir = path.join(tmp, 'app');
  let sandbox: StartedSandbox | undefined;
  let bff: ChildProcess | undefined;
  afterAll(async () => {
    if (bff?.pid && bff.exitCode === null) bff.kill('SIGKILL');
    await sandbox?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("starts before any terminal, adds one with the image's `terminal`, serves it, and refuses it within two seconds of a revoke", async () => {
    const steps = docBlock(PAGE, '## The image and Docker Compose')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'))
      .map((l) => l.replace(/\s+#.*$/, ''));
    expect(steps[0]).toBe('docker compose up -d');
    const compose = 'docker compose run --rm bff terminal ';
    expect(steps.slice(1).every((l) => l.startsWith(compose))).toBe(true);

    // The stage: dist/, package files, the sandbox accounts (as the COPY lines), production node_modules.
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
    expect(existsSync(path.join(appDir, 'node_modules/node/bin/node'))).toBe(false);

    // The image's `terminal`, from its Dockerfile line, and its terminals directory.
    const wrapper = /printf '(.*?)' > \/usr\/local\/bin\/terminal/.exec(runStage)![1];
    const bin = path.join(tmp, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'terminal'), wrapper.replaceAll('\\n', '\n').replaceAll('/app/', `${appDir}/`));
    chmodSync(path.join(bin, 'terminal'), 0o755);
    const terminals = path.join(appDir, 'terminals');
    mkdirSync(terminals, { mode: 0o700 });

    // The loyalty service: the sandbox, with keys of its own (production refuses the demo account's).
    const account = { ...loadSandboxAccounts('config/sandbox-accounts.json')[0], apiKey: 'runstage_api_key', secretKey: 'runstage_secret_key' };
    sandbox = await startSandbox({ accounts: [account], port: 0 });
    const port = await freePort();
    // The image's ENV and compose.yaml's environment (the Node on PATH is this Node 24, as the image's).
    expect(runStage).toContain('TERMINALS_FILE=/app/terminals/terminals.json');
    expect(readFileSync(path.join(REPO, 'compose.yaml'), 'utf8')).toContain(`TERMINAL_COMMAND: ${compose.trim()}\n`);
    const env = {
      PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: tmp,
      NODE_ENV: 'production',
      TERMINALS_FILE: path.join(terminals, 'terminals.json'),
      TERMINAL_COMMAND: compose.trim(),
    };

    // `up`: the image's CMD, before any terminal exists.
    expect(runStage).toMatch(/^CMD \["node", "dist\/main.js"\]$/m);
    bff = spawn('node', ['dist/main.js'], {
      cwd: appDir,
      env: {
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        REDIS_URL: process.env.TEST_REDIS_URL as string,
        REDIS_KEY_PREFIX: `runstage${process.pid}:`,
        LOYALTY_BASE_URL: sandbox.url,
        LOYALTY_API_KEY: account.apiKey,
        LOYALTY_SECRET_KEY: account.secretKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started = await waitForOutput(bff, /No terminal can call yet.*\n/, 30_000);
    expect(started).toContain('POS BFF listening');
    expect(started).not.toContain('tokens are shown once'); // no demo terminals in production
    const readiness = async () => ((await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { checks: { terminals: string } }).checks.terminals;
    expect(await readiness()).toBe('none');
    // What it printed names Compose's spelling of the CLI.
    const hint = logLines(started).find((l) => l.setting === 'TERMINALS_FILE') as { commands?: string[] } | undefined;
    expect(hint?.commands).toHaveLength(2);
    for (const c of hint!.commands!) expect(c.startsWith(compose)).toBe(true);

    // `run --rm bff terminal ...`: the image's terminal command with the service's environment.
    const asImage = (line: string) => line.replace(compose, 'terminal ');
    const added = await runBash(steps.slice(1, 3).map(asImage).join('\n'), { cwd: appDir, env });
    const token = /^pos_[A-Za-z0-9_-]{43}$/m.exec(added.stdout)?.[0];
    expect(token).toBeDefined();
    expect(statSync(path.join(terminals, 'terminals.json')).mode & 0o777).toBe(0o600);
    const call = () => fetch(`http://127.0.0.1:${port}/pos/v1/customers/demo-customer`, { headers: { Authorization: `Bearer ${token}` } });
    const servedBy = Date.now() + 3000;
    while ((await readiness()) !== 'ok' && Date.now() < servedBy) await new Promise((r) => setTimeout(r, 100));
    expect(await readiness()).toBe('ok');
    expect((await call()).status).toBe(200);

    // The revoke line, and the page's "within two seconds".
    await runBash(asImage(steps[3]), { cwd: appDir, env });
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

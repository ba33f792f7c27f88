import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSandboxAccounts, startSandbox, StartedSandbox } from '../../src/sandbox';
import { freePort } from '../support/ports';
import { readmeBlock, runBash, waitForOutput } from './readme-blocks';
import { logLines } from './program';

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

  it('builds, starts before any terminal, runs the commands it prints, serves the terminal, and refuses it within two seconds of a CLI revoke', async () => {
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

    // The loyalty service: the sandbox, with keys of its own (production refuses the demo account's).
    const account = { ...loadSandboxAccounts('config/sandbox-accounts.json')[0], apiKey: 'runstage_api_key', secretKey: 'runstage_secret_key' };
    sandbox = await startSandbox({ accounts: [account], port: 0 });
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
        .replace('your-api-key', account.apiKey)
        .replace('your-secret-key', account.secretKey);
    const exportLine = fill(steps.find((l) => l.startsWith('export '))!);
    const runAt = steps.findIndex((l) => l.includes('node dist/main.js'));
    expect(runAt).toBe(3);

    // Step 2: the directory.
    await runBash(steps.slice(1, runAt).map(fill).join('\n'), { cwd: appDir, env });
    expect(statSync(path.join(srv, 'terminals')).mode & 0o777).toBe(0o700);

    // Step 3: the service, from dist, with production dependencies only, before any terminal exists.
    // Its own process group, so the shell and node are stopped together.
    bff = spawn('bash', ['-c', `${exportLine}\n${fill(steps[runAt])}`], { cwd: appDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const started = await waitForOutput(bff, /No terminal can call yet.*\n/, 30_000);
    expect(started).toContain('POS BFF listening');
    expect(started).not.toContain('tokens are shown once'); // no demo terminals in production
    const readiness = async () => ((await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { checks: { terminals: string } }).checks.terminals;
    expect(await readiness()).toBe('none');
    // What it printed: this install's commands (no npm run, no tsx here), naming the file it reads.
    const hint = logLines(started).find((l) => l.setting === 'TERMINALS_FILE') as { commands?: string[] } | undefined;
    const printed = (hint?.commands ?? []).map((c) => c.replaceAll(srv, '/srv/pos'));
    expect(printed).toHaveLength(2);
    for (const c of printed) expect(c).toMatch(/^node dist\/pos\/terminals\/cli\.js add(-store)? --file \/srv\/pos\/terminals\/terminals\.json /);

    // Step 4, from "another shell" (no export): README's lines are the printed commands with their <placeholders> filled.
    const step4 = steps.slice(runAt + 1, runAt + 3);
    const commands = printed.map((command, i) => {
      const placeholder = /"?<([a-z-]+)>"?/g;
      const pattern = new RegExp(
        `^${command
          .split(placeholder)
          .map((part, j) => (j % 2 ? '("[^"]*"|\\S+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('')}( .*)?$`,
      );
      const m = pattern.exec(step4[i]);
      expect({ readme: step4[i], matches: Boolean(m) }).toEqual({ readme: step4[i], matches: true });
      let k = 1;
      return command.replace(placeholder, () => m![k++]) + (m![k] ?? '');
    });
    const added = await runBash(commands.map(fill).join('\n'), { cwd: appDir, env: { PATH: env.PATH, HOME: tmp } });
    const token = /^pos_[A-Za-z0-9_-]{43}$/m.exec(added.stdout)?.[0];
    expect(token).toBeDefined();
    expect(statSync(path.join(srv, 'terminals/terminals.json')).mode & 0o777).toBe(0o600);
    const call = () => fetch(`http://127.0.0.1:${port}/pos/v1/customers/demo-customer`, { headers: { Authorization: `Bearer ${token}` } });
    const servedBy = Date.now() + 3000;
    while ((await readiness()) !== 'ok' && Date.now() < servedBy) await new Promise((r) => setTimeout(r, 100));
    expect(await readiness()).toBe('ok');
    expect((await call()).status).toBe(200);

    // Step 5: the revoke command the CLI printed with the token is README's, and it works.
    const revoke = /^To revoke it: (.*)$/m.exec(added.stdout)![1];
    expect(revoke.replaceAll(srv, '/srv/pos')).toBe(steps[runAt + 3]);
    await runBash(revoke, { cwd: appDir, env: { PATH: env.PATH, HOME: tmp } });
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

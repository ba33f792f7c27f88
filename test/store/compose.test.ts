import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { logLines, startProgram } from './program';
import { waitForOutput } from './readme-blocks';

/**
 * The container files. `config` of Docker Compose is the real check of
 * compose.yaml (no engine needed): the v2 plugin (`docker compose`) when it
 * works, else the standalone v1 (`docker-compose`, Debian's 1.29); .ci/run
 * installs the latter when neither is there. Without either the first test
 * FAILS, saying so: a skipped check would read as a passed one.
 */
function composeCommand(): { cmd: string; pre: string[]; name: string } | undefined {
  if (spawnSync('docker', ['compose', 'version']).status === 0) return { cmd: 'docker', pre: ['compose'], name: 'docker compose' };
  if (spawnSync('docker-compose', ['version']).status === 0) return { cmd: 'docker-compose', pre: [], name: 'docker-compose' };
  return undefined;
}
const compose$ = composeCommand();

/** The environment without anything of the caller's that compose.yaml reads, plus `vars`; and an empty env file, so a developer's .env does not count. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-test-'));
const emptyEnvFile = path.join(dir, 'empty.env');
writeFileSync(emptyEnvFile, '');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLEAN = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(PORT|LOYALTY_|REDEMPTION_PROOF|COMPOSE_|NODE_ENV$)/.test(k)));
const REQUIRED = { LOYALTY_BASE_URL: 'https://loyalty.example.com', LOYALTY_API_KEY: 'k', LOYALTY_SECRET_KEY: 's' };

function config(vars: Record<string, string>, profile?: string) {
  const c = compose$!;
  const args = [...c.pre, '--env-file', emptyEnvFile, '-f', 'compose.yaml', ...(profile ? ['--profile', profile] : []), 'config'];
  return spawnSync(c.cmd, args, { env: { ...CLEAN, ...vars }, encoding: 'utf8' });
}

type Resolved = { services: Record<string, Record<string, any>> };
function resolved(vars: Record<string, string>, profile?: string): Resolved {
  const r = config(vars, profile);
  if (r.status !== 0) throw new Error(`${compose$!.name} config failed: ${r.stderr}`);
  return parse(r.stdout) as Resolved;
}
/** Services compose starts: v2 leaves profiled services out of `config` unless their profile is on; v1 lists them with their profiles. */
function started(doc: Resolved, profile?: string): string[] {
  return Object.entries(doc.services)
    .filter(([, s]) => !s.profiles || (profile !== undefined && s.profiles.includes(profile)))
    .map(([n]) => n)
    .sort();
}
/** `published` is a number in v1's output, a string in v2's. */
const published = (svc: Record<string, any>) => (svc.ports as { published: unknown; target: unknown }[]).map((p) => `${p.published}:${p.target}`);
/** v1 writes `source:target:rw`, v2 `{ type, source, target }`. */
const mounts = (svc: Record<string, any>) =>
  (svc.volumes as unknown[]).map((v) =>
    typeof v === 'string' ? v.split(':').slice(0, 2).join(':') : `${(v as { source: string }).source}:${(v as { target: string }).target}`,
  );

describe('compose.yaml and Dockerfile', () => {
  const compose = parse(readFileSync('compose.yaml', 'utf8'));
  const dockerfile = readFileSync('Dockerfile', 'utf8');

  it(`${compose$ ? compose$.name : 'Docker Compose (neither `docker compose` nor `docker-compose` works: install one, as .ci/run does)'} config resolves compose.yaml: services, port, terminals volume, healthchecks`, () => {
    if (!compose$)
      throw new Error(
        'Neither `docker compose version` nor `docker-compose version` works, so compose.yaml was not checked. Install the compose plugin or docker-compose (apt-get install docker-compose).',
      );
    const plain = resolved(REQUIRED);
    expect(started(plain)).toEqual(['bff', 'redis']);
    const bff = plain.services.bff;
    expect(published(bff)).toEqual(['8080:8080']);
    expect(mounts(bff)).toEqual(['terminals:/app/terminals']);
    expect(bff.environment).toMatchObject({
      ...REQUIRED,
      REDIS_URL: 'redis://redis:6379/0',
      TERMINALS_FILE: '/app/terminals/terminals.json',
      REDEMPTION_PROOF: 'hash_or_otp',
      TERMINAL_COMMAND: 'docker compose run --rm bff terminal',
    });
    expect(bff.depends_on).toEqual({ redis: expect.objectContaining({ condition: 'service_healthy' }) });
    expect(plain.services.redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(mounts(plain.services.redis)).toEqual(['redis-data:/data']);

    const withSandbox = resolved(REQUIRED, 'sandbox');
    expect(started(withSandbox, 'sandbox')).toEqual(['bff', 'redis', 'sandbox']);
    expect(withSandbox.services.sandbox.healthcheck.test.join(' ')).toContain('/_sandbox/health');
    expect(withSandbox.services.sandbox.environment).toMatchObject({ SANDBOX_HOST: '0.0.0.0', SANDBOX_PORT: '8081' });

    // Settings from the environment reach the resolved file.
    expect(published(resolved({ ...REQUIRED, PORT: '9090' }).services.bff)).toEqual(['9090:8080']);
  });

  it('refuses to resolve without the loyalty settings, naming the missing one', () => {
    if (!compose$) throw new Error('no Docker Compose to run (see the test above)');
    const r = config({ LOYALTY_API_KEY: 'k', LOYALTY_SECRET_KEY: 's' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('set LOYALTY_BASE_URL');
  });

  it('runs the BFF with Redis, the sandbox only as an opt-in profile', () => {
    expect(compose.services.bff.environment.REDIS_URL).toBe('redis://redis:6379/0');
    expect(compose.services.bff.depends_on.redis.condition).toBe('service_healthy');
    expect(compose.services.redis.profiles).toBeUndefined();
    expect(compose.services.sandbox.profiles).toEqual(['sandbox']);
  });

  it('mounts the terminals as a directory, where the image keeps TERMINALS_FILE', () => {
    expect(compose.services.bff.volumes).toEqual(['terminals:/app/terminals']);
    expect(compose.services.bff.environment.TERMINALS_FILE).toBe('/app/terminals/terminals.json');
    expect(dockerfile).toMatch(/TERMINALS_FILE=\/app\/terminals\/terminals\.json/);
    expect(dockerfile).toMatch(/chown node:node \/app\/terminals/);
    expect(dockerfile).toMatch(/VOLUME \["\/app\/terminals"\]/);
  });

  it('exposes only the cashier port, runs as node, and puts the terminal CLI and healthcheck of dist/ in the image', () => {
    expect(dockerfile.match(/^EXPOSE .*$/gm)).toEqual(['EXPOSE 8080']);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('exec node /app/dist/pos/terminals/cli.js');
    expect(dockerfile).toContain('CMD ["node", "dist/platform/healthcheck.js"]');
    // Both are compiled from src (the run stage copies only dist/).
    expect(existsSync('src/pos/terminals/cli.ts')).toBe(true);
    expect(existsSync('src/platform/healthcheck.ts')).toBe(true);
  });

  it('starts cleanly with no terminal yet: up, not ready, its log naming the compose command that adds one (no exit for restart: to loop on)', async () => {
    if (!compose$) throw new Error('no Docker Compose to run (see the first test)');
    const bff = resolved(REQUIRED).services.bff as { restart: string; environment: Record<string, string> };
    expect(bff.restart).toBe('unless-stopped');
    // The service's own environment, with what only the compose network has swapped for this machine's.
    const terminals = path.join(dir, 'terminals', 'terminals.json');
    const env = {
      ...bff.environment,
      LOYALTY_BASE_URL: 'http://127.0.0.1:9',
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      REDIS_KEY_PREFIX: `compose${process.pid}:`,
      TERMINALS_FILE: terminals,
    };
    expect(bff.environment.NODE_ENV).toBe('production');
    const child = startProgram(env, []);
    try {
      const out = await waitForOutput(child, /No terminal can call yet.*\n/, 20_000);
      const lines = logLines(out);
      const port = Number(/:(\d+)$/.exec(String(lines.find((l) => l.msg === 'POS BFF listening')!.listening))![1]);
      expect(lines.find((l) => l.setting === 'TERMINALS_FILE')!.commands).toEqual([
        `docker compose run --rm bff terminal add-store --file ${terminals} --id store-001 --merchant-id <merchant-id> --merchant-name "<merchant-name>" --branch-id <branch-id> --branch-name "<branch-name>"`,
        `docker compose run --rm bff terminal add --file ${terminals} --store store-001 --role cashier`,
      ]);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: { terminals: string } }).checks.terminals).toBe('none');
      // The image's HEALTHCHECK asks /healthz: alive, so nothing restarts it while it waits for a terminal.
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1500));
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  }, 40_000);
});

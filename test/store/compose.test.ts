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
/** `published` is a number in v1's output, a string in v2's; v1 writes a port with a host address as `ip:published:target/tcp`. */
const published = (svc: Record<string, any>) =>
  (svc.ports as (string | { host_ip?: string; published: unknown; target: unknown })[]).map((p) =>
    typeof p === 'string' ? p.replace(/\/tcp$/, '') : `${p.host_ip ? `${p.host_ip}:` : ''}${p.published}:${p.target}`,
  );
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
    // The ops listener (metrics, docs, probes) only on the host's loopback.
    expect(published(bff)).toEqual(['8080:8080', '127.0.0.1:9090:9090']);
    expect(mounts(bff)).toEqual(['terminals:/app/terminals']);
    expect(bff.environment).toMatchObject({
      ...REQUIRED,
      REDIS_URL: 'redis://redis:6379/0',
      TERMINALS_FILE: '/app/terminals/terminals.json',
      REDEMPTION_PROOF: 'hash_or_otp',
      TERMINAL_COMMAND: 'docker compose run --rm bff terminal',
      OPS_PORT: '9090',
      OPS_HOST: '0.0.0.0',
      METRICS_ON: 'ops_port',
      DOCS_ON: 'ops_port',
    });
    expect(bff.depends_on).toEqual({ redis: expect.objectContaining({ condition: 'service_healthy' }) });
    expect(plain.services.redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(mounts(plain.services.redis)).toEqual(['redis-data:/data']);

    const withSandbox = resolved(REQUIRED, 'sandbox');
    expect(started(withSandbox, 'sandbox')).toEqual(['bff', 'redis', 'sandbox']);
    expect(withSandbox.services.sandbox.healthcheck.test.join(' ')).toContain('/_sandbox/health');
    expect(withSandbox.services.sandbox.environment).toMatchObject({ SANDBOX_HOST: '0.0.0.0', SANDBOX_PORT: '8081' });

    // Settings from the environment reach the resolved file.
    const fromEnv = resolved({ ...REQUIRED, PORT: '8090', OPS_PORT: '9190', METRICS_ON: 'off' }).services.bff;
    expect(published(fromEnv)).toEqual(['8090:8080', '127.0.0.1:9190:9090']);
    expect(fromEnv.environment.METRICS_ON).toBe('off');
  });

  it('runs Prometheus, scraping the BFF ops port with the alert rules, and Grafana with the dashboard, under the monitoring profile', () => {
    if (!compose$) throw new Error('no Docker Compose to run (see the first test)');
    expect(started(resolved(REQUIRED))).not.toContain('prometheus');
    const doc = resolved(REQUIRED, 'monitoring');
    expect(started(doc, 'monitoring')).toEqual(['bff', 'grafana', 'prometheus', 'redis']);
    const prom = doc.services.prometheus;
    const promMounts = mounts(prom).map((m) => m.replace(process.cwd(), '.'));
    expect(promMounts).toEqual(
      expect.arrayContaining([
        './deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml',
        './deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml',
      ]),
    );
    const config = parse(readFileSync('deploy/prometheus/prometheus.yml', 'utf8'));
    const scrape = config.scrape_configs.find((c: { job_name: string }) => c.job_name === 'pos-loyalty-bff');
    // The target is the bff service on the port its ops listener is given.
    expect(scrape.static_configs[0].targets).toEqual([`bff:${doc.services.bff.environment.OPS_PORT}`]);
    expect(scrape.metrics_path).toBe('/metrics');
    expect(config.rule_files).toEqual(['alerts.yml']);
    expect(published(prom).every((p) => p.startsWith('127.0.0.1:'))).toBe(true);
    const grafana = doc.services.grafana;
    expect(mounts(grafana).map((m) => m.replace(process.cwd(), '.'))).toEqual(
      expect.arrayContaining(['./deploy/grafana/provisioning:/etc/grafana/provisioning', './deploy/grafana/dashboards:/var/lib/grafana/dashboards']),
    );
    expect(existsSync('deploy/grafana/dashboards/pos-loyalty-bff.json')).toBe(true);
    const datasource = parse(readFileSync('deploy/grafana/provisioning/datasources/prometheus.yml', 'utf8')).datasources[0];
    expect(datasource.url).toBe('http://prometheus:9090');
    expect(published(grafana).every((p) => p.startsWith('127.0.0.1:'))).toBe(true);
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

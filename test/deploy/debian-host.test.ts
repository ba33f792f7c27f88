import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from '../support/ports';
import { logLines } from '../store/program';
import { docBlock, exited, filledCommand, runBash, waitForOutput } from '../store/readme-blocks';
import { parseEnvironmentFile, parseUnit, UNIT, UNIT_ENV } from './manifests';

/**
 * docs/operator/deploy.md's "A Debian host" on this machine, whose own Node is older than 24: its
 * commands run from the page (steps 2, 3, 5, 6), in a copy of this checkout standing for
 * /opt/pos-loyalty-bff, with a real `npm ci` from the registry. Step 4 (root: systemd) is stood for
 * by running the unit's ExecStart, in its WorkingDirectory, with the settings file example's
 * values. The loyalty service is the sandbox alone, started by the same launcher.
 * Each step is one `it`, in order, sharing `host`: a step added to the page is one more `it`.
 */
const PAGE = 'docs/operator/deploy.md';
const SECTION = '## A Debian host';
const REPO = process.cwd();
const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'posbff-debian-')));
const app = path.join(tmp, 'opt/pos-loyalty-bff');
const state = path.join(tmp, 'var/lib/pos-loyalty-bff');

// The host's PATH: without any node_modules/.bin, so `node` is the machine's own.
const hostEnv: NodeJS.ProcessEnv = {
  PATH: (process.env.PATH ?? '')
    .split(':')
    .filter((p) => p && !p.includes('node_modules'))
    .join(':'),
  HOME: process.env.HOME ?? tmp, // npm's cache, as the service user's own would be
  LANG: 'C.UTF-8',
};
// Becoming the service user is the one thing done otherwise: the test already runs as one user.
const asServiceUser = 'sudo() { [ "$1" = -u ] && shift 2; "$@"; }\n';

const host: {
  redisPort?: number;
  redisConf?: string;
  redis?: ChildProcess;
  sandboxUrl?: string;
  sandbox?: ChildProcess;
  bff?: ChildProcess;
  port?: number;
  printed?: string[];
  token?: string;
  tokens?: Record<string, string>;
} = {};
const account = { apiKey: 'debian_host_api_key', secretKey: 'debian_host_secret_key' };

/** A page line with this host's places and ports. */
const fill = (line: string) =>
  line.replaceAll('/opt/pos-loyalty-bff', app).replaceAll('/var/lib/pos-loyalty-bff', state).replaceAll('redis-cli ', `redis-cli -p ${host.redisPort} `);
const step = (nth: number) => docBlock(PAGE, SECTION, nth);
const commands = (block: string) =>
  block
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.replace(/\s+#.*$/, ''));

function startRedis(): ChildProcess {
  const child = spawn('redis-server', [host.redisConf!], { stdio: 'ignore' });
  return child;
}

afterAll(async () => {
  for (const child of [host.bff, host.sandbox, host.redis]) {
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child, 10_000).catch(() => undefined);
    }
  }
  rmSync(tmp, { recursive: true, force: true });
}, 30_000);

describe(`${PAGE}: a Debian host whose Node is older than 24`, () => {
  it("is such a host: `node` on its PATH is the machine's Node 20", () => {
    const which = execFileSync('bash', ['-c', 'command -v node; node --version'], { env: hostEnv, encoding: 'utf8' }).trim().split('\n');
    expect(which[0]).toBe('/usr/bin/node');
    expect(which[1]).toMatch(/^v20\./);
  });

  it('step 1 (root, not run here) creates what the unit and the later steps use', () => {
    const block = step(0);
    const unit = parseUnit(readFileSync(UNIT, 'utf8')).Service;
    expect(block).toContain(`useradd --system --user-group --create-home --home-dir /var/lib/pos-loyalty --shell /usr/sbin/nologin ${unit.User[0]}`);
    expect(block).toContain(`${unit.WorkingDirectory[0]}\n`);
    expect(block).toContain(`/var/lib/${unit.StateDirectory[0]}/terminals`);
  });

  it('step 2 makes Redis persistent and never evicting, in its configuration file: a restart keeps it', async () => {
    host.redisPort = await freePort();
    host.redisConf = path.join(tmp, 'redis.conf');
    mkdirSync(path.join(tmp, 'redis'));
    // As Debian's package leaves it for this purpose: no AOF, and here an evicting policy to be changed.
    writeFileSync(
      host.redisConf,
      `port ${host.redisPort}\nbind 127.0.0.1\ndir ${path.join(tmp, 'redis')}\nappendonly no\nmaxmemory-policy allkeys-lru\nsave ""\n`,
    );
    host.redis = startRedis();
    await waitForPort(host.redisPort, 15_000, 'redis-server');
    await runBash(commands(step(1)).map(fill).join('\n'), { env: hostEnv });
    // Turning AOF on writes the first AOF file in the background; Redis refuses a SIGTERM until it is written.
    const persistence = () => execFileSync('redis-cli', ['-p', String(host.redisPort), 'INFO', 'persistence'], { encoding: 'utf8' });
    const until = Date.now() + 30_000;
    while (/aof_rewrite_(in_progress|scheduled):1/.test(persistence()) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    host.redis.kill('SIGTERM');
    await exited(host.redis, 15_000);
    host.redis = startRedis();
    await waitForPort(host.redisPort, 15_000, 'redis-server');
    const get = (key: string) => execFileSync('redis-cli', ['-p', String(host.redisPort), 'CONFIG', 'GET', key], { encoding: 'utf8' }).split('\n')[1];
    expect([get('appendonly'), get('maxmemory-policy')]).toEqual(['yes', 'noeviction']);
  }, 60_000);

  it('step 3 installs it with npm ci, builds, prunes, and keeps a Node 24 of its own beside the Node 20', async () => {
    // The release's tree, as the clone of step 1 would put it there: the tracked files of this checkout.
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f && existsSync(path.join(REPO, f)) && !f.startsWith('node_modules'));
    for (const f of files) cpSync(path.join(REPO, f), path.join(app, f), { verbatimSymlinks: true });
    mkdirSync(path.join(state, 'terminals'), { recursive: true, mode: 0o700 });

    const lines = commands(step(2));
    expect(lines).toContain('npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev');
    const { stdout } = await runBash(lines.map(fill).join('\n'), { env: hostEnv, timeoutMs: 500_000 });
    const versions = stdout.match(/^v\d+\.\d+\.\d+$/gm);
    expect(versions?.map((v) => v.split('.')[0])).toEqual(['v20', 'v24']);
    // Production dependencies only, the Node among them.
    for (const dev of ['typescript', 'tsx', 'jest', 'pino-pretty']) expect(existsSync(path.join(app, 'node_modules', dev))).toBe(false);
    expect(existsSync(path.join(app, 'node_modules/node/bin/node'))).toBe(true);
    expect(existsSync(path.join(app, 'dist/main.js'))).toBe(true);
  }, 600_000);

  it("there, `node dist/main.js` on the host's Node refuses and names the launcher (the next steps run it)", async () => {
    const { code, output } = await exited(
      spawn('node', ['dist/main.js'], { cwd: app, env: { ...hostEnv, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'] }),
      30_000,
    );
    expect(code).toBe(2);
    expect(output).toMatch(/^Node 24\.0\.0 or newer is required .* this is Node 20\..* Run it with bin\/pos-loyalty-bff: /);
    expect(output).not.toContain('This install has none');
  }, 40_000);

  it('the loyalty service stands in: the sandbox alone, from the launcher, in production mode', async () => {
    const accounts = JSON.parse(readFileSync(path.join(app, 'config/sandbox-accounts.json'), 'utf8')) as Record<string, unknown>[];
    const file = path.join(tmp, 'sandbox-accounts.json');
    writeFileSync(file, JSON.stringify([{ ...accounts[0], ...account }]));
    const port = await freePort();
    host.sandbox = spawn(path.join(app, 'bin/pos-loyalty-bff'), ['--sandbox-only'], {
      cwd: app,
      env: { ...hostEnv, NODE_ENV: 'production', SANDBOX_HOST: '127.0.0.1', SANDBOX_PORT: String(port), SANDBOX_ACCOUNTS_FILE: file },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = await waitForOutput(host.sandbox, /loyalty sandbox listening.*\n/, 30_000);
    host.sandboxUrl = logLines(out).find((l) => l.msg === 'loyalty sandbox listening').url;
    expect(host.sandboxUrl).toBe(`http://127.0.0.1:${port}`);
  }, 40_000);

  it("step 4 stood for: the unit's ExecStart with the settings file starts the BFF on the app's Node 24, not ready, naming step 5's commands", async () => {
    const unit = parseUnit(readFileSync(UNIT, 'utf8')).Service;
    const settings = parseEnvironmentFile(readFileSync(UNIT_ENV, 'utf8'));
    host.port = await freePort();
    const env = {
      ...hostEnv,
      ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, fill(v)])),
      // What an operator edits in step 4 (the service, the keys, Redis), and free ports on loopback here.
      LOYALTY_BASE_URL: host.sandboxUrl!,
      LOYALTY_API_KEY: account.apiKey,
      LOYALTY_SECRET_KEY: account.secretKey,
      REDIS_URL: `redis://127.0.0.1:${host.redisPort}/0`,
      HOST: '127.0.0.1',
      PORT: String(host.port),
      OPS_PORT: String(await freePort()),
    };
    expect(unit.ExecStart).toHaveLength(1);
    // Step 4 puts the settings file where the unit reads it, from the example this test starts with.
    expect(step(3)).toContain(`/opt/pos-loyalty-bff/${UNIT_ENV} ${unit.EnvironmentFile[0]}\n`);
    expect(step(3)).toContain(`/opt/pos-loyalty-bff/${UNIT} /etc/systemd/system/\n`);
    host.bff = spawn(fill(unit.ExecStart[0]), [], { cwd: fill(unit.WorkingDirectory[0]), env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = await waitForOutput(host.bff, /No terminal can call yet.*\n/, 60_000);
    expect(out).toContain('POS BFF listening');
    // The launcher exec'd the Node that npm ci brought.
    expect(readlinkSync(`/proc/${host.bff.pid}/exe`)).toBe(path.join(app, 'node_modules/node/bin/node'));
    const hint = logLines(out).find((l) => l.setting === 'TERMINALS_FILE') as { commands: string[] };
    host.printed = hint.commands.map((c) => c.replaceAll(app, '/opt/pos-loyalty-bff').replaceAll(state, '/var/lib/pos-loyalty-bff'));
    expect(host.printed).toHaveLength(2);
  }, 70_000);

  it('step 5 adds a store and a terminal with the commands the BFF printed, and the running BFF serves it', async () => {
    const lines = commands(step(4));
    expect(lines).toHaveLength(2);
    const run = lines.map((line, i) => {
      const filled = filledCommand(host.printed![i], line);
      expect({ page: line, printed: host.printed![i], matches: Boolean(filled) }).toMatchObject({ matches: true });
      return fill(filled!);
    });
    const added = await runBash(asServiceUser + run.join('\n'), { env: hostEnv, timeoutMs: 60_000 });
    host.token = /^pos_[A-Za-z0-9_-]{43}$/m.exec(added.stdout)?.[0];
    expect(host.token).toBeDefined();
    // The revoke command printed with the token is step 6's, which the page runs as the service user.
    const revoke = /^To revoke it: (.*)$/m.exec(added.stdout)?.[1].replaceAll(app, '/opt/pos-loyalty-bff').replaceAll(state, '/var/lib/pos-loyalty-bff');
    expect(`sudo -u pos-loyalty ${revoke}`).toBe(commands(step(5))[0]);
    const readiness = async () => (await fetch(`http://127.0.0.1:${host.port}/readyz`)).status;
    const until = Date.now() + 20_000;
    while ((await readiness()) !== 200 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await readiness()).toBe(200);
  }, 90_000);

  it('a till makes a sale through the cashier API', async () => {
    const paymentId = `debian-sale-${process.pid}`;
    const res = await fetch(`http://127.0.0.1:${host.port}/pos/v1/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': paymentId },
      body: JSON.stringify({
        customerId: 'demo-customer',
        paymentId,
        totalPaid: 150,
        totalAmount: 150,
        lines: [{ serviceId: 'sku-espresso', name: 'Espresso machine', amount: 150 }],
      }),
    });
    const body = (await res.json()) as { paymentId?: string; status?: string; pointsEarned?: number };
    expect({ status: res.status, body }).toMatchObject({ status: 201, body: { paymentId, status: 'recorded' } });
    expect(body.pointsEarned).toBeGreaterThan(0);
  }, 30_000);

  it("step 6 revokes the terminal, and the running BFF refuses the till's token", async () => {
    await runBash(asServiceUser + commands(step(5)).map(fill).join('\n'), { env: hostEnv, timeoutMs: 60_000 });
    const call = async () =>
      (await fetch(`http://127.0.0.1:${host.port}/pos/v1/customers/demo-customer`, { headers: { Authorization: `Bearer ${host.token}` } })).status;
    const until = Date.now() + 20_000;
    let status = await call();
    while (status !== 401 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      status = await call();
    }
    expect(status).toBe(401);
  }, 40_000);

  /** A sale through the cashier API with `token`: its status. */
  const sale = async (token: string, paymentId: string) =>
    (
      await fetch(`http://127.0.0.1:${host.port}/pos/v1/payments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': paymentId },
        body: JSON.stringify({ customerId: 'demo-customer', paymentId, totalPaid: 5 }),
      })
    ).status;

  it('step 7 imports 1,000 terminals from a CSV in one command, their tokens written once to a file of the service user', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => `till-${String(i + 1).padStart(4, '0')},store-001,cashier,lane ${i + 1}`);
    writeFileSync(path.join(state, 'terminals.csv'), ['id,store_id,role,label', ...rows].join('\n') + '\n');
    await runBash(asServiceUser + commands(step(6)).map(fill).join('\n'), { env: hostEnv, timeoutMs: 60_000 });
    const tokensFile = path.join(state, 'new-tokens.csv');
    expect(statSync(tokensFile).mode & 0o777).toBe(0o600);
    const [header, ...lines] = readFileSync(tokensFile, 'utf8').trim().split('\n');
    expect(header).toBe('terminal_id,store_id,role,token');
    expect(lines).toHaveLength(1000);
    host.tokens = Object.fromEntries(lines.map((l) => [l.split(',')[0], l.split(',')[3]]));
    // Served without a restart (the running BFF re-reads the file): a sale with one of them.
    const until = Date.now() + 20_000;
    let status = await sale(host.tokens['till-0001'], `debian-import-${process.pid}`);
    while (status === 401 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      status = await sale(host.tokens['till-0001'], `debian-import-${process.pid}`);
    }
    expect(status).toBe(201);
  }, 90_000);

  it('step 8 rotates a token while its till keeps selling: no failed sale, then the new token sells', async () => {
    const oldToken = host.tokens!['till-0002'];
    const statuses: number[] = [];
    let selling = true;
    let n = 0;
    const till = (async () => {
      while (selling) statuses.push(await sale(oldToken, `debian-rotate-${process.pid}-${n++}`));
    })();
    while (statuses.length < 3) await new Promise((r) => setTimeout(r, 20));
    const { stdout } = await runBash(asServiceUser + commands(step(7)).map(fill).join('\n'), { env: hostEnv, timeoutMs: 60_000 });
    const newToken = /^pos_[A-Za-z0-9_-]{43}$/m.exec(stdout)?.[0];
    expect(newToken).toBeDefined();
    expect(stdout).toMatch(/old token is accepted until/);
    // Once the running BFF has taken the rotation (the new token sells), the till goes on with its old one, then switches.
    const until = Date.now() + 20_000;
    let m = 0;
    while ((await sale(newToken!, `debian-rotate-${process.pid}-new-${m++}`)) !== 201 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await sale(newToken!, `debian-rotate-${process.pid}-new-${m}`)).toBe(201);
    const seen = statuses.length;
    while (statuses.length < seen + 3) await new Promise((r) => setTimeout(r, 20));
    selling = false;
    await till;
    expect(statuses.filter((st) => st !== 201)).toEqual([]);
    expect(statuses.length).toBeGreaterThanOrEqual(8);
  }, 90_000);

  it('stops on SIGTERM (the unit\'s KillSignal) and exits 0, as "on-failure" expects of a clean stop', async () => {
    const stopping = exited(host.bff!, 40_000);
    host.bff!.kill('SIGTERM');
    expect((await stopping).code).toBe(0);
  }, 50_000);
});

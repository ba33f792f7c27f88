import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { freePort } from '../support/ports';
import { logLines, reportedSettings, REPO, startProgram } from './program';
import { exited, runBash, waitForOutput } from './readme-blocks';

/** Production defaults, .env, and what start-up says when it cannot run. */
const REAL = { LOYALTY_BASE_URL: 'http://127.0.0.1:9', LOYALTY_API_KEY: 'live_key', LOYALTY_SECRET_KEY: 'live_secret' };

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return '';
}

describe('settings that must not carry demo defaults into a store', () => {
  it('creates demo terminals only with the bundled sandbox outside production', () => {
    expect(loadConfig({}).pos.demoSetup).toBe(true);
    expect(loadConfig({ ...REAL }).pos.demoSetup).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production' }).pos.demoSetup).toBe(false);
    expect(problems({ ...REAL, DEMO_SETUP: 'true' })).toMatch(/DEMO_SETUP: demo terminals are only for the bundled sandbox/);
    expect(problems({ NODE_ENV: 'production', DEMO_SETUP: 'true' })).toMatch(/DEMO_SETUP: never in production/);
  });

  it('refuses LOG_PRETTY in production, where pino-pretty is not installed, and says what to do', () => {
    expect(problems({ NODE_ENV: 'production', LOG_PRETTY: 'true' })).toMatch(
      /LOG_PRETTY: readable logs need pino-pretty, a development dependency.*unset LOG_PRETTY/,
    );
    expect(problems({ NODE_ENV: 'development', LOG_PRETTY: 'true' })).toBe('');
  });

  it('refuses the old LOYALTY_OTP_ENABLED, which could disagree with the account', () => {
    expect(problems({ LOYALTY_OTP_ENABLED: 'true' })).toMatch(/LOYALTY_OTP_ENABLED: no longer a setting/);
  });

  it('checks REDEMPTION_PROOF, default hash_or_otp', () => {
    expect(loadConfig({}).pos.redemptionProof).toBe('hash_or_otp');
    expect(problems({ REDEMPTION_PROOF: 'trust_me' })).toMatch(/REDEMPTION_PROOF/);
  });
});

describe('start-up', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-store-startup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const start = startProgram;
  const withTerminal = (name: string) => {
    const file = path.join(dir, name);
    addStore(file, { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Retail' }, branch: { uniqueId: 'b-1', name: 'Main' } });
    addTerminal(file, { storeId: 'store-001', role: 'cashier' });
    return file;
  };

  it('in production with no terminal yet: stays up, not ready, and logs the commands that add one; serves it once added', async () => {
    const file = path.join(dir, 'fresh', 'terminals.json');
    const env = { ...REAL, NODE_ENV: 'production', REDIS_URL: process.env.TEST_REDIS_URL as string, TERMINALS_FILE: file };
    const child = start(env, ['--bff-only']);
    try {
      const out = await waitForOutput(child, /No terminal can call yet.*\n/, 20_000);
      expect(out).not.toContain('tokens are shown once');
      const lines = logLines(out);
      const port = Number(/:(\d+)$/.exec(lines.find((l) => l.msg === 'POS BFF listening').listening)![1]);
      const hint = lines.find((l) => l.setting === 'TERMINALS_FILE');
      expect(hint).toMatchObject({ level: 40, file });
      // The commands name the file the BFF reads, in this install's own spelling (a checkout: npm run terminal --).
      expect(hint.commands).toEqual([
        `npm run terminal -- add-store --file ${file} --id store-001 --merchant-id <merchant-id> --merchant-name "<merchant-name>" --branch-id <branch-id> --branch-name "<branch-name>"`,
        `npm run terminal -- add --file ${file} --store store-001 --role cashier`,
      ]);
      const ready = async () => (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { status: string; checks: Record<string, string> };
      expect(await ready()).toMatchObject({ status: 'not_ready', checks: { terminals: 'none' } });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200); // alive: nothing restarts it

      // Run the commands as printed (placeholders filled), then the same process serves the new terminal.
      const filled = (hint.commands as string[]).map((c) => c.replaceAll(/"?<([a-z-]+)>"?/g, (_m, name: string) => `demo-${name.split('-')[0]}`));
      const cli = await runBash(filled.join('\n'), { cwd: REPO, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeoutMs: 60_000 });
      const token = /^pos_[A-Za-z0-9_-]{43}$/m.exec(cli.stdout)![0];
      const deadline = Date.now() + 5000;
      let checks = (await ready()).checks;
      while (checks.terminals !== 'ok' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        checks = (await ready()).checks;
      }
      expect(checks.terminals).toBe('ok');
      const call = await fetch(`http://127.0.0.1:${port}/pos/v1/redemptions/rdm_nothinghere1`, { headers: { Authorization: `Bearer ${token}` } });
      expect(call.status).toBe(404); // authenticated; there is just no such redemption
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);

  it('in production with the bundled sandbox: refused (LOYALTY_BASE_URL), and no demo terminals either', async () => {
    const { code, output } = await exited(start({ NODE_ENV: 'production', TERMINALS_FILE: path.join(dir, 'prod.json') }), 20_000);
    expect(code).toBe(2);
    expect(output).toContain('LOYALTY_BASE_URL: required with NODE_ENV=production');
    expect(output).not.toContain('tokens are shown once');
  }, 30_000);

  it('names the setting when the port is taken', async () => {
    const port = await freePort();
    const holder = net.createServer().listen(port, '127.0.0.1');
    try {
      const { code, output } = await exited(start({ ...REAL, PORT: String(port), TERMINALS_FILE: withTerminal('port.json') }, ['--bff-only']), 20_000);
      expect(code).toBe(2);
      expect(output).toMatch(new RegExp(`PORT: port ${port} on 127\\.0\\.0\\.1 is already in use.*set PORT to a free port`));
    } finally {
      holder.close();
    }
  }, 30_000);

  it('warns at start-up when REDEMPTION_PROOF=none, and logs where /docs is', async () => {
    const child = start({ ...REAL, REDEMPTION_PROOF: 'none', TERMINALS_FILE: withTerminal('none-proof.json') }, ['--bff-only']);
    try {
      const out = await waitForOutput(child, /POS BFF listening.*\n/, 20_000);
      const lines = logLines(out);
      expect(lines.find((l) => l.setting === 'REDEMPTION_PROOF')).toMatchObject({ level: 40 });
      expect(lines.find((l) => l.msg === 'POS BFF listening').docs).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/docs$/);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('reads .env from the working directory; the environment wins', async () => {
    const cwd = mkdtempSync(path.join(dir, 'envdir-'));
    writeFileSync(path.join(cwd, '.env'), 'LOG_LEVEL=shouty\nREDEMPTION_PROOF=hash\n');
    const fromFile = await exited(start({ ...REAL, TERMINALS_FILE: path.join(dir, 'none.json') }, ['--bff-only'], cwd), 20_000);
    expect(fromFile.code).toBe(2);
    // The bad value is blamed on the file it came from, where the fix is.
    expect(fromFile.output).toMatch(/LOG_LEVEL \(from \.env\): /);
    // The same bad value from the environment says nothing of .env.
    const fromEnvironment = await exited(start({ ...REAL, LOG_LEVEL: 'shouty', TERMINALS_FILE: path.join(dir, 'none.json') }, ['--bff-only']), 20_000);
    expect(fromEnvironment.code).toBe(2);
    expect(reportedSettings(fromEnvironment.output)).toEqual(['LOG_LEVEL']);
    expect(fromEnvironment.output).toMatch(/"problem":"LOG_LEVEL: /);
    // LOG_LEVEL from the environment wins over the file's bad value; REDEMPTION_PROOF still comes from the file.
    const child = start({ ...REAL, LOG_LEVEL: 'info', TERMINALS_FILE: withTerminal('env.json') }, ['--bff-only'], cwd);
    try {
      const out = await waitForOutput(child, /POS BFF listening.*\n/, 20_000);
      const listening = logLines(out).find((l) => l.msg === 'POS BFF listening');
      expect(listening.redemptionProof).toBe('hash');
    } finally {
      child.kill('SIGKILL');
    }
  }, 40_000);

  it('blames a SANDBOX_PORT equal to PORT on SANDBOX_PORT, before either listens', async () => {
    const port = await freePort();
    const { code, output } = await exited(start({ PORT: String(port), SANDBOX_PORT: String(port), TERMINALS_FILE: path.join(dir, 'clash.json') }), 20_000);
    expect(code).toBe(2);
    expect(output).toContain(`SANDBOX_PORT: ${port} is PORT too`);
    expect(reportedSettings(output)).toEqual(['SANDBOX_PORT']);
    expect(output).not.toContain('listening');
  }, 30_000);

  it('blames a taken SANDBOX_PORT on SANDBOX_PORT', async () => {
    const port = await freePort();
    const holder = net.createServer().listen(port, '127.0.0.1');
    try {
      const { code, output } = await exited(start({ SANDBOX_PORT: String(port), TERMINALS_FILE: path.join(dir, 'sbx-taken.json') }), 20_000);
      expect(code).toBe(2);
      expect(output).toMatch(new RegExp(`SANDBOX_PORT: port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(reportedSettings(output)).toEqual(['SANDBOX_PORT']);
    } finally {
      holder.close();
    }
  }, 30_000);

  it('logs a short start-up: only the settings not at their defaults, and the address it binds', async () => {
    const child = start({ ...REAL, HOST: '0.0.0.0', TERMINALS_FILE: withTerminal('short.json') }, ['--bff-only']);
    try {
      const out = await waitForOutput(child, /POS BFF listening.*\n/, 20_000);
      const lines = logLines(out);
      const config = lines.find((l) => String(l.msg).startsWith('effective configuration'));
      expect(JSON.stringify(config).length).toBeLessThan(700);
      // What this test sets (HOST is the default's 0.0.0.0 here) and what follows from it (no demo terminals with a real upstream).
      expect(Object.keys(config.config).sort()).toEqual([
        'http.port',
        'loyalty.apiKey',
        'loyalty.baseUrl',
        'loyalty.secretKey',
        'pos.demoSetup',
        'pos.terminalsFile',
      ]);
      const listening = lines.find((l) => l.msg === 'POS BFF listening');
      expect(listening.listening).toMatch(/^0\.0\.0\.0:\d+$/);
      expect(JSON.stringify(listening)).not.toContain('127.0.0.1');
      expect(listening.cashierApi).toBe(`http://${os.hostname()}:${listening.listening.split(':')[1]}/pos/v1`);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it("npm run sandbox shows the sandbox's settings only, none of the BFF's", async () => {
    const child = start({ LOG_PRETTY: 'true' }, ['--sandbox-only']);
    try {
      const out = await waitForOutput(child, /loyalty sandbox listening/, 20_000);
      expect(out).toContain('Effective configuration (secrets masked):');
      expect(out).toMatch(/^\s+sandbox\s+host=/m);
      for (const bffSection of ['http', 'loyalty', 'redis', 'pos', 'security', 'ops', 'money'])
        expect(out).not.toMatch(new RegExp(`^\\s+${bffSection}\\s`, 'm'));
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});

import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { freePort } from '../support/ports';
import { exited, waitForOutput } from './readme-blocks';

/** Production defaults, .env, and what start-up says when it cannot run. */
const REPO = path.join(__dirname, '../..');
const MAIN = path.join(REPO, 'src/main.ts');
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
  const start = (env: Record<string, string>, args: string[] = [], cwd = REPO) =>
    // One process (tsx as a loader, not its CLI, which would leave a child behind when killed).
    spawn(process.execPath, ['--import', pathToFileURL(path.join(REPO, 'node_modules/tsx/dist/loader.mjs')).href, MAIN, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        SANDBOX_PORT: '0',
        LOG_PRETTY: 'false',
        SANDBOX_ACCOUNTS_FILE: path.join(REPO, 'config/sandbox-accounts.json'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const withTerminal = (name: string) => {
    const file = path.join(dir, name);
    addStore(file, { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Retail' }, branch: { uniqueId: 'b-1', name: 'Main' } });
    addTerminal(file, { storeId: 'store-001', role: 'cashier' });
    return file;
  };

  it('with a real upstream and no terminals: refuses to run and says how to add one (no demo tokens)', async () => {
    const { code, output } = await exited(start({ ...REAL, TERMINALS_FILE: path.join(dir, 'none.json') }, ['--bff-only']), 20_000);
    expect(code).toBe(2);
    expect(output).toContain('TERMINALS_FILE');
    expect(output).toContain('does not exist');
    expect(output).toContain('npm run terminal -- add --store');
    expect(output).toContain('docker compose run --rm bff terminal add');
    expect(output).not.toContain('tokens are shown once');
  }, 30_000);

  it('in production with the bundled sandbox: no demo terminals either', async () => {
    const { code, output } = await exited(start({ NODE_ENV: 'production', TERMINALS_FILE: path.join(dir, 'prod.json') }), 20_000);
    expect(code).toBe(2);
    expect(output).toContain('TERMINALS_FILE');
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
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
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
    expect(fromFile.output).toMatch(/LOG_LEVEL: /);
    // LOG_LEVEL from the environment wins over the file's bad value; REDEMPTION_PROOF still comes from the file.
    const child = start({ ...REAL, LOG_LEVEL: 'info', TERMINALS_FILE: withTerminal('env.json') }, ['--bff-only'], cwd);
    try {
      const out = await waitForOutput(child, /POS BFF listening.*\n/, 20_000);
      const listening = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'POS BFF listening');
      expect(listening.redemptionProof).toBe('hash');
    } finally {
      child.kill('SIGKILL');
    }
  }, 40_000);
});

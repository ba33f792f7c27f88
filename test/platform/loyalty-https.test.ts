import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { exited, waitForOutput } from '../store/readme-blocks';
import { logLines } from '../store/program';

/** Go-live checklist, "All API calls use HTTPS": the secret key never travels in plain HTTP off the machine. */
const KEYS = { LOYALTY_API_KEY: 'live_key', LOYALTY_SECRET_KEY: 'live_secret_never_shown_4e1' };

function problems(env: Record<string, string>): string {
  try {
    loadConfig({ ...KEYS, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return '';
}

it('a configured loyalty service needs both keys, named (go-live: API credentials configured)', () => {
  for (const missing of ['LOYALTY_API_KEY', 'LOYALTY_SECRET_KEY']) {
    const env: Record<string, string> = { LOYALTY_BASE_URL: 'https://loyalty.example.com', ...KEYS };
    delete env[missing];
    expect(() => loadConfig(env)).toThrow(/LOYALTY_API_KEY and LOYALTY_SECRET_KEY: required when LOYALTY_BASE_URL is set/);
  }
});

describe('LOYALTY_BASE_URL must be HTTPS', () => {
  it('accepts https:// in every environment', () => {
    for (const NODE_ENV of ['development', 'production', 'test']) {
      expect(problems({ NODE_ENV, LOYALTY_BASE_URL: 'https://loyalty.example.com' })).toBe('');
    }
  });

  it('refuses plain http:// to another host, naming the setting and the way out', () => {
    for (const NODE_ENV of ['development', 'production', 'test']) {
      const message = problems({ NODE_ENV, LOYALTY_BASE_URL: 'http://loyalty.example.com' });
      expect(message).toMatch(/LOYALTY_BASE_URL: must be https:\/\//);
      expect(message).toContain('LOYALTY_ALLOW_HTTP=true');
    }
    // Private addresses are not loopback: the store LAN is not the machine.
    expect(problems({ LOYALTY_BASE_URL: 'http://10.0.0.7:8081' })).toMatch(/LOYALTY_BASE_URL: must be https/);
    expect(problems({ LOYALTY_BASE_URL: 'http://sandbox:8081' })).toMatch(/LOYALTY_BASE_URL: must be https/);
    expect(problems({ LOYALTY_BASE_URL: 'http://localhost.example.com' })).toMatch(/LOYALTY_BASE_URL: must be https/);
  });

  it('allows plain http:// to a loopback host (the bundled sandbox, tests), even in production', () => {
    for (const url of ['http://127.0.0.1:8081', 'http://127.8.0.2', 'http://[::1]:8081', 'http://localhost:8081/']) {
      expect([url, problems({ NODE_ENV: 'production', LOYALTY_BASE_URL: url })]).toEqual([url, '']);
    }
  });

  it('LOYALTY_ALLOW_HTTP=true allows another host outside production, and is refused in production', () => {
    expect(loadConfig({ ...KEYS, LOYALTY_BASE_URL: 'http://sandbox:8081', LOYALTY_ALLOW_HTTP: 'true' }).loyalty).toMatchObject({
      baseUrl: 'http://sandbox:8081',
      allowHttp: true,
    });
    expect(problems({ NODE_ENV: 'production', LOYALTY_BASE_URL: 'http://sandbox:8081', LOYALTY_ALLOW_HTTP: 'true' })).toMatch(
      /LOYALTY_ALLOW_HTTP: never in production/,
    );
    // Refused in production even where it would change nothing: a setting that is dangerous there is not left lying around.
    expect(problems({ NODE_ENV: 'production', LOYALTY_BASE_URL: 'https://loyalty.example.com', LOYALTY_ALLOW_HTTP: 'true' })).toMatch(
      /LOYALTY_ALLOW_HTTP: never in production/,
    );
    expect(loadConfig({}).loyalty.allowHttp).toBe(false);
    expect(problems({ LOYALTY_ALLOW_HTTP: 'maybe' })).toMatch(/LOYALTY_ALLOW_HTTP/);
  });
});

describe('start-up with a plain-HTTP loyalty service', () => {
  const REPO = path.join(__dirname, '../..');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-https-'));
  const terminals = path.join(dir, 'terminals.json');
  addStore(terminals, { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Retail' }, branch: { uniqueId: 'b-1', name: 'Main' } });
  addTerminal(terminals, { storeId: 'store-001', role: 'cashier' });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const start = (env: Record<string, string>) =>
    spawn(
      process.execPath,
      ['--import', pathToFileURL(path.join(REPO, 'node_modules/tsx/dist/loader.mjs')).href, path.join(REPO, 'src/main.ts'), '--bff-only'],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          HOST: '127.0.0.1',
          PORT: '0',
          LOG_PRETTY: 'false',
          TERMINALS_FILE: terminals,
          ...KEYS,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );

  it('refuses to run (exit 2), names LOYALTY_BASE_URL, and never prints the secret key', async () => {
    const { code, output } = await exited(start({ NODE_ENV: 'production', LOYALTY_BASE_URL: 'http://loyalty.example.com' }), 20_000);
    expect(code).toBe(2);
    expect(output).toContain('LOYALTY_BASE_URL: must be https://');
    expect(output).not.toContain(KEYS.LOYALTY_SECRET_KEY);
    expect(output).not.toContain('POS BFF listening');
  }, 30_000);

  it('refuses LOYALTY_ALLOW_HTTP in production (exit 2)', async () => {
    const { code, output } = await exited(
      start({ NODE_ENV: 'production', LOYALTY_BASE_URL: 'http://loyalty.example.com', LOYALTY_ALLOW_HTTP: 'true' }),
      20_000,
    );
    expect(code).toBe(2);
    expect(output).toContain('LOYALTY_ALLOW_HTTP: never in production');
  }, 30_000);

  it('runs with LOYALTY_ALLOW_HTTP=true outside production', async () => {
    const child = start({ NODE_ENV: 'development', LOYALTY_BASE_URL: 'http://loyalty.example.invalid', LOYALTY_ALLOW_HTTP: 'true' });
    try {
      const out = await waitForOutput(child, /POS BFF listening.*\n/, 20_000);
      const summary = logLines(out).find((l) => String(l.msg).startsWith('effective configuration'));
      expect(summary.config['loyalty.allowHttp']).toBe('true');
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});

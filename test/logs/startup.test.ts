import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../support/child-env';
import { Config, configSummary, describeConfig, loadConfig } from '../../src/platform/config';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { logLines } from '../store/program';

const SECRET = 'sk_live_do_not_print_91c2';
const REDIS_PASSWORD = 'redis_pw_do_not_print';

const REAL_ENV = { LOYALTY_BASE_URL: 'https://loyalty.example.com/', LOYALTY_API_KEY: 'live_ab12cd34ef', LOYALTY_SECRET_KEY: SECRET };

describe('describeConfig', () => {
  const config = loadConfig({ ...REAL_ENV, REDIS_URL: `redis://default:${REDIS_PASSWORD}@redis.internal:6380/2` });

  it('fits one screen and masks every secret', () => {
    const lines = describeConfig(config);
    const text = lines.join('\n');
    // One screen: a 50-row terminal window, with the command line above it (stand-in and the abuse signals took it past 40).
    expect(lines.length).toBeLessThanOrEqual(45);
    expect(lines.every((l) => l.length <= 110)).toBe(true);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(REDIS_PASSWORD);
    expect(text).not.toContain('live_ab12cd34ef');
    expect(text).toContain('secretKey=(set)');
    expect(text).toContain('apiKey=live****');
    expect(text).toContain('url=redis://default:***@redis.internal:6380/2');
    expect(text).toContain('baseUrl=https://loyalty.example.com/');
    // A budget bucket's rate and quota share one item; how sales are recorded is shown.
    expect(text).toContain('limits.orders=30/s,360');
    expect(text).not.toContain('limits.orders.quota');
    expect(text).toContain('salesRecordedAs=payment');
  });

  it('masks a Redis password the URL parser cannot read (an unencoded /, # or ?), in the lines and the JSON summary', () => {
    const odd = 'abc/def#ghi';
    const c = loadConfig({ ...REAL_ENV, REDIS_URL: `redis://default:${odd}@redis.internal:6380/2` });
    const shown = [...describeConfig(c), JSON.stringify(configSummary(c))].join('\n');
    expect(shown).toContain('redis://default:***@redis.internal:6380/2');
    expect(shown).not.toContain('abc/def');
    expect(shown).not.toContain('ghi');
  });

  it('masks the next key pair as it masks the current one (the API key alone awards points through events)', () => {
    const c = loadConfig({ ...REAL_ENV, LOYALTY_API_KEY_NEXT: 'next_api_77aa99bb', LOYALTY_SECRET_KEY_NEXT: 'next_secret_5cd0e1f2' });
    const shown = [...describeConfig(c), JSON.stringify(configSummary(c))].join('\n');
    expect(shown).not.toContain('next_api_77aa99bb');
    expect(shown).not.toContain('next_secret_5cd0e1f2');
    expect(shown).toContain('next****');
  });

  it('shows every setting, unset ones as such', () => {
    const summary = configSummary(loadConfig({}));
    const leaves: string[] = [];
    const walk = (o: object, prefix: string) => {
      for (const [k, v] of Object.entries(o)) {
        if (v && typeof v === 'object' && !Array.isArray(v)) walk(v, `${prefix}${k}.`);
        else leaves.push(`${prefix}${k}`);
      }
    };
    walk(loadConfig({}) as Config, '');
    expect(Object.keys(summary).sort()).toEqual(leaves.sort());
    expect(summary['loyalty.secretKey']).toBe('(unset)');
    expect(summary['redis.url']).toBe('(unset)');
    const text = describeConfig(loadConfig({})).join('\n');
    // A budget bucket's rate and quota are one item, `limits.<bucket>=`.
    const shownAs = (name: string) =>
      /\.(rate|quota)$/.test(name) && name.includes('.limits.')
        ? `${name.split('.').slice(-2)[0]}=`
        : name.includes('.')
          ? `${name.split('.').pop()}=`
          : `  ${name} `;
    for (const name of leaves) expect(text).toContain(shownAs(name));
  });
});

/** Runs `npm start`'s entry point until the BFF listens, then stops it with SIGTERM. */
async function runMain(env: Record<string, string>, args: string[]): Promise<{ output: string; code: number | null }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-startup-'));
  // A real upstream means no demo terminals: start-up needs one already there.
  addStore(path.join(dir, 'terminals.json'), { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Retail' }, branch: { uniqueId: 'b-1', name: 'Main' } });
  addTerminal(path.join(dir, 'terminals.json'), { storeId: 'store-001', role: 'cashier' });
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'src/main.ts', ...args], {
    cwd: path.join(__dirname, '../..'),
    env: {
      ...childEnv(),
      HOST: '127.0.0.1',
      PORT: '0',
      SANDBOX_PORT: '0',
      TERMINALS_FILE: path.join(dir, 'terminals.json'),
      SHUTDOWN_GRACE_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "POS BFF listening" within 20 s:\n${output}`)), 20_000);
      child.stdout.on('data', () => {
        if (output.includes('POS BFF listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`exited early:\n${output}`)));
    });
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    return { output, code };
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('start-up output', () => {
  const upstream = { LOYALTY_BASE_URL: 'http://127.0.0.1:9', LOYALTY_API_KEY: 'live_ab12cd34ef', LOYALTY_SECRET_KEY: SECRET };

  it('logs the effective configuration as one JSON line, secrets masked, when not pretty', async () => {
    const { output, code } = await runMain({ ...upstream, LOG_PRETTY: 'false', NODE_ENV: 'production', ALLOW_IN_MEMORY_STORE: 'true' }, ['--bff-only']);
    expect(code).toBe(0);
    expect(output).not.toContain(SECRET);
    const lines = logLines(output);
    expect(lines.length).toBeGreaterThan(2);
    const summary = lines.find((l) => String(l.msg).startsWith('effective configuration'));
    expect(summary.config).toMatchObject({
      'loyalty.secretKey': '(set)',
      'loyalty.apiKey': 'live****',
      'loyalty.baseUrl': 'http://127.0.0.1:9',
      env: 'production',
    });
    // How the fleet knows whether the account checks OTPs (OTP_MODE), on the line that says it is up.
    expect(lines.find((l) => l.msg === 'POS BFF listening')).toMatchObject({ otpMode: 'auto (learnt from hold answers, re-checked after 60 min)' });
  }, 30_000);

  it('prints a readable block and pretty log lines in development', async () => {
    const { output, code } = await runMain({ ...upstream, LOG_PRETTY: 'true', NODE_ENV: 'development' }, ['--bff-only']);
    expect(code).toBe(0);
    expect(output).not.toContain(SECRET);
    expect(output).toContain('Effective configuration (secrets masked):');
    expect(output).toMatch(/loyalty\s+baseUrl=http:\/\/127\.0\.0\.1:9 apiKey=live\*\*\*\* secretKey=\(set\)/);
    expect(output).toMatch(/INFO.*POS BFF listening/);
    expect(output).not.toMatch(/^\{"level"/m);
  }, 30_000);
});

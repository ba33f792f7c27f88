import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfig } from '../../src/platform/config';
import { exited } from '../store/readme-blocks';
import { logLines, reportedSettings, startProgram } from '../store/program';

/** One start-up names every configuration problem, so fixing one never reveals the next. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-config-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readConfig', () => {
  it('reads on past a value that does not parse: the rules of its feature and between features are still checked', () => {
    const { problems } = readConfig({ SWEEPER_INTERVAL_MS: 'soon', LOYALTY_API_KEY_NEXT: 'next_key', LOYALTY_OTP_ENABLED: 'true' });
    expect(problems.map((p) => p.split(':')[0])).toEqual(['SWEEPER_INTERVAL_MS', 'LOYALTY_API_KEY_NEXT', 'LOYALTY_OTP_ENABLED']);
  });

  it('leaves out a rule about a value already reported bad (its verdict would be about the default standing in)', () => {
    // PORT=abc stands in as 8080; OPS_PORT=8080 would be "PORT too" only because of the stand-in.
    const { problems } = readConfig({ PORT: 'abc', OPS_PORT: '8080' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PORT: /);
    expect(readConfig({ PORT: '8080', OPS_PORT: '8080' }).problems).toEqual([expect.stringMatching(/^OPS_PORT: 8080 is PORT too/)]);
  });
});

describe('start-up with several wrong settings at once', () => {
  it('names every one in one report line and exits 2, having started nothing', async () => {
    const terminals = path.join(dir, 'terminals.json');
    writeFileSync(terminals, '{ "stores": [');
    const { code, output } = await exited(
      startProgram(
        {
          NODE_ENV: 'production',
          LOYALTY_BASE_URL: 'https://loyalty.example.com',
          // The bundled sandbox's demo keys, and half a next key pair.
          LOYALTY_API_KEY: 'sbx_demo_api_key',
          LOYALTY_SECRET_KEY: 'sbx_demo_secret',
          LOYALTY_API_KEY_NEXT: 'next_key_9b1',
          // No REDIS_URL in production, a number that is not one, demo terminals with a real upstream in production.
          SWEEPER_INTERVAL_MS: 'soon',
          DEMO_SETUP: 'true',
          TERMINALS_FILE: terminals,
        },
        ['--bff-only'],
      ),
      20_000,
    );
    expect(code).toBe(2);
    expect(reportedSettings(output).sort()).toEqual(
      [
        'SWEEPER_INTERVAL_MS',
        'LOYALTY_API_KEY_NEXT',
        'DEMO_SETUP',
        'DEMO_SETUP',
        'REDIS_URL',
        'LOYALTY_API_KEY',
        'LOYALTY_SECRET_KEY',
        'TERMINALS_FILE',
      ].sort(),
    );
    const report = logLines(output).find((l) => Array.isArray(l.problems));
    expect(report.msg).toBe('Invalid configuration: 8 problems, each naming its setting and what to do; nothing started');
    // Each says what to do, not only what is wrong.
    expect(report.problems).toContainEqual({ setting: 'REDIS_URL', problem: expect.stringContaining('Set REDIS_URL=redis://<host>:6379/0') });
    expect(report.problems).toContainEqual({ setting: 'TERMINALS_FILE', problem: expect.stringContaining(`TERMINALS_FILE: ${terminals}: is not valid JSON`) });
    expect(output).not.toContain('sbx_demo_secret');
    expect(output).not.toContain('listening');
  }, 30_000);

  it('is a readable list on stderr with LOG_PRETTY=true', async () => {
    const child = startProgram({ NODE_ENV: 'development', LOG_PRETTY: 'true', SWEEPER_INTERVAL_MS: 'soon', OTP_MODE: 'maybe' }, ['--bff-only']);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const { code } = await exited(child, 20_000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^Invalid configuration:\n {2}- SWEEPER_INTERVAL_MS: .*\n {2}- OTP_MODE: /);
  }, 30_000);

  it('any other start-up failure: one line, exit 1', async () => {
    const { code, output } = await exited(startProgram({ SANDBOX_ACCOUNTS_FILE: path.join(dir, 'no-such-accounts.json') }), 20_000);
    expect(code).toBe(1);
    const fatal = logLines(output).filter((l) => l.level === 60);
    expect(fatal).toEqual([expect.objectContaining({ msg: expect.stringMatching(/^Start-up failed: Cannot read sandbox accounts file /) })]);
    expect(output.split('\n').filter((l) => l.trim() && !l.startsWith('{'))).toEqual([]);
  }, 30_000);
});

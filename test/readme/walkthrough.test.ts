import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';

/**
 * The README's checkout walkthrough, run as written against `npm start`'s
 * entry point (only the ports and the token file's place are swapped, so the
 * test never collides with a developer's running copy).
 */
function readmeScript(heading: string): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.split(heading)[1] ?? '';
  const block = /```bash\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`README has no bash block under "${heading}"`);
  return block[1];
}

function runBash(script: string): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile('bash', ['-c', `set -euo pipefail\n${script}`], { timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

async function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${out}`));
    });
  });
}

describe('README walkthrough', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-readme-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a whole checkout with points as the README shows it', async () => {
    const [port, sandboxPort] = [await freePort(), await freePort()];
    const terminals = path.join(dir, 'terminals.json');
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        PORT: String(port),
        SANDBOX_PORT: String(sandboxPort),
        TERMINALS_FILE: terminals,
        LOG_LEVEL: 'info',
        REDIS_URL: '',
        NODE_ENV: 'development',
        LOG_PRETTY: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started = await waitForOutput(child, /POS BFF listening/, 30_000);
    expect(started).toContain('tokens are shown once');
    expect(started).toContain(`API reference: http://localhost:${port}/docs`);

    const script = readmeScript('## A whole checkout with points')
      .replaceAll('localhost:8080', `localhost:${port}`)
      .replaceAll('localhost:8081', `localhost:${sandboxPort}`)
      .replaceAll('config/terminals.demo-tokens.env', path.join(dir, 'terminals.demo-tokens.env'));
    const checkout = async () => {
      const lines = (await runBash(script)).trim().split('\n');
      expect(JSON.parse(lines[0]).points.available).toBe(1000);
      expect(lines[1]).toMatch(/^demo-customer:\d{6}$/);
      expect(lines[2]).toMatch(/^rdm_/);
      expect(JSON.parse(lines[3])).toMatchObject({ state: 'held', points: 200 });
      expect(JSON.parse(lines[4])).toMatchObject({ status: 'recorded', pointsRedeemed: 200, pointsEarned: 260, redemption: { state: 'redeemed' } });
      expect(JSON.parse(lines[5])).toMatchObject({ status: 'refunded', amountRefunded: 65 });
      expect(JSON.parse(lines[6]).points.available).toBe(1030);
      return lines;
    };
    const first = await checkout();

    // The counters the walkthrough moved, as an operator sees them on /metrics.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total\{method="POST",route="\/pos\/v1\/redemptions",status="201",role="cashier"\} 1\b/);
    expect(metrics).toMatch(/pos_redemption_transitions_total\{from="paying",to="redeemed"\} 1\b/);
    expect(metrics).toMatch(/loyalty_upstream_requests_total\{operation="payment",outcome="ok"\} 1\b/);
    expect(metrics).toMatch(/loyalty_upstream_requests_total\{operation="refund",outcome="ok"\} 1\b/);

    // Again, against the same running BFF: the same balances, a new redemption and sale.
    const second = await checkout();
    expect(second[2]).not.toBe(first[2]);
    expect(JSON.parse(second[4]).redemption.id).toBe(second[2]);

    // The sandbox-alone walkthrough: hold -> payment -> refund against the v4.0 interface.
    const sbx = (await runBash(readmeScript('## The sandbox alone').replaceAll('localhost:8081', `localhost:${sandboxPort}`))).trim().split('\n');
    expect(JSON.parse(sbx[1]).availablePointsBalance).toBe(500);
    expect(sbx[2]).toMatch(/^hold_/);
    expect(JSON.parse(sbx[3])).toMatchObject({ state: 'active', holdEquivalentPoints: 100 });
    expect(JSON.parse(sbx[4])).toMatchObject({ redeemedPoints: 100, rewardedPoints: 90 });
    expect(JSON.parse(sbx[5])).toMatchObject({ refundTransactionId: 'ref-1', refundAmount: 90, refundEquivalentPoints: 90 });
    expect(JSON.parse(sbx[6]).availablePointsBalance).toBe(500);

    // The coupon sale: its output is what the README says it prints (ids aside).
    const couponHeading = '### A coupon sale and its printed receipt';
    const coupon = (
      await runBash(
        readmeScript(couponHeading)
          .replaceAll('localhost:8080', `localhost:${port}`)
          .replaceAll('localhost:8081', `localhost:${sandboxPort}`)
          .replaceAll('config/terminals.demo-tokens.env', path.join(dir, 'terminals.demo-tokens.env')),
      )
    )
      .trim()
      .split('\n');
    const printed = /It prints:\n\n```\n([\s\S]*?)```/.exec(readFileSync('README.md', 'utf8').split(couponHeading)[1])![1].trim().split('\n');
    expect(coupon).toHaveLength(printed.length);
    // "..." in the README stands for an id that changes every run.
    const pattern = (l: string) =>
      new RegExp(
        `^${l
          .split('...')
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[A-Za-z0-9_-]+')}$`,
      );
    coupon.forEach((line, i) => expect(line).toMatch(pattern(printed[i])));
    expect(coupon.join('\n')).toContain('Coupon WELCOME10');
  }, 60_000);
});

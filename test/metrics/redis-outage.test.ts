import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { waitFor } from '../e2e/helpers';
import { startStack, Stack } from '../support/e2e';
import { freePort } from '../support/ports';
import { total } from './prometheus';

/** A Redis of this test's own, so stopping it disturbs no other test. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => resolve());
  });
  return child;
}

describe('Redis metrics through an outage', () => {
  let s: Stack;
  let redis: ChildProcess;
  let port: number;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-metrics-redis-'));
  const scrape = async () => (await request(s.bff.url).get('/metrics').expect(200)).text;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port, dir);
    s = await startStack({ store: 'redis', env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await s?.close();
    redis?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts connection errors, shows redis_up 0 and open holds unknown while Redis is away, and recovers', async () => {
    let t = await scrape();
    expect(total(t, 'redis_up')).toBe(1);
    expect(total(t, 'pos_holds_open')).toBe(0);
    const errorsBefore = total(t, 'redis_errors_total') ?? 0;

    redis.kill('SIGKILL');
    await waitFor(
      'redis_up to drop',
      async () => {
        t = await scrape();
        return total(t, 'redis_up') === 0 && (total(t, 'redis_errors_total') ?? 0) > errorsBefore;
      },
      5_000,
    );
    expect(total(t, 'pos_holds_open')).toBeNaN();

    redis = await startRedis(port, dir);
    await waitFor(
      'redis_up to come back',
      async () => {
        t = await scrape();
        return total(t, 'redis_up') === 1;
      },
      8_000,
    );
    expect(total(t, 'pos_holds_open')).toBe(0);
  }, 20_000);
});

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { ServiceUnavailableError } from '../../../src/platform/errors';
import { createLogger, silentLogger } from '../../../src/platform/logger';
import { connectRedis, reconnectDelay, redisReady, safeRedisUrl, waitForRedis } from '../../../src/platform/redis';
import { RedisRedemptionStore } from '../../../src/pos/redemptions';
import { freePort } from '../../support/ports';
import { aHold, T0 } from './harness';

const PASSWORD = 's3cret-redis-pass';

/** A throwaway redis-server of this test's own, so it can be killed and restarted. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--requirepass', PASSWORD],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  throw new Error(`throwaway redis-server did not start on ${port}`);
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Resolves to how long the promise took to settle, and whether it rejected. */
async function timed(p: Promise<unknown>): Promise<{ ms: number; error?: unknown }> {
  const started = performance.now();
  try {
    await p;
    return { ms: performance.now() - started };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe('connectRedis against a Redis that goes away and comes back', () => {
  let port: number;
  let dir: string;
  let server: ChildProcess;
  let client: Redis;
  const lines: string[] = [];

  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-rdm-conn-'));
    server = await startRedis(port, dir);
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'debug', pretty: false, destination: sink });
    client = connectRedis(`redis://:${PASSWORD}@127.0.0.1:${port}/0`, logger, { retryMaxMs: 100 });
    await waitForRedis(client, 5000);
  });
  afterAll(async () => {
    client.disconnect();
    await kill(server);
  });

  it('works while Redis is up, and logs where it connected without the password', async () => {
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    expect(await redisReady(client)).toBe(true);
    const log = lines.join('');
    expect(log).toContain('redis ready');
    expect(log).toContain(`127.0.0.1:${port}`);
    expect(log).not.toContain(PASSWORD);
  });

  it('fails commands fast while Redis is down, then recovers by itself', async () => {
    const store = new RedisRedemptionStore(client, { prefix: 'conn:' });
    const hold = aHold();
    await store.create(hold);
    await kill(server);

    // Issued right away, before the client has even noticed the close.
    const first = await timed(client.get('k'));
    expect(first.error).toBeInstanceOf(Error);
    expect(first.ms).toBeLessThan(1500);

    await new Promise<void>((resolve) => (client.status === 'ready' ? client.once('close', () => resolve()) : resolve()));
    const read = await timed(store.get(hold.id, T0));
    expect(read.error).toBeInstanceOf(ServiceUnavailableError);
    expect(read.error).toMatchObject({ status: 503, code: 'redis_unavailable' });
    expect(read.ms).toBeLessThan(100);
    const sweep = await timed(store.sweepDue(T0, 10));
    expect(sweep.error).toBeInstanceOf(ServiceUnavailableError);
    const ping = await timed(redisReady(client, 500));
    expect(ping.ms).toBeLessThan(100);
    expect(await redisReady(client)).toBe(false);

    server = await startRedis(port, dir);
    await waitForRedis(client, 5000);
    expect(await redisReady(client)).toBe(true);
    // A fresh server (no persistence): the record is gone, but the store answers again.
    expect(await store.get(hold.id, T0)).toBeNull();
    await store.create(hold);
    expect((await store.get(hold.id, T0))?.version).toBe(1);
    expect(lines.join('')).toContain('redis reconnected');
    expect(lines.join('')).not.toContain(PASSWORD);
  });
});

describe('Redis connection helpers', () => {
  it('waitForRedis rejects with 503-class error when nothing listens', async () => {
    const port = await freePort();
    const client = connectRedis(`redis://127.0.0.1:${port}`, silentLogger, { retryMaxMs: 50 });
    try {
      const outcome = await timed(waitForRedis(client, 300));
      expect(outcome.error).toBeInstanceOf(ServiceUnavailableError);
      expect(String((outcome.error as Error).message)).toContain(String(port));
      expect(outcome.ms).toBeLessThan(1000);
      expect(await redisReady(client)).toBe(false);
    } finally {
      client.disconnect();
    }
  });

  it('a lazy client connects on waitForRedis', async () => {
    const client = connectRedis(process.env.TEST_REDIS_URL as string, silentLogger, { lazy: true });
    try {
      expect(client.status).toBe('wait');
      expect(await redisReady(client)).toBe(false);
      await waitForRedis(client, 5000);
      expect(await redisReady(client)).toBe(true);
    } finally {
      client.disconnect();
    }
  });

  it('masks the password in a URL', () => {
    expect(safeRedisUrl('redis://user:pw@host:6380/2')).toBe('redis://user:***@host:6380/2');
    expect(safeRedisUrl('rediss://:pw@host')).not.toContain('pw');
    expect(safeRedisUrl('not a url')).toBe('<unparseable redis url>');
  });

  it('backs off exponentially up to the cap, and never gives up', () => {
    expect(reconnectDelay(1, 2000)).toBeLessThanOrEqual(100);
    expect(reconnectDelay(5, 2000)).toBeGreaterThan(reconnectDelay(1, 2000));
    for (const attempt of [20, 1000, 1e6]) {
      const delay = reconnectDelay(attempt, 2000);
      expect(delay).toBeGreaterThanOrEqual(1600);
      expect(delay).toBeLessThanOrEqual(2000);
    }
  });
});

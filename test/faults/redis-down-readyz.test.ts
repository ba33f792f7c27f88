import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { connectRedis, waitForRedis } from '../../src/platform/redis';
import { silentLogger } from '../../src/platform/logger';
import { healthRoutes, HealthOptions } from '../../src/pos/http/health';
import { freePort } from '../support/ports';

/** /healthz and /readyz in a small app, against the private Redis and a real tiny upstream. */
describe('/healthz and /readyz', () => {
  let upstream: http.Server;
  let upstreamUrl: string;
  let upstreamHits = 0;
  beforeAll(async () => {
    upstream = http.createServer((_req, res) => {
      upstreamHits += 1;
      res.writeHead(404).end('no such route');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => upstream.close(r)));

  const appWith = (opts: Partial<HealthOptions>) => {
    const app = express();
    app.use(healthRoutes({ upstreamBaseUrl: upstreamUrl, sweeperRunning: () => true, ...opts }));
    return request(app);
  };

  it('/healthz answers 200 {status: ok} whatever the dependencies', async () => {
    const res = await appWith({ upstreamBaseUrl: `http://127.0.0.1:${await freePort()}`, sweeperRunning: () => false })
      .get('/healthz')
      .expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is ready with Redis reachable, the upstream answering (even 404) and the sweeper running', async () => {
    const redis = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
    await waitForRedis(redis, 5000);
    try {
      const res = await appWith({ redis }).get('/readyz').expect(200);
      expect(res.body).toEqual({ status: 'ready', checks: { redis: 'ok', upstream: 'ok', sweeper: 'ok', process: 'ok' } });
    } finally {
      await redis.quit();
    }
  });

  it('without Redis configured, says not_configured and is ready', async () => {
    const res = await appWith({}).get('/readyz').expect(200);
    expect(res.body.checks.redis).toBe('not_configured');
  });

  it('names each failing check with 503', async () => {
    const redis = connectRedis(process.env.TEST_REDIS_URL!, silentLogger);
    await waitForRedis(redis, 5000);
    redis.disconnect();
    const res = await appWith({ redis, upstreamBaseUrl: `http://127.0.0.1:${await freePort()}`, sweeperRunning: () => false, shuttingDown: () => true })
      .get('/readyz')
      .expect(503);
    expect(res.body).toEqual({ status: 'not_ready', checks: { redis: 'down', upstream: 'down', sweeper: 'stopped', process: 'shutting_down' } });
  });

  it('gives up on a silent upstream after its timeout', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const started = Date.now();
      const res = await appWith({ upstreamBaseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, upstreamTimeoutMs: 200 })
        .get('/readyz')
        .expect(503);
      expect(res.body.checks.upstream).toBe('down');
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it('asks the upstream at most once per cache period, however many probes come', async () => {
    let now = 1_000_000;
    const probe = appWith({ clock: () => now, upstreamCacheMs: 5000 });
    const before = upstreamHits;
    await Promise.all(Array.from({ length: 5 }, () => probe.get('/readyz').expect(200)));
    await probe.get('/readyz').expect(200);
    expect(upstreamHits - before).toBe(1);
    now += 5000;
    await probe.get('/readyz').expect(200);
    expect(upstreamHits - before).toBe(2);
  });
});

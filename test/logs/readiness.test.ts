import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createLogger } from '../../src/platform/logger';
import { requestLogger } from '../../src/platform/http';
import { healthRoutes } from '../../src/pos/http/health';
import { createMetrics } from '../../src/platform/metrics';
import { total } from '../metrics/prometheus';

/**
 * A balancer polls /readyz every few seconds: readiness is logged when it changes
 * (a warning naming what fails, info when ready again), never a line per probe,
 * and never as an error with a stack.
 */
describe('readiness logs', () => {
  let upstream: Server;
  beforeAll(async () => {
    upstream = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  it('50 probes while not ready write one line; becoming ready writes one more', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'info', pretty: false, destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    let terminals = 0;
    const app = express();
    app.use(requestLogger(logger));
    app.use(
      healthRoutes({
        upstreamBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        sweeperRunning: () => true,
        activeTerminals: () => terminals,
        logger,
      }),
    );

    for (let i = 0; i < 50; i++) await request(app).get('/readyz').expect(503);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, readiness: 'not_ready', failing: { terminals: 'none' }, msg: 'not ready: /readyz answers 503 (terminals: none)' }),
    ]);
    expect(lines[0]).not.toHaveProperty('err');

    terminals = 1;
    for (let i = 0; i < 50; i++) await request(app).get('/readyz').expect(200);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 30, readiness: 'ready', msg: 'ready: /readyz answers 200' });

    // /healthz is a probe too: not logged per call. Any other request still is.
    for (let i = 0; i < 5; i++) await request(app).get('/healthz').expect(200);
    expect(lines).toHaveLength(2);
    await request(app).get('/elsewhere').expect(404);
    expect(lines).toHaveLength(3);
  });

  it('a change of what fails while not ready is a change', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'info', pretty: false, destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    let shuttingDown = false;
    const app = express().use(
      healthRoutes({
        upstreamBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        sweeperRunning: () => true,
        activeTerminals: () => 0,
        shuttingDown: () => shuttingDown,
        logger,
      }),
    );
    await request(app).get('/readyz').expect(503);
    shuttingDown = true;
    await request(app).get('/readyz').expect(503);
    await request(app).get('/readyz').expect(503);
    expect(lines.map((l) => l.failing)).toEqual([{ terminals: 'none' }, { terminals: 'none', process: 'shutting_down' }]);
  });
});

describe('pos_ready', () => {
  it('is read at scrape time, with no probe in between: 0 while not ready, 1 once ready', async () => {
    const upstream = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const metrics = createMetrics({ defaultMetrics: false });
      let terminals = 0;
      healthRoutes({
        upstreamBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        sweeperRunning: () => true,
        activeTerminals: () => terminals,
        sampleReady: (ready) => metrics.sample('ready', ready),
      });
      expect(total(await metrics.render(), 'pos_ready')).toBe(0);
      terminals = 1;
      expect(total(await metrics.render(), 'pos_ready')).toBe(1);
    } finally {
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });
});

import express from 'express';
import request from 'supertest';
import { boundedBodyDepth, errorHandler, jsonDepth } from '../../src/platform/http';
import { silentLogger } from '../../src/platform/logger';
import { renderProblem } from '../../src/pos/http/problem';

describe('jsonDepth', () => {
  it.each([
    [1, 0],
    [{}, 1],
    [{ a: [1, { b: 2 }] }, 3],
    [[[[[]]]], 4],
  ])('%j nests %i deep', (value, depth) => {
    expect(jsonDepth(value)).toBe(depth);
  });

  it('walks a 100k-deep value without overflowing the stack', () => {
    let v: unknown = [];
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(jsonDepth(v, 40)).toBeGreaterThan(32);
  });
});

describe('boundedBodyDepth over HTTP', () => {
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.use(boundedBodyDepth(32));
  app.post('/echo', (req, res) => {
    res.json({ ok: true, keys: Object.keys(req.body) });
  });
  app.use(errorHandler(silentLogger, renderProblem));

  it('lets an ordinary body through', async () => {
    const res = await request(app)
      .post('/echo')
      .send({ a: { b: [1, 2] } })
      .expect(200);
    expect(res.body.ok).toBe(true);
  });

  it('refuses a body nested deeper than the bound with a 400 naming it', async () => {
    const body = '['.repeat(5000) + ']'.repeat(5000);
    const res = await request(app).post('/echo').set('content-type', 'application/json').send(body).expect(400);
    expect(res.body.code).toBe('body_too_deep');
    expect(res.body.detail).toContain('32 levels');
  });
});

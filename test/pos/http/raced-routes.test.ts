import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { z } from 'zod';
import { silentLogger } from '../../../src/platform/logger';
import { mountRoutes, type PosRoute } from '../../../src/pos/http/route';
import { MemoryTillAnswerStore } from '../../../src/pos/till-answers/memory-store';
import { setTillOf } from '../../../src/pos/till-wait';
import { TillWait } from '../../../src/upstream/till';

/** Which routes the till's deadline races: those that call the loyalty service; a local one always finishes. */
describe('the till deadline races only routes that call the loyalty service', () => {
  function appWith(callsLoyalty: boolean) {
    const done: string[] = [];
    const route = {
      method: 'post',
      path: '/slow',
      operationId: 'slow',
      tag: 'Outbox',
      summary: 'slow',
      roles: ['manager'],
      callsLoyalty,
      codes: [],
      success: { status: 200, description: 'done', schema: z.object({ ok: z.boolean() }), example: { ok: true } },
      handle: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1200));
        done.push('done');
        return { ok: true };
      },
    } as unknown as PosRoute<{ settings: never }>;
    const app = express();
    app.use((_req, res, next) => {
      res.locals.identity = { terminal: { id: 't-1', role: 'manager' }, store: { id: 's-1' } };
      setTillOf(res, new TillWait(Date.now() + 300, 1));
      next();
    });
    const router = express.Router();
    mountRoutes(router, { settings: {} as never }, [route], { inTime: { answers: new MemoryTillAnswerStore(), ttlMs: 60_000, logger: silentLogger } });
    app.use(router);
    const render: ErrorRequestHandler = (err: { status: number; code: string }, _req, res, _next) => void res.status(err.status).json({ code: err.code });
    app.use(render);
    return { app, done };
  }

  it('a local route (callsLoyalty false) finishes past the deadline and answers what it did', async () => {
    const { app, done } = appWith(false);
    const res = await request(app).post('/slow').send({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(done).toEqual(['done']);
  });

  it('a route that calls the loyalty service, with nothing sent at the deadline, is refused in time', async () => {
    const { app } = appWith(true);
    const started = Date.now();
    const res = await request(app).post('/slow').send({});
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('till_deadline_reached');
    expect(Date.now() - started).toBeLessThan(1100);
  });
});

import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { Express } from 'express';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { BadRequestError, ConflictError, NotAllowedError, ServiceUnavailableError, UnprocessableError } from '../../../src/platform/errors';
import { errorHandler, unknownRoute } from '../../../src/platform/http';
import { silentLogger } from '../../../src/platform/logger';
import { renderProblem } from '../../../src/pos/http/problem';
import { idempotency, IdempotencyStore, MemoryIdempotencyStore, RedisIdempotencyStore, requestFingerprint } from '../../../src/pos/idempotency';
import { markNotDelivered } from '../../../src/upstream';
import { deleteKeys, testRedis } from '../../support/redis';

/**
 * The middleware in a small app over real HTTP: a stand-in for terminal auth
 * (the terminal id comes from a header), JSON parsing, and routes that count
 * how often they ran. Both stores, Redis on the private test server.
 */
interface Rig {
  http: ReturnType<typeof request>;
  ran: Map<string, number>;
  store: IdempotencyStore;
  /** Moves the middleware's clock. */
  advance(ms: number): void;
  /** Releases requests waiting in POST /slow. */
  release(): void;
}

function buildApp(store: IdempotencyStore, leaseMs: number, clock: () => number, gate: { wait: Promise<void> }) {
  const ran = new Map<string, number>();
  const count = (name: string) => ran.set(name, (ran.get(name) ?? 0) + 1);
  const keys = idempotency({ store, ttlMs: 24 * 3_600_000, leaseMs, clock, logger: silentLogger });
  const app: Express = express();
  const pos = express.Router();
  pos.use((req, res, next) => {
    res.locals.identity = { terminal: { id: req.get('x-till') ?? 'till-1' }, store: { id: 'store-001' } };
    next();
  });
  pos.use(express.json());
  pos.use(keys.handler);
  pos.post('/things', (req, res) => {
    count('things');
    if (typeof req.body?.qty !== 'number') throw new BadRequestError('validation_failed', 'qty: expected number');
    res
      .status(201)
      .location(`/pos/v1/things/t${ran.get('things')}`)
      .json({ id: `t${ran.get('things')}`, qty: req.body.qty, at: Date.now() });
  });
  pos.post('/slow', async (_req, res) => {
    count('slow');
    await gate.wait;
    res.json({ done: true, n: ran.get('slow') });
  });
  pos.post('/fail/:kind', (req) => {
    count(req.params.kind);
    switch (req.params.kind) {
      case 'conflict':
        throw new ConflictError('hold_not_active', 'The points hold is no longer active');
      case 'unprocessable':
        throw new UnprocessableError('insufficient_points', 'Not enough points');
      case 'outage':
        throw new ServiceUnavailableError('upstream_timeout', 'The loyalty service did not answer');
      case 'not-sent':
        throw markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'Circuit open', { retryAfterSeconds: 5 }));
      case 'redis':
        throw new ServiceUnavailableError('redis_unavailable', 'Redis is down', { retryAfterSeconds: 1 });
      case 'forbidden':
        throw new NotAllowedError('role_not_allowed', 'Managers only');
      case 'crash':
        throw new Error('a bug');
      default:
        throw new Error('unknown');
    }
  });
  pos.post('/plain-end', (_req, res) => {
    count('plain-end');
    res.status(204).end();
  });
  pos.get('/things', (_req, res) => {
    count('get');
    res.json({ ok: true });
  });
  pos.use(keys.noteError);
  app.use('/pos/v1', pos);
  app.use(unknownRoute);
  app.use(errorHandler(silentLogger, renderProblem));
  return { app, ran };
}

describe.each(['memory', 'redis'] as const)('Idempotency-Key middleware (%s store)', (kind) => {
  let redis: Redis | undefined;
  let prefix: string;
  let server: Server;
  let rig: Rig;

  beforeEach(async () => {
    prefix = `test:idemmw:${randomUUID().slice(0, 8)}:`;
    if (kind === 'redis') redis = await testRedis();
    const store = redis ? new RedisIdempotencyStore(redis, prefix) : new MemoryIdempotencyStore();
    let offset = 0;
    let open!: () => void;
    const gate = { wait: new Promise<void>((r) => (open = r)) };
    const { app, ran } = buildApp(store, 30_000, () => Date.now() + offset, gate);
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    rig = { http: request(server), ran, store, advance: (ms) => (offset += ms), release: () => open() };
  });
  afterEach(async () => {
    rig.release();
    await new Promise((r) => server.close(r));
    if (redis) {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });

  const post = (path: string, body: object | undefined, key?: string, till = 'till-1') => {
    const t = rig.http.post(`/pos/v1${path}`).set('x-till', till);
    if (key !== undefined) t.set('Idempotency-Key', key);
    return body === undefined ? t : t.send(body);
  };

  it('runs a request without a key every time', async () => {
    await post('/things', { qty: 1 }).expect(201);
    await post('/things', { qty: 1 }).expect(201);
    expect(rig.ran.get('things')).toBe(2);
  });

  it('replays the first response (status, body, content type, Location) marked Idempotent-Replayed', async () => {
    const first = await post('/things', { qty: 2, note: { a: 1, b: 2 } }, 'sale-1').expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same body with keys in another order is the same request.
    const again = await post('/things', { note: { b: 2, a: 1 }, qty: 2 }, 'sale-1').expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers.location).toBe(first.headers.location);
    expect(rig.ran.get('things')).toBe(1);
  });

  it.each([
    ['an empty key', ''],
    ['a space', 'sale 1'],
    ['a tab', 'sale\t1'],
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'vente-\u00e9'],
  ])('refuses %s with 400 idempotency_key_invalid, running nothing', async (_what, key) => {
    const res = await post('/things', { qty: 1 }, key).expect(400);
    expect(res.body.code).toBe('idempotency_key_invalid');
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(rig.ran.get('things')).toBeUndefined();
  });

  it('accepts 255 visible characters, and refuses the header sent twice', async () => {
    await post('/things', { qty: 1 }, `${'~'.repeat(254)}!`).expect(201);
    const twice = await rig.http
      .post('/pos/v1/things')
      .set('x-till', 'till-1')
      .set('Idempotency-Key', ['a', 'b'] as unknown as string)
      .send({ qty: 1 })
      .expect(400);
    expect(twice.body.code).toBe('idempotency_key_invalid');
  });

  it('answers 422 idempotency_key_reused to another body or path under the same key, and keeps the first', async () => {
    await post('/things', { qty: 1 }, 'k1').expect(201);
    expect((await post('/things', { qty: 9 }, 'k1').expect(422)).body.code).toBe('idempotency_key_reused');
    expect((await post('/plain-end', { qty: 1 }, 'k1').expect(422)).body.code).toBe('idempotency_key_reused');
    expect((await post('/things', { qty: 1 }, 'k1').expect(201)).headers['idempotent-replayed']).toBe('true');
    expect(rig.ran.get('things')).toBe(1);
  });

  it("scopes keys to the terminal: another till's same key is its own request", async () => {
    await post('/things', { qty: 1 }, 'shared', 'till-1').expect(201);
    const other = await post('/things', { qty: 5 }, 'shared', 'till-2').expect(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(rig.ran.get('things')).toBe(2);
  });

  it('answers 409 with Retry-After while the first runs, then replays its answer', async () => {
    const first = post('/slow', {}, 'slow-1').then((r) => r);
    await waitFor(() => rig.ran.get('slow') === 1);
    const during = await post('/slow', {}, 'slow-1').expect(409);
    expect(during.body.code).toBe('idempotency_request_in_progress');
    expect(during.headers['retry-after']).toBe('1');
    rig.release();
    expect((await first).status).toBe(200);
    const after = await post('/slow', {}, 'slow-1').expect(200);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toEqual({ done: true, n: 1 });
    expect(rig.ran.get('slow')).toBe(1);
  });

  it('frees the key of a request that crashed (its lease lapsed)', async () => {
    // A claim nobody will finish: the instance that made it died.
    const fingerprint = requestFingerprint('POST', '/pos/v1/things', { qty: 1 });
    await rig.store.begin({ terminalId: 'till-1', key: 'orphan' }, { fingerprint, owner: 'dead-instance', now: Date.now(), leaseMs: 30_000 });
    expect((await post('/things', { qty: 1 }, 'orphan').expect(409)).body.code).toBe('idempotency_request_in_progress');
    rig.advance(29_000);
    await post('/things', { qty: 1 }, 'orphan').expect(409);
    rig.advance(1_000);
    await post('/things', { qty: 1 }, 'orphan').expect(201);
    expect(rig.ran.get('things')).toBe(1);
  });

  it('does not store a validation failure: the corrected request with the same key runs', async () => {
    const bad = await post('/things', { qty: 'two' }, 'fix-me').expect(400);
    expect(bad.body.code).toBe('validation_failed');
    const fixed = await post('/things', { qty: 2 }, 'fix-me').expect(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it.each([
    ['forbidden', 403],
    ['not-sent', 503],
    ['redis', 503],
  ])('does not store %s (%i): nothing was done, the same key may try again', async (kind, status) => {
    await post(`/fail/${kind}`, {}, `k-${kind}`).expect(status);
    const again = await post(`/fail/${kind}`, {}, `k-${kind}`).expect(status);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(rig.ran.get(kind)).toBe(2);
  });

  it("does not store an unknown route's 404, nor a response written without send", async () => {
    await post('/nowhere', {}, 'k-404').expect(404);
    await post('/things', {}, 'k-404').expect(400); // same key, another path: it was released, not "reused"
    await post('/plain-end', {}, 'k-end').expect(204);
    await post('/plain-end', {}, 'k-end').expect(204);
    expect(rig.ran.get('plain-end')).toBe(2);
  });

  it.each([
    ['conflict', 409, 'hold_not_active'],
    ['unprocessable', 422, 'insufficient_points'],
    ['outage', 503, 'upstream_timeout'],
    ['crash', 500, 'internal_error'],
  ])('stores a %s answer (%i) given after the work began, and replays it byte for byte', async (kind, status, code) => {
    const first = await post(`/fail/${kind}`, {}, `k-${kind}`).expect(status);
    expect(first.body.code).toBe(code);
    const again = await post(`/fail/${kind}`, {}, `k-${kind}`).expect(status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(rig.ran.get(kind)).toBe(1);
  });

  it('ignores the header on GET (reads are safe to repeat)', async () => {
    await rig.http.get('/pos/v1/things').set('Idempotency-Key', 'not valid for anything').expect(200);
    await rig.http.get('/pos/v1/things').set('Idempotency-Key', 'g').expect(200);
    expect(rig.ran.get('get')).toBe(2);
  });
});

describe('Idempotency-Key lease renewal', () => {
  it("keeps a long request's key while it runs, past its lease", async () => {
    const store = new MemoryIdempotencyStore();
    let open!: () => void;
    const gate = { wait: new Promise<void>((r) => (open = r)) };
    const { app, ran } = buildApp(store, 200, Date.now, gate);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const http = request(server);
      const first = http
        .post('/pos/v1/slow')
        .set('Idempotency-Key', 'long')
        .send({})
        .then((r) => r);
      await waitFor(() => ran.get('slow') === 1);
      const startedAt = Date.now();
      await waitFor(() => Date.now() - startedAt > 450);
      expect((await http.post('/pos/v1/slow').set('Idempotency-Key', 'long').send({})).status).toBe(409);
      open();
      expect((await first).status).toBe(200);
      expect(ran.get('slow')).toBe(1);
    } finally {
      open();
      await new Promise((r) => server.close(r));
    }
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

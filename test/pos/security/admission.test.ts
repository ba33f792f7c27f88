import express from 'express';
import request from 'supertest';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { RateLimitedError } from '../../../src/platform/errors';
import { errorHandler } from '../../../src/platform/http';
import { silentLogger } from '../../../src/platform/logger';
import { admissionBeforeErrors, awaitAdmission, deferAdmission } from '../../../src/pos/security/admission';
import { renderProblem } from '../../../src/pos/http/problem';
import { idempotency, MemoryIdempotencyStore } from '../../../src/pos/idempotency';
import { terminalRateLimit } from '../../../src/pos/security';

/**
 * Admission checks are started before the body is parsed and awaited with the
 * idempotency claim. Over real HTTP in a small app wired as the BFF wires it:
 * the checks must still decide before anything runs, and a refusal must win
 * over a later error and leave the key free.
 */
/** True from a check's start until the current synchronous run ends: what was issued with it shares its Redis write. */
let checkStartedThisTick = false;
function markCheckStarted() {
  checkStartedThisTick = true;
  queueMicrotask(() => (checkStartedThisTick = false));
}

function rig(check: (req: express.Request, res: express.Response) => void) {
  const store = new MemoryIdempotencyStore();
  const begins: string[] = [];
  const begin = store.begin.bind(store);
  store.begin = (slot, claim) => {
    begins.push(`${slot.key}${checkStartedThisTick ? ' with the check' : ''}`);
    return begin(slot, claim);
  };
  const keys = idempotency({ store, ttlMs: 60_000, leaseMs: 5_000, logger: silentLogger });
  const ran: string[] = [];
  const app = express();
  const pos = express.Router();
  pos.use((req, res, next) => {
    res.locals.identity = { terminal: { id: 'till-1', role: 'cashier' }, store: { id: 'store-001' } };
    check(req, res);
    next();
  });
  pos.use(express.json());
  pos.use(keys.handler);
  pos.use(awaitAdmission);
  pos.post('/things', (req, res) => {
    ran.push(String(req.body.n));
    res.status(201).json({ n: req.body.n });
  });
  pos.get('/things', (_req, res) => {
    ran.push('get');
    res.json({ ok: true });
  });
  pos.use(admissionBeforeErrors);
  pos.use(keys.noteError);
  app.use('/pos/v1', pos);
  app.use(errorHandler(silentLogger, renderProblem));
  return { http: request(app), ran, begins };
}

const refused = () => new RateLimitedError('rate_limited', 'too many', { retryAfterSeconds: 7 });

describe('admission checks', () => {
  it('starts the check in the same tick as the idempotency claim, and runs the route only once it passes', async () => {
    let pass!: () => void;
    const pending = new Promise<void>((resolve) => (pass = resolve));
    const r = rig((_req, res) =>
      deferAdmission(res, () => {
        markCheckStarted();
        return pending;
      }),
    );
    const answer = r.http
      .post('/pos/v1/things')
      .set('Idempotency-Key', 'k-1')
      .send({ n: 1 })
      .then((x) => x);
    // Wait until the claim has been made: it must not wait for the check.
    for (let i = 0; i < 100 && r.begins.length === 0; i++) await new Promise((d) => setTimeout(d, 5));
    expect(r.begins).toEqual(['k-1 with the check']);
    expect(r.ran).toEqual([]);
    pass();
    const res = await answer;
    expect(res.status).toBe(201);
    expect(r.ran).toEqual(['1']);
  });

  it('a refused keyed POST answers the refusal, never runs, and leaves its key free for the retry', async () => {
    const r = rig((req, res) =>
      deferAdmission(res, async () => {
        if (req.get('x-refuse')) throw refused();
      }),
    );
    const no = await r.http.post('/pos/v1/things').set('Idempotency-Key', 'k-2').set('x-refuse', '1').send({ n: 2 });
    expect(no.status).toBe(429);
    expect(no.body.code).toBe('rate_limited');
    expect(no.headers['retry-after']).toBe('7');
    expect(r.ran).toEqual([]);
    const yes = await r.http.post('/pos/v1/things').set('Idempotency-Key', 'k-2').send({ n: 2 });
    expect(yes.status).toBe(201);
    expect(yes.headers['idempotent-replayed']).toBeUndefined();
    expect(r.ran).toEqual(['2']);
  });

  it('a refused request without a key (a GET) never reaches its route', async () => {
    const r = rig((_req, res) =>
      deferAdmission(res, async () => {
        throw refused();
      }),
    );
    expect((await r.http.get('/pos/v1/things')).status).toBe(429);
    expect(r.ran).toEqual([]);
  });

  it('the refusal wins over an error found while the check was pending (malformed JSON)', async () => {
    const r = rig((_req, res) =>
      deferAdmission(res, async () => {
        throw refused();
      }),
    );
    const res = await r.http.post('/pos/v1/things').set('Content-Type', 'application/json').send('{"n":');
    expect(res.status).toBe(429);
    const fine = rig((_req, res) => deferAdmission(res, async () => undefined));
    const bad = await fine.http.post('/pos/v1/things').set('Content-Type', 'application/json').send('{"n":');
    expect(bad.status).toBe(400);
  });

  it('with the real terminal limiter: the third request in the minute is 429 whatever it carries, with the RateLimit headers', async () => {
    const limiter = new RateLimiterMemory({ points: 2, duration: 60, keyPrefix: 'adm-test' });
    const limit = terminalRateLimit(limiter, silentLogger);
    const r = rig((req, res) => limit(req, res, () => undefined));
    const first = await r.http.post('/pos/v1/things').set('Idempotency-Key', 'k-3').send({ n: 3 });
    expect([first.status, first.headers['ratelimit-remaining']]).toEqual([201, '1']);
    expect((await r.http.get('/pos/v1/things')).headers['ratelimit-remaining']).toBe('0');
    const third = await r.http.post('/pos/v1/things').set('Content-Type', 'application/json').send('{broken');
    expect(third.status).toBe(429);
    expect(third.headers['ratelimit-limit']).toBe('2');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    const replayOverLimit = await r.http.post('/pos/v1/things').set('Idempotency-Key', 'k-3').send({ n: 3 });
    expect(replayOverLimit.status).toBe(429);
    expect(r.ran).toEqual(['3', 'get']);
  });
});

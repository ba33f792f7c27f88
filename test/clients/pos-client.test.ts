import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createPosClient,
  PosNoAnswerError,
  retryAfterSeconds,
  retryRuleOf,
  type PaymentRequest,
  type PaymentResult,
  type Problem,
  type QueuedPayment,
} from '../../clients/pos-client';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { waitFor } from '../e2e/helpers';

type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | 'hang-up';

/** A real HTTP server that answers each request with the next of `answers` (`'hang-up'`: no answer at all). */
async function scripted(answers: Answer[]) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
      if (answer === 'hang-up') return req.socket.destroy();
      res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

const sale = (id: string): PaymentRequest => ({ customerId: 'client-alice', paymentId: id, totalPaid: 40, lines: [{ serviceId: 'sku-mug', amount: 40 }] });
const pendingAnswer = (id: string) => ({
  status: 202,
  headers: { Location: `/pos/v1/answers/${id}`, 'Retry-After': '1' },
  body: { pending: true, requestId: id, location: `/pos/v1/answers/${id}`, retryAfterSeconds: 1, detail: 'still running' },
});

describe('the till client against a server that misbehaves', () => {
  it('sends the token, Prefer: wait and one Idempotency-Key, the same on every retry (no answer, 429, 409 still running), and gives the key back', async () => {
    const server = await scripted([
      'hang-up',
      { status: 429, headers: { 'Retry-After': '1' }, body: { code: 'rate_limited' } },
      { status: 409, headers: { 'Retry-After': '1' }, body: { code: 'idempotency_request_in_progress' } },
      { status: 201, body: { paymentId: 's-1', status: 'recorded' } },
    ]);
    const pos = createPosClient({ baseUrl: server.url, token: 'pos_tok', noAnswerDelayMs: 10 });
    const { data, response } = await pos.POST('/pos/v1/payments', { body: sale('s-1') });
    await server.close();
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ paymentId: 's-1' });
    expect(server.seen).toHaveLength(4);
    const keys = server.seen.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(1);
    expect(pos.keyOf(response)).toBe(keys[0]);
    expect(server.seen.every((r) => r.headers.authorization === 'Bearer pos_tok' && r.body === JSON.stringify(sale('s-1')))).toBe(true);
    // Prefer: wait says what is left of the 6 s default, less as the call goes on.
    const waits = server.seen.map((r) => Number(/^wait=(\d+)$/.exec(String(r.headers.prefer))?.[1]));
    expect(waits[0]).toBeGreaterThanOrEqual(5);
    expect(waits[0]).toBeLessThanOrEqual(6);
    expect(waits[3]).toBeLessThan(waits[0]);
  });

  it('sends a busy 409 again with the same key after its Retry-After, and pauses (growing) when a "same" answer gives none', async () => {
    const server = await scripted([
      { status: 409, headers: { 'Retry-After': '1' }, body: { code: 'redemption_busy' } },
      { status: 409, body: { code: 'coupon_lock_busy' } },
      { status: 409, body: { code: 'coupon_lock_busy' } },
      { status: 201, body: { paymentId: 's-busy', status: 'recorded' } },
    ]);
    const pos = createPosClient({ baseUrl: server.url, token: 't', noAnswerDelayMs: 100 });
    const { response } = await pos.POST('/pos/v1/payments', { body: sale('s-busy') });
    await server.close();
    expect(response.status).toBe(201);
    expect(new Set(server.seen.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    const gaps = server.seen.slice(1).map((r, i) => r.at - server.seen[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(950);
    expect(gaps[1]).toBeGreaterThanOrEqual(90);
    expect(gaps[2]).toBeGreaterThanOrEqual(190);
  });

  it("keeps the caller's key, makes a new one per call, sends none on a GET, and needs none in the types", async () => {
    const server = await scripted([{ status: 200, body: {} }]);
    const pos = createPosClient({ baseUrl: server.url, token: 't' });
    const given = await pos.POST('/pos/v1/payments', { body: sale('s-2'), params: { header: { 'Idempotency-Key': 'till-7-sale-2' } } });
    await pos.POST('/pos/v1/payments', { body: sale('s-3') });
    // The document requires the key here; the client's types do not (it adds one).
    const hold = await pos.POST('/pos/v1/redemptions', { body: { customerId: 'client-alice', points: 10 } });
    await pos.GET('/pos/v1/customers/{id}', { params: { path: { id: 'client-alice' } } });
    await server.close();
    const keys = server.seen.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe('till-7-sale-2');
    expect(pos.keyOf(given.response)).toBe('till-7-sale-2');
    expect(keys[1]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[2]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).not.toBe(keys[2]);
    expect(pos.keyOf(hold.response)).toBe(keys[2]);
    expect(keys[3]).toBeUndefined();
  });

  it("follows each route's rule: `same` again, `new`, `stop` and a replayed answer back at once", async () => {
    const server = await scripted([
      { status: 503, headers: { 'Retry-After': '0' }, body: { code: 'upstream_timeout' } }, // GET: same
      { status: 200, body: {} },
      { status: 503, headers: { 'Retry-After': '0' }, body: { code: 'upstream_timeout' } }, // POST /payments: new (a new key is the till's call)
      { status: 503, headers: { 'Retry-After': '0' }, body: { code: 'upstream_timeout' } }, // POST /redemptions: stop
      { status: 409, headers: { 'Retry-After': '1' }, body: { code: 'otp_pending_for_another_redemption' } }, // new
      { status: 503, headers: { 'Retry-After': '0', 'Idempotent-Replayed': 'true' }, body: { code: 'upstream_unavailable' } }, // same, but replayed: final
    ]);
    const pos = createPosClient({ baseUrl: server.url, token: 't' });
    expect((await pos.GET('/pos/v1/customers/{id}', { params: { path: { id: 'c' } } })).response.status).toBe(200);
    const paid = await pos.POST('/pos/v1/payments', { body: sale('s-4') });
    expect(pos.factsOf(paid.response)).toMatchObject({ rule: 'new', replayed: false });
    const held = await pos.POST('/pos/v1/redemptions', { body: { customerId: 'c', points: 1 } });
    expect(pos.factsOf(held.response)?.rule).toBe('stop');
    expect((await pos.POST('/pos/v1/redemptions', { body: { customerId: 'c', points: 1 } })).response.status).toBe(409);
    const replay = await pos.POST('/pos/v1/outbox/dead/{id}/discard', { params: { path: { id: 'd1' } } });
    expect(pos.factsOf(replay.response)).toMatchObject({ rule: 'same', replayed: true });
    expect((replay.error as Problem).code).toBe('upstream_unavailable');
    await server.close();
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /pos/v1/customers/c',
      'GET /pos/v1/customers/c',
      'POST /pos/v1/payments',
      'POST /pos/v1/redemptions',
      'POST /pos/v1/redemptions',
      'POST /pos/v1/outbox/dead/d1/discard',
    ]);
  });

  it('never waits past its deadline: a busy spell is answered within it, a Retry-After beyond it at once', async () => {
    const busy = await scripted([{ status: 503, headers: { 'Retry-After': '1' }, body: { code: 'upstream_busy' } }]);
    const started = Date.now();
    const a = await createPosClient({ baseUrl: busy.url, token: 't', deadlineMs: 2500 }).POST('/pos/v1/redemptions/{id}/otp', {
      params: { path: { id: 'r1' } },
      body: { otp: '123456' },
    });
    const took = Date.now() - started;
    await busy.close();
    expect((a.error as Problem).code).toBe('upstream_busy');
    // Sent at 0 s, 1 s and 2 s; a fourth would start at 3 s, past the deadline.
    expect(busy.seen).toHaveLength(3);
    expect(took).toBeLessThan(2500);
    expect(busy.seen.map((r) => r.headers.prefer)).toEqual(['wait=2', 'wait=1', 'wait=1']);

    const long = await scripted([{ status: 503, headers: { 'Retry-After': '30' }, body: { code: 'redis_unavailable' } }]);
    const at = Date.now();
    const b = await createPosClient({ baseUrl: long.url, token: 't' }).POST('/pos/v1/payments', { body: sale('s-6') });
    expect(b.response.status).toBe(503);
    expect(long.seen).toHaveLength(1);
    expect(Date.now() - at).toBeLessThan(1000);
    await long.close();
  });

  it('throws, with the key, when no answer comes before the deadline', async () => {
    const gone = await scripted(['hang-up']);
    const pos = createPosClient({ baseUrl: gone.url, token: 't', deadlineMs: 500, noAnswerDelayMs: 50, newKey: () => 'key-kept' });
    const err = (await pos.POST('/pos/v1/payments', { body: sale('s-7') }).catch((e: unknown) => e)) as PosNoAnswerError;
    await gone.close();
    expect(err).toBeInstanceOf(PosNoAnswerError);
    expect(err.idempotencyKey).toBe('key-kept');
    expect(gone.seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(gone.seen.map((r) => r.headers['idempotency-key']))).toEqual(new Set(['key-kept']));
  });

  it('reads a 202 pending back from its Location until the outcome, and returns the pending answer with its key when the deadline runs out', async () => {
    const server = await scripted([pendingAnswer('rq1'), pendingAnswer('rq1'), { status: 201, body: { paymentId: 's-8', status: 'recorded' } }]);
    const pos = createPosClient({ baseUrl: server.url, token: 'tok' });
    const done = await pos.POST('/pos/v1/payments', { body: sale('s-8') });
    expect(done.response.status).toBe(201);
    expect(pos.keyOf(done.response)).toBe(server.seen[0].headers['idempotency-key']);
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /pos/v1/payments', 'GET /pos/v1/answers/rq1', 'GET /pos/v1/answers/rq1']);
    expect(
      server.seen
        .slice(1)
        .every((r) => r.headers.authorization === 'Bearer tok' && r.headers['idempotency-key'] === undefined && /^wait=\d+$/.test(String(r.headers.prefer))),
    ).toBe(true);
    await server.close();

    const slow = await scripted([pendingAnswer('rq2')]);
    const short = createPosClient({ baseUrl: slow.url, token: 'tok' }).within({ deadlineMs: 1200 });
    const started = Date.now();
    const left = await short.POST('/pos/v1/payments', { body: sale('s-9') });
    expect(Date.now() - started).toBeLessThan(1200 + 500);
    expect(left.response.status).toBe(202);
    expect(short.factsOf(left.response)).toMatchObject({ rule: 'read', pending: { requestId: 'rq2', location: '/pos/v1/answers/rq2' } });
    expect(short.keyOf(left.response)).toBe(slow.seen[0].headers['idempotency-key']);
    await slow.close();
  });

  it('pauses before each read-back of a 202 pending: its Retry-After, and a growing pause when it asks for 0', async () => {
    const now = (id: string) => ({ ...pendingAnswer(id), headers: { ...pendingAnswer(id).headers, 'Retry-After': '0' } });
    const server = await scripted([pendingAnswer('rq-p'), now('rq-p'), now('rq-p'), { status: 201, body: { paymentId: 's-p', status: 'recorded' } }]);
    const pos = createPosClient({ baseUrl: server.url, token: 't', noAnswerDelayMs: 150 });
    const { response } = await pos.POST('/pos/v1/payments', { body: sale('s-p') });
    await server.close();
    expect(response.status).toBe(201);
    const gaps = server.seen.slice(1).map((r, i) => r.at - server.seen[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(950);
    expect(gaps[1]).toBeGreaterThanOrEqual(280);
    expect(gaps[2]).toBeGreaterThanOrEqual(580);
  });

  it('asks the BFF to wait at most 120 s (the longest it honours), whatever the deadline', async () => {
    const server = await scripted([{ status: 201, body: { paymentId: 's-long', status: 'recorded' } }]);
    await createPosClient({ baseUrl: server.url, token: 't', deadlineMs: 600_000 }).POST('/pos/v1/payments', { body: sale('s-long') });
    await server.close();
    expect(server.seen.map((r) => r.headers.prefer)).toEqual(['wait=120']);
  });

  it('works where AbortSignal.any is missing (older browsers): answers come back, a silent server still runs out at the deadline', async () => {
    const any = AbortSignal.any;
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const server = await scripted([{ status: 201, body: { paymentId: 's-old', status: 'recorded' } }]);
    try {
      (AbortSignal as { any?: unknown }).any = undefined;
      const { response } = await createPosClient({ baseUrl: server.url, token: 't' }).POST('/pos/v1/payments', { body: sale('s-old') });
      expect(response.status).toBe(201);
      expect(server.seen).toHaveLength(1);
      const started = Date.now();
      const quiet = createPosClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, token: 't', deadlineMs: 500 });
      await expect(quiet.POST('/pos/v1/payments', { body: sale('s-quiet') })).rejects.toBeInstanceOf(PosNoAnswerError);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      AbortSignal.any = any;
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
      await server.close();
    }
  });

  it('reads back with the rules of the write it is for, and takes Answer-Replayed: true as final', async () => {
    const replayedTimeout = { status: 503, headers: { 'Answer-Replayed': 'true' }, body: { code: 'upstream_timeout' } };
    const server = await scripted([replayedTimeout]);
    const pos = createPosClient({ baseUrl: server.url, token: 't', noAnswerDelayMs: 10 });
    const forHold = await pos.readBack('/pos/v1/answers/rq-h', { method: 'POST', url: '/pos/v1/redemptions' });
    // Without the write, the read's own rule (`same` for a GET): still one request, for a replayed answer is final.
    const bare = await pos.readBack('/pos/v1/answers/rq-h');
    await server.close();
    expect(pos.factsOf(forHold)).toMatchObject({ rule: 'stop', replayed: true });
    expect(pos.factsOf(bare)).toMatchObject({ rule: 'same', replayed: true });
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /pos/v1/answers/rq-h', 'GET /pos/v1/answers/rq-h']);
  });

  it("keeps a base URL path prefix (a BFF behind /bff) for Locations and for finding the route's rules", async () => {
    const server = await scripted([pendingAnswer('rq-b'), { status: 201, body: { paymentId: 's-b', status: 'recorded' } }]);
    const pos = createPosClient({ baseUrl: `${server.url}/bff/`, token: 't', noAnswerDelayMs: 10 });
    expect((await pos.POST('/pos/v1/payments', { body: sale('s-b') })).response.status).toBe(201);
    await server.close();
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /bff/pos/v1/payments', 'GET /bff/pos/v1/answers/rq-b']);

    const timedOut = await scripted([{ status: 503, body: { code: 'upstream_timeout' } }]);
    const hold = createPosClient({ baseUrl: `${timedOut.url}/bff`, token: 't', noAnswerDelayMs: 10 });
    const { response } = await hold.POST('/pos/v1/redemptions', { body: { customerId: 'c', points: 5 } });
    await timedOut.close();
    // POST /redemptions' own rule (`stop`: a second hold could stand), not the code's (`same`).
    expect(hold.factsOf(response)?.rule).toBe('stop');
    expect(timedOut.seen).toHaveLength(1);
  });

  it("reads Retry-After as seconds or as an HTTP date, and a route's own rule before the code's", () => {
    expect(retryAfterSeconds('3')).toBe(3);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryRuleOf('POST', 'http://b/pos/v1/payments/P1/void?x=1', 'upstream_timeout')).toBe('new');
    expect(retryRuleOf('POST', 'http://b/pos/v1/redemptions', 'upstream_timeout')).toBe('stop');
    expect(retryRuleOf('GET', 'http://b/pos/v1/redemptions/r1', 'upstream_timeout')).toBe('same');
  });
});

describe('the till client against the BFF and the sandbox', () => {
  let s: Stack;
  let proxy: http.Server;
  let proxyUrl = '';
  let loseNextPost = false;
  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
    await s.seed('client-alice', 0);
    // Forwards every request; a POST's answer is dropped on the way back when asked, as a flaky store network would.
    proxy = http.createServer((req, res) => {
      const upstream = http.request(`${s.bff.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        if (req.method === 'POST' && loseNextPost) {
          loseNextPost = false;
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterEach(() => s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules: [] }).expect(200));
  afterAll(async () => {
    await new Promise((r) => proxy?.close(r));
    await s?.close();
  });

  const payments = () => s.sentUpstream().filter((e) => e.method === 'POST' && e.path.endsWith('/payments'));

  it('asks again with the same key after a lost answer: the BFF replays the first answer, the points are earned once', async () => {
    const pos = createPosClient({ baseUrl: proxyUrl, token: s.tokens.cashier, noAnswerDelayMs: 50 });
    const before = payments().length;
    loseNextPost = true;
    const { data, error, response } = await pos.POST('/pos/v1/payments', { body: sale('client-sale-1'), params: { query: { receipt: 'none' } } });
    expect(error).toBeUndefined();
    expect(loseNextPost).toBe(false);
    expect(response.status).toBe(201);
    expect(response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(pos.keyOf(response)).toMatch(/^[0-9a-f]{32}$/);
    const result: PaymentResult | QueuedPayment = data!;
    expect(result).toMatchObject({ paymentId: 'client-sale-1', status: 'recorded', pointsEarned: 40 });
    expect((await s.balance('client-alice')).availablePointsBalance).toBe(40);
    expect(payments().length - before).toBe(1);

    // Errors come back typed, with their code and rule.
    const refused = await pos.POST('/pos/v1/payments', { body: { ...sale('client-sale-2'), totalPaid: -1 } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'validation_failed' });
    expect(pos.factsOf(refused.response)?.rule).toBe('stop');
  });

  it('the same sale sent twice at once with one key: the second waits for the first (Prefer: wait) and gets its answer replayed: one payment upstream', async () => {
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'payment', latencyMs: 1500, times: 1 }] })
      .expect(200);
    const statuses: number[] = [];
    const watching: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      statuses.push(answer.status);
      return answer;
    };
    const pos = createPosClient({ baseUrl: s.bff.url, token: s.tokens.cashier, fetch: watching });
    const before = payments().length;
    const key = { 'Idempotency-Key': 'till-3-sale-busy' };
    const first = pos.POST('/pos/v1/payments', { body: sale('client-sale-busy'), params: { header: key } });
    await waitFor('the sale to reach the loyalty service', () => payments().length > before, 10_000);
    const second = await pos.POST('/pos/v1/payments', { body: sale('client-sale-busy'), params: { header: key } });
    expect((await first).response.status).toBe(201);
    expect(second.response.status).toBe(201);
    expect(second.response.headers.get('Idempotent-Replayed')).toBe('true');
    // Waited on the BFF (its same-key retry waits for the first run's answer), not by sending again and again.
    expect(statuses).toEqual([201, 201]);
    expect(payments().length - before).toBe(1);
  });

  it('sends a read again after a 503 upstream_busy with Retry-After (the loyalty service answering 429), within the deadline', async () => {
    await s.seed('client-bob', 5);
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'balance', status: 429 }] })
      .expect(200);
    const answers: { status: number; retryAfter: string | null; code?: string }[] = [];
    const watching: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      const body = (await answer
        .clone()
        .json()
        .catch(() => ({}))) as { code?: string };
      answers.push({ status: answer.status, retryAfter: answer.headers.get('Retry-After'), code: body.code });
      // The loyalty service recovers once the till has been told to wait.
      if (answer.status === 503) await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules: [] }).expect(200);
      return answer;
    };
    const pos = createPosClient({ baseUrl: s.bff.url, token: s.tokens.cashier, fetch: watching, deadlineMs: 10_000 });
    const { data, response } = await pos.GET('/pos/v1/customers/{id}', { params: { path: { id: 'client-bob' } } });
    expect(answers[0]).toMatchObject({ status: 503 });
    expect(answers[0].retryAfter).toMatch(/^\d+$/);
    expect(retryRuleOf('GET', '/pos/v1/customers/client-bob', answers[0].code!)).toBe('same');
    expect(answers.at(-1)?.status).toBe(200);
    expect(response.status).toBe(200);
    expect(data?.customerId).toBe('client-bob');
  });
});

describe('the client names every request and answer', () => {
  it('has a named type for each operation: its JSON body, and each JSON 2xx answer', () => {
    const doc = JSON.parse(readFileSync('openapi/pos-v1.json', 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: object }; responses: Record<string, { content?: object }> }>>;
    };
    const names = readFileSync('clients/pos-types.ts', 'utf8');
    const missing: string[] = [];
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        if (!op.operationId || ['getMetrics', 'getOpenApiDocument'].includes(op.operationId)) continue;
        if (op.requestBody && 'application/json' in op.requestBody.content && !names.includes(`Body<'${op.operationId}'>`))
          missing.push(`${op.operationId} body`);
        for (const [status, answer] of Object.entries(op.responses)) {
          if (!/^2/.test(status) || !answer.content || !('application/json' in answer.content)) continue;
          if (!names.includes(`Answer<'${op.operationId}', ${status}>`)) missing.push(`${op.operationId} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPosClient, retryAfterSeconds, type PaymentRequest, type PaymentResult, type Problem, type QueuedPayment } from '../../clients/pos-client';
import { startStack, Stack } from '../support/e2e';

/** A real HTTP server that answers each request with the next of `answers` (`'hang-up'`: no answer at all). */
async function scripted(answers: ({ status: number; headers?: Record<string, string>; body?: unknown } | 'hang-up')[]) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
      if (answer === 'hang-up') return req.socket.destroy();
      res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

const sale = (id: string): PaymentRequest => ({ customerId: 'client-alice', paymentId: id, totalPaid: 40, lines: [{ serviceId: 'sku-mug', amount: 40 }] });

describe('the till client against a server that misbehaves', () => {
  it('sends the bearer token and one Idempotency-Key, the same on every retry: after no answer, a 429 and a 409 still running', async () => {
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
    expect(server.seen.every((r) => r.headers.authorization === 'Bearer pos_tok' && r.body === JSON.stringify(sale('s-1')))).toBe(true);
  });

  it('keeps a key the caller gives, makes a new one per call, and sends none on a GET', async () => {
    const server = await scripted([{ status: 200, body: {} }]);
    const pos = createPosClient({ baseUrl: server.url, token: 't' });
    await pos.POST('/pos/v1/payments', { body: sale('s-2'), params: { header: { 'Idempotency-Key': 'till-7-sale-2' } } });
    await pos.POST('/pos/v1/payments', { body: sale('s-3') });
    await pos.POST('/pos/v1/payments', { body: sale('s-4') });
    await pos.GET('/pos/v1/customers/{id}', { params: { path: { id: 'client-alice' } } });
    await server.close();
    const keys = server.seen.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe('till-7-sale-2');
    expect(keys[1]).not.toBe(keys[2]);
    expect(keys[3]).toBeUndefined();
  });

  it('stops: at a Retry-After longer than maxWaitSeconds, after `attempts` tries, and at an answer that is not "try again"', async () => {
    const long = await scripted([{ status: 503, headers: { 'Retry-After': '30' }, body: { code: 'redis_unavailable' } }]);
    const started = Date.now();
    const a = await createPosClient({ baseUrl: long.url, token: 't' }).POST('/pos/v1/payments', { body: sale('s-5') });
    expect(a.response.status).toBe(503);
    expect((a.error as Problem).code).toBe('redis_unavailable');
    expect(long.seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
    await long.close();

    const busy = await scripted([{ status: 503, headers: { 'Retry-After': '0' }, body: { code: 'redis_unavailable' } }]);
    await createPosClient({ baseUrl: busy.url, token: 't', attempts: 3 }).POST('/pos/v1/payments', { body: sale('s-6') });
    expect(busy.seen).toHaveLength(3);
    await busy.close();

    // A stored 409 (another redemption's OTP still out) and a replayed 503 are answers, not "still running".
    const stored = await scripted([
      { status: 409, headers: { 'Retry-After': '1' }, body: { code: 'otp_pending_for_another_redemption' } },
      { status: 503, headers: { 'Retry-After': '1', 'Idempotent-Replayed': 'true' }, body: { code: 'upstream_unavailable' } },
    ]);
    const pos = createPosClient({ baseUrl: stored.url, token: 't' });
    expect((await pos.POST('/pos/v1/payments', { body: sale('s-7') })).response.status).toBe(409);
    expect((await pos.POST('/pos/v1/payments', { body: sale('s-7') })).response.status).toBe(503);
    expect(stored.seen).toHaveLength(2);
    await stored.close();

    const gone = await scripted(['hang-up']);
    await expect(createPosClient({ baseUrl: gone.url, token: 't', attempts: 2, noAnswerDelayMs: 1 }).GET('/healthz')).rejects.toThrow();
    expect(gone.seen).toHaveLength(2);
    await gone.close();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('3')).toBe(3);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });
});

describe('the till client against the BFF, through a link that loses an answer', () => {
  let s: Stack;
  let proxy: http.Server;
  let proxyUrl = '';
  let lostAnswers = 0;
  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
    await s.seed('client-alice', 0);
    // Forwards every request; the first POST's answer is dropped on the way back, as a flaky store network would.
    proxy = http.createServer((req, res) => {
      const upstream = http.request(`${s.bff.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        if (req.method === 'POST' && lostAnswers === 0) {
          lostAnswers++;
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
  afterAll(async () => {
    await new Promise((r) => proxy?.close(r));
    await s?.close();
  });

  it('retries a sale whose answer was lost with the same key: the BFF replays the first answer, the points are earned once', async () => {
    const pos = createPosClient({ baseUrl: proxyUrl, token: s.tokens.cashier, noAnswerDelayMs: 50 });
    const { data, error, response } = await pos.POST('/pos/v1/payments', { body: sale('client-sale-1'), params: { query: { receipt: 'none' } } });
    expect(error).toBeUndefined();
    expect(lostAnswers).toBe(1);
    expect(response.status).toBe(201);
    expect(response.headers.get('Idempotent-Replayed')).toBe('true');
    const result: PaymentResult | QueuedPayment = data!;
    expect(result).toMatchObject({ paymentId: 'client-sale-1', status: 'recorded', pointsEarned: 40 });
    expect((await s.balance('client-alice')).availablePointsBalance).toBe(40);
    const payments = s.sentUpstream().filter((e) => e.method === 'POST' && e.path.endsWith('/payments'));
    expect(payments).toHaveLength(1);

    // Errors come back typed, with their code.
    const refused = await pos.POST('/pos/v1/payments', { body: { ...sale('client-sale-2'), totalPaid: -1 } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'validation_failed' });
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

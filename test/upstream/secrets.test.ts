import { UpstreamCallEvent } from '../../src/upstream';
import { waitFor } from '../e2e/helpers';
import { bodies, holdRequest, paymentRequest } from './fixtures';
import { API_KEY, drop, failure, json, loyaltyError, makeClient, SECRET_KEY, stall, STALL_TIMEOUT_MS, useTestUpstream } from './test-upstream';

const upstream = useTestUpstream();

it('never puts the keys in a log line or a thrown error, whatever happens', async () => {
  const { client, lines } = makeClient(upstream, { retries: 0, timeoutMs: STALL_TIMEOUT_MS });
  const echo = (status: number, code: number, type: string) =>
    loyaltyError(status, code, type, `bad key ${SECRET_KEY} / ${API_KEY}`, { 'X-Echo-Secret': SECRET_KEY });
  upstream.script(
    json(200, bodies.hold),
    echo(401, 1000, 'ApiKeyInvalid'),
    echo(401, 1001, `SecretKeyRequired ${SECRET_KEY}`),
    echo(422, 3003, 'InvalidValue'),
    echo(503, 5000, 'InternalError'),
    json(200, { hold: SECRET_KEY }),
    drop,
    stall,
  );
  const errors: unknown[] = [];
  await client.hold(holdRequest, { requestId: 'rq-secrets' });
  for (let i = 0; i < 7; i += 1) errors.push(await failure(() => client.hold(holdRequest, { requestId: 'rq-secrets' })));
  client.close();

  // A client that timed out may have left before the server read its request.
  await waitFor('all 8 requests to reach the upstream', () => upstream.seen.length >= 8);
  expect(upstream.seen).toHaveLength(8);
  expect(upstream.seen.every((s) => s.headers.secretkey === SECRET_KEY)).toBe(true);
  expect(lines.length).toBeGreaterThanOrEqual(8);
  const logText = lines.join('\n');
  expect(logText).not.toContain(SECRET_KEY);
  expect(logText).not.toContain(API_KEY);
  for (const err of errors) {
    const e = err as Error & { cause?: unknown };
    const text = `${JSON.stringify(err)} ${e.message} ${e.stack} ${String(e.cause)} ${JSON.stringify(e.cause ?? null)}`;
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(API_KEY);
  }
  // The upstream's own message is kept for operators, with the keys scrubbed.
  expect(logText).toContain('bad key [redacted] / [redacted]');
});

it('logs each call at debug with operation, status, duration and request id, and no headers or bodies', async () => {
  const { client, lines } = makeClient(upstream);
  upstream.script(json(200, bodies.payment));
  await client.payment(paymentRequest, { requestId: 'rq-log-1' });
  client.close();
  const calls = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'loyalty call');
  expect(calls).toHaveLength(1);
  expect(calls[0]).toMatchObject({ level: 20, operation: 'payment', method: 'POST', status: 200, requestId: 'rq-log-1', attempt: 1, outcome: 'ok' });
  expect(typeof calls[0].durationMs).toBe('number');
  expect(JSON.stringify(calls[0])).not.toMatch(/headers|paymentId|p-1|totalPaid/);
});

it('reports every attempt to onCall', async () => {
  const events: UpstreamCallEvent[] = [];
  const { client } = makeClient(upstream, { onCall: (e) => events.push(e) });
  upstream.script(loyaltyError(503, 5000, 'InternalError', 'down'), json(200, bodies.hash), loyaltyError(404, 7000, 'CustomerNotFound', 'no'));
  await client.hash('c-1');
  await failure(() => client.hash('c-2'));
  client.close();
  expect(events.map(({ durationMs, ...rest }) => rest)).toEqual([
    { operation: 'hash', outcome: 'unavailable', status: 503, attempt: 1 },
    { operation: 'hash', outcome: 'ok', status: 200, attempt: 2 },
    { operation: 'hash', outcome: 'rejected', status: 404, attempt: 1 },
  ]);
  expect(events.every((e) => e.durationMs >= 0)).toBe(true);
});

it('a throwing onCall hook does not break the call', async () => {
  const { client, lines } = makeClient(upstream, {
    onCall: () => {
      throw new Error('metrics bug');
    },
  });
  upstream.script(json(200, bodies.hash));
  await expect(client.hash('c-1')).resolves.toEqual(bodies.hash);
  client.close();
  expect(lines.some((l) => l.includes('onCall hook failed'))).toBe(true);
});

it('never puts the next key (LOYALTY_SECRET_KEY_NEXT) in a log line or a thrown error either', async () => {
  const NEXT_API = 'test-next-api-key-77aa';
  const NEXT_SECRET = 'test-next-secret-key-3c9d1e';
  const { client, lines } = makeClient(upstream, { retries: 0, nextKeys: { apiKey: NEXT_API, secretKey: NEXT_SECRET } });
  const echo = (status: number, code: number) =>
    loyaltyError(status, code, `Refused ${NEXT_SECRET}`, `bad key ${NEXT_SECRET} / ${NEXT_API} / ${SECRET_KEY}`, { 'X-Echo-Secret': NEXT_SECRET });
  upstream.script(echo(401, 1001), echo(403, 1002), echo(401, 1000), echo(401, 1001));
  const errors = [await failure(() => client.hold(holdRequest)), await failure(() => client.hold(holdRequest))];
  client.close();
  // The next pair was sent (after the current one's key failure), so its absence below means something.
  expect(upstream.seen.map((s) => s.headers.secretkey)).toEqual([SECRET_KEY, NEXT_SECRET, SECRET_KEY, NEXT_SECRET]);
  const logText = lines.join('\n');
  for (const secret of [NEXT_SECRET, NEXT_API, SECRET_KEY]) {
    expect(logText).not.toContain(secret);
    for (const err of errors) {
      const e = err as Error & { cause?: unknown };
      expect(`${JSON.stringify(err)} ${e.message} ${e.stack} ${String(e.cause)}`).not.toContain(secret);
    }
  }
  expect(logText).toContain('bad key [redacted] / [redacted] / [redacted]');
});

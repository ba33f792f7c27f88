import { createPosClient } from '../../clients/pos-client';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { CASHIER_HEADER, SHIFT_HEADER } from '../../src/pos/audit/cashier';
import { PREFERENCE_APPLIED } from '../../src/pos/http/till-deadline';
import { REPLAYED_HEADER } from '../../src/pos/idempotency';
import { ANSWER_REPLAYED } from '../../src/pos/stored-response';
import { SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { rawClient, RawClient, RawResponse } from './support/raw-http';

/**
 * Nothing leaks to a till: not the loyalty keys, not a terminal token, not a
 * stack trace, not the upstream's own error text (the sandbox's fault
 * messages carry a marker that must never come through). Security headers
 * are on every answer; CORS is off unless origins are configured.
 */
const MARKER = 'injected by a sandbox fault';
const STACK_TRACE = /\bat [^\s()]+ \(?[^\s()]*:\d+:\d+\)?|node_modules|\.ts:\d+/;
const STATUSES = [400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504];
/** A key pair to rotate to: tried after a key failure (401/403), so it is sent upstream and must leak nowhere either. */
const NEXT_SECRET = 'lk_next_secret_key_never_shown_91c2';

describe('what a till is told when the loyalty service errs', () => {
  let s: Stack;
  let c: RawClient;
  let heldId: string;
  beforeAll(async () => {
    s = await startStack({
      store: 'memory',
      env: { LOYALTY_RETRIES: '0', TERMINAL_RATE_LIMIT_PER_MINUTE: '0', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0', LOYALTY_SECRET_KEY_NEXT: NEXT_SECRET },
    });
    c = rawClient(s.bff.url);
    await s.seed('lk-alice', 10_000);
    heldId = (await s.pos('cashier').post('/redemptions', { customerId: 'lk-alice', points: 10 }).expect(201)).body.id;
    await s.pos('cashier').post('/payments', { customerId: 'lk-alice', paymentId: 'lk-sale', totalPaid: 100 }).expect(201);
  });
  afterAll(async () => {
    c?.close();
    await s?.close();
  });

  let n = 0;
  const calls = (): [string, 'cashier' | 'manager' | 'kiosk', string, string, object?][] => [
    ['GET', 'cashier', '/pos/v1/customers/lk-alice', ''],
    ['GET', 'kiosk', '/pos/v1/customers/lk-alice/hash', ''],
    ['POST', 'cashier', '/pos/v1/redemptions', '', { customerId: 'lk-alice', points: 1 }],
    ['POST', 'cashier', `/pos/v1/redemptions/${heldId}/void`, ''],
    ['POST', 'cashier', '/pos/v1/payments', '', { customerId: 'lk-alice', paymentId: `lk-p-${++n}`, totalPaid: 5 }],
    ['POST', 'manager', '/pos/v1/payments/lk-sale/void', '', { customerId: 'lk-alice', refundId: `lk-v-${++n}` }],
    ['POST', 'manager', '/pos/v1/refunds', '', { customerId: 'lk-alice', refundId: `lk-r-${++n}`, paymentId: 'lk-sale', amount: 1 }],
    ['POST', 'kiosk', '/pos/v1/events', '', { customerId: 'lk-alice', events: { store_visit: { aisle: 'A' } } }],
    [
      'POST',
      'cashier',
      '/pos/v1/orders/batch',
      '',
      { orders: [{ customerId: 'lk-alice', orderId: `lk-o-${++n}`, orderDate: new Date().toISOString(), totalPaid: 1 }] },
    ],
    ['GET', 'cashier', '/pos/v1/orders/batch/1', ''],
    ['DELETE', 'manager', '/pos/v1/customers/lk-nobody', ''],
  ];

  function leakIn(res: RawResponse): string | undefined {
    const text = `${JSON.stringify(res.headers)} ${res.text}`;
    if (text.includes(MARKER) || /sandbox/i.test(res.text)) return 'the upstream error text';
    if (text.includes(SANDBOX_KEYS.secretkey) || text.includes(SANDBOX_KEYS.apikey) || text.includes(NEXT_SECRET)) return 'a loyalty key';
    if (Object.values(s.tokens).some((t) => text.includes(t))) return 'a terminal token';
    if (STACK_TRACE.test(res.text)) return 'a stack trace';
    return undefined;
  }

  it.each(STATUSES)('upstream answering %i: the till gets our own code and words, never the upstream text', async (status) => {
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: '*', status }] })
      .expect(200);
    const seen: string[] = [];
    for (const [method, role, path, , body] of calls()) {
      const res = await c.send({
        method,
        path,
        headers: { Authorization: `Bearer ${s.tokens[role]}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      expect({ path, leak: leakIn(res) }).toEqual({ path, leak: undefined });
      if (res.status >= 400) {
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect((res.json as { code: string }).code).toMatch(/^[a-z_]+$/);
      }
      seen.push(`${res.status}`);
    }
    // The fault really fired: not every answer can be a success.
    expect(seen.some((st) => Number(st) >= 400)).toBe(true);
    await s.sandboxAdmin.delete('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  });

  it('logs the upstream text for the operator (upstreamMessage) and nowhere else; keys and tokens in no line', () => {
    // BFF lines carry the instance number; the rest are the sandbox's own.
    const bff = s.logs.filter((l) => l.includes('"instance":')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(bff.length).toBeGreaterThan(50);
    const withMarker = bff.filter((l) => JSON.stringify(l).includes(MARKER));
    expect(withMarker.length).toBeGreaterThan(0);
    for (const line of withMarker) {
      const { upstreamMessage: _operatorOnly, ...rest } = line;
      expect(JSON.stringify(rest)).not.toContain(MARKER);
    }
    for (const secret of [SANDBOX_KEYS.secretkey, NEXT_SECRET, ...Object.values(s.tokens)]) expect(s.logs.join('\n')).not.toContain(secret);
    // The next key was really sent (after the 401/403 faults), so its absence above means something.
    expect(s.sentUpstream().some((e) => e.headers.secretkey === NEXT_SECRET)).toBe(true);
  });
});

describe('security headers and CORS', () => {
  let off: Stack;
  let on: Stack;
  const TABLET = 'https://tablet.store.example';
  beforeAll(async () => {
    [off, on] = await Promise.all([startStack({ store: 'memory' }), startStack({ store: 'memory', env: { CORS_ORIGINS: `${TABLET}, http://10.0.0.5:3000` } })]);
    await off.seed('hd-alice', 1);
    await on.seed('hd-alice', 1);
  });
  afterAll(async () => {
    await off?.close();
    await on?.close();
  });

  it('sends helmet headers on successes, refusals, unknown routes and ops routes; no X-Powered-By', async () => {
    const c = rawClient(off.bff.url);
    const auth = { Authorization: `Bearer ${off.tokens.cashier}` };
    const answers = [
      await c.send({ method: 'GET', path: '/pos/v1/customers/hd-alice', headers: auth }),
      await c.send({ method: 'GET', path: '/pos/v1/customers/hd-alice' }),
      await c.send({ method: 'GET', path: '/pos/v1/nowhere', headers: auth }),
      await c.send({ method: 'GET', path: '/nowhere' }),
      await c.send({ method: 'GET', path: '/healthz' }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 404, 200]);
    for (const r of answers) {
      expect(r.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'x-dns-prefetch-control': 'off',
      });
      expect(r.headers['content-security-policy']).toContain("default-src 'self'");
      expect(r.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(r.headers['x-powered-by']).toBeUndefined();
    }
    c.close();
  });

  const preflight = (c: RawClient, origin: string) =>
    c.send({
      method: 'OPTIONS',
      path: '/pos/v1/payments',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key,x-cashier-id,x-shift-id',
      },
    });

  it('is off by default: a browser preflight is refused with 403 and no origin is ever allowed', async () => {
    const c = rawClient(off.bff.url);
    const pre = await preflight(c, TABLET);
    expect(pre.status).toBe(403);
    expect((pre.json as { code: string }).code).toBe('cors_origin_not_allowed');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await c.send({ method: 'GET', path: '/pos/v1/customers/hd-alice', headers: { Origin: TABLET, Authorization: `Bearer ${off.tokens.cashier}` } });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    c.close();
  });

  it('allows exactly the configured origins (CORS_ORIGINS), with the headers a tablet app needs', async () => {
    const c = rawClient(on.bff.url);
    const pre = await preflight(c, TABLET);
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(TABLET);
    expect(pre.headers['access-control-allow-methods']).toContain('POST');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toEqual(expect.stringContaining('idempotency-key'));
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toEqual(expect.stringContaining('authorization'));
    for (const h of [CASHIER_HEADER, SHIFT_HEADER]) expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain(h.toLowerCase());
    expect(pre.headers['access-control-max-age']).toBe('600');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    expect(pre.headers.vary).toContain('Origin');

    const get = await c.send({
      method: 'GET',
      path: '/pos/v1/customers/hd-alice',
      headers: { Origin: 'http://10.0.0.5:3000', Authorization: `Bearer ${on.tokens.cashier}` },
    });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe('http://10.0.0.5:3000');
    expect(get.headers['access-control-expose-headers']).toContain('Retry-After');
    expect(get.headers['access-control-expose-headers']).toContain(REPLAYED_HEADER);

    const foreign = await preflight(c, 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const lookalike = await preflight(c, 'https://tablet.store.example.evil.example');
    expect(lookalike.status).toBe(403);
    const foreignGet = await c.send({
      method: 'GET',
      path: '/pos/v1/customers/hd-alice',
      headers: { Origin: 'https://evil.example', Authorization: `Bearer ${on.tokens.cashier}` },
    });
    expect(foreignGet.headers['access-control-allow-origin']).toBeUndefined();
    c.close();
  });

  it('lets a browser send exactly what the till client sends, and read the headers it reads', async () => {
    // The headers the client really puts on a write (a cashier-signed one: a store may require that), recorded on their way out.
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      request.headers.forEach((_v, name) => sent.push(name));
      return fetch(request);
    };
    const pos = createPosClient({ baseUrl: on.bff.url, token: on.tokens.cashier, fetch: recording });
    const { response } = await pos.POST('/pos/v1/payments', {
      params: { header: { [CASHIER_HEADER]: 'c-1', [SHIFT_HEADER]: 's-1' } },
      body: { customerId: 'hd-alice', paymentId: 'cors-sale', totalPaid: 10 },
    });
    expect(response.status).toBe(201);
    const names = [...new Set(sent)].sort();
    expect(names).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'prefer']));

    const c = rawClient(on.bff.url);
    const pre = await c.send({
      method: 'OPTIONS',
      path: '/pos/v1/payments',
      headers: { Origin: TABLET, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': names.join(',') },
    });
    expect(pre.status).toBe(204);
    const allowed = String(pre.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(names.filter((n) => !allowed.includes(n))).toEqual([]);

    const get = await c.send({ method: 'GET', path: '/pos/v1/customers/hd-alice', headers: { Origin: TABLET, Authorization: `Bearer ${on.tokens.cashier}` } });
    const exposed = String(get.headers['access-control-expose-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const h of ['Location', 'Retry-After', REPLAYED_HEADER, ANSWER_REPLAYED, PREFERENCE_APPLIED]) expect(exposed).toContain(h.toLowerCase());
    c.close();
  });

  it('refuses CORS_ORIGINS that are not plain origins (no wildcard, no paths)', () => {
    for (const bad of ['*', 'https://tablet.example/app', 'tablet.example', 'https://ok.example,ftp://x.example']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(ConfigError);
    }
    expect(loadConfig({ CORS_ORIGINS: ' https://a.example , http://10.0.0.5:3000 ' }).http.corsOrigins).toEqual(['https://a.example', 'http://10.0.0.5:3000']);
    expect(loadConfig({}).http.corsOrigins).toEqual([]);
  });
});

import request from 'supertest';
import { buildPosOpenApi } from '../../src/pos/openapi';
import { startStack, Stack } from '../support/e2e';

/**
 * A known path with a method it does not take: 405 with `Allow` naming the
 * methods it does take (it was 404). Only that answer changes: an unknown
 * path is still 404, an unauthenticated /pos/v1 request still 401.
 */
describe('wrong method on a known path', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });
  const auth = () => ({ Authorization: `Bearer ${s.tokens.manager}` });

  it('answers 405 with Allow for every documented path and every method it does not take', async () => {
    const doc = buildPosOpenApi() as unknown as { paths: Record<string, Record<string, unknown>> };
    const http = request(s.bff.url);
    const methods = ['get', 'post', 'put', 'delete', 'patch'] as const;
    const seen: string[] = [];
    for (const [template, ops] of Object.entries(doc.paths)) {
      const documented = methods.filter((m) => m in ops);
      const allow = [...documented.map((m) => m.toUpperCase()), ...(documented.includes('get') ? ['HEAD'] : [])].sort().join(', ');
      const path = template.replace(/\{[^}]+\}/g, 'x1');
      for (const m of methods.filter((m) => !documented.includes(m))) {
        const res = await http[m](path).set(auth());
        expect({ call: `${m.toUpperCase()} ${path}`, status: res.status, allow: res.headers.allow, code: res.body.code }).toEqual({
          call: `${m.toUpperCase()} ${path}`,
          status: 405,
          allow,
          code: 'method_not_allowed',
        });
        seen.push(`${m} ${path}`);
      }
    }
    expect(seen.length).toBeGreaterThan(60);
  });

  it('leaves every other answer as it was: unknown path 404, no token 401, HEAD of a GET route 200', async () => {
    const http = request(s.bff.url);
    expect((await http.get('/pos/v1/no-such-thing').set(auth())).status).toBe(404);
    expect((await http.delete('/no-such-thing')).body.code).toBe('route_not_found');
    expect((await http.get('/pos/v1/payments')).status).toBe(401); // authentication first, as before
    expect((await http.head('/healthz')).status).toBe(200);
    const res = await http.delete('/healthz');
    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.detail).toBe('DELETE is not allowed on /healthz; it takes GET, HEAD');
  });
});

import request from 'supertest';
import { startStack, Stack } from '../support/e2e';

/**
 * Tills behind a load balancer: every connection comes from the balancer's
 * address (here loopback) and names the till in X-Forwarded-For. With
 * TRUST_PROXY the auth-failure limit counts each till's own address, so one
 * till sending bad tokens does not lock the others out; without it, the
 * header is not believed and the balancer's address is what is counted.
 */
describe.each([
  ['loopback', true],
  ['false', false],
] as const)('TRUST_PROXY=%s behind a simulated balancer', (trustProxy, trusted) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { TRUST_PROXY: trustProxy, AUTH_FAILURE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const viaBalancer = (till: string, token: string) =>
    request(s.bff.url).get('/pos/v1/redemptions/rdm_nothinghere1').set('Authorization', `Bearer ${token}`).set('X-Forwarded-For', till);

  it(
    trusted
      ? 'one till sending bad tokens is limited alone; the other tills carry on'
      : 'counts the balancer, so a bad till blocks every till (why the setting exists)',
    async () => {
      const bad = 'pos_' + 'x'.repeat(43);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await viaBalancer('10.0.0.5', bad)).status);
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(statuses.slice(5)).toEqual([429, 429]);

      const other = await viaBalancer('10.0.0.6', s.tokens.cashier);
      if (trusted) {
        expect(other.status).toBe(404); // authenticated: the redemption just does not exist
        expect(s.logs.some((l) => l.includes('"remoteAddress":"10.0.0.5"'))).toBe(true);
      } else {
        expect(other.status).toBe(429);
        expect(other.body.code).toBe('too_many_auth_failures');
      }
    },
  );
});

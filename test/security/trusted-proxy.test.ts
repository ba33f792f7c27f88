import request from 'supertest';
import { startStack, Stack } from '../support/e2e';

/**
 * Tills behind a load balancer: every connection comes from the balancer's
 * address (here loopback) and names the till in X-Forwarded-For. A till
 * sending a bad token is limited by that token, so the others carry on either
 * way; requests without credentials count per address, which with TRUST_PROXY
 * is each till's own, and without it the balancer's (the header is not believed).
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

  it('one till sending a bad token is limited alone; the other tills carry on', async () => {
    const bad = 'pos_' + 'x'.repeat(43);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await viaBalancer('10.0.0.5', bad)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const other = await viaBalancer('10.0.0.6', s.tokens.cashier);
    expect(other.status).toBe(404); // authenticated: the redemption just does not exist
    expect(s.logs.some((l) => l.includes(`"remoteAddress":"${trusted ? '10.0.0.5' : '127.0.0.1'}"`))).toBe(true);
  });

  it(
    trusted ? 'counts requests without credentials per till address' : 'counts requests without credentials per balancer address (why the setting exists)',
    async () => {
      const bare = (till: string) => request(s.bff.url).get('/pos/v1/redemptions/rdm_nothinghere1').set('X-Forwarded-For', till);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await bare('10.0.0.7')).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      expect((await bare('10.0.0.8')).status).toBe(trusted ? 401 : 429);
      // A valid token is never refused for what others did.
      expect((await viaBalancer('10.0.0.7', s.tokens.cashier)).status).toBe(404);
    },
  );
});

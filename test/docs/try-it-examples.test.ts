import { readFileSync } from 'node:fs';
import request from 'supertest';
import { startStack, Stack } from '../support/e2e';

/**
 * The example "Try it out" on /docs puts first in POST /payments works as it
 * is against the bundled sandbox's customer, and twice: it names no
 * redemption or coupon lock that would not exist, and a second try is the
 * same sale answered again, not an error.
 */
describe('the first POST /payments example on /docs', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('records a sale for the bundled customer, and answers the same sale the second time', async () => {
    const doc = (await request(s.bffs[0].url).get('/openapi.json').expect(200)).body as {
      paths: Record<string, { post: { requestBody: { content: { 'application/json': { examples: Record<string, { value: Record<string, unknown> }> } } } } }>;
    };
    const [first] = Object.values(doc.paths['/pos/v1/payments'].post.requestBody.content['application/json'].examples);
    expect(first.value).not.toHaveProperty('redemptionId');
    expect(first.value).not.toHaveProperty('couponLockId');
    // The bundled sandbox (npm start) seeds this customer; this stack is seeded the same way.
    const bundled = readFileSync('config/sandbox-accounts.json', 'utf8');
    expect(bundled).toContain(`"customerId": "${first.value.customerId as string}"`);
    await s.seed(first.value.customerId as string, 1000);
    const till = () => request(s.bffs[0].url).post('/pos/v1/payments').set('Authorization', `Bearer ${s.tokens.cashier}`);
    expect((await till().set('Idempotency-Key', 'try-1').send(first.value).expect(201)).body.status).toBe('recorded');
    expect((await till().set('Idempotency-Key', 'try-2').send(first.value).expect(201)).body.status).toBe('already_recorded');
  });
});

import { createPosClient, type PaymentRequest } from '../../clients/pos-client';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/**
 * The client against the BFF's deadline (`Prefer: wait`): a sale still in
 * flight when the call's deadline runs out comes back as the 202 pending, with
 * its Location and key, and reading it back later gives the sale's answer.
 * Needs the server side of the deadline (202 pending, GET /pos/v1/answers/{id}).
 */
describe('the till client and a deadline that runs out', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { LOYALTY_TIMEOUT_MS: '15000' } });
    await s.seed('deadline-alice', 0);
  });
  afterAll(() => s?.close());

  it('returns the 202 pending with its Location and key, and reads the sale back later: one payment upstream', async () => {
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'payment', latencyMs: 4000, times: 1 }] })
      .expect(200);
    const pos = createPosClient({ baseUrl: s.bff.url, token: s.tokens.cashier });
    const sale: PaymentRequest = { customerId: 'deadline-alice', paymentId: 'deadline-sale-1', totalPaid: 30, lines: [{ serviceId: 'sku-mug', amount: 30 }] };
    const started = Date.now();
    const first = await pos.within({ deadlineMs: 1500 }).POST('/pos/v1/payments', { body: sale });
    expect(Date.now() - started).toBeLessThan(1500 + 1500);
    expect(first.response.status).toBe(202);
    const facts = pos.factsOf(first.response)!;
    expect(facts.rule).toBe('read');
    expect(facts.pending?.location).toMatch(/^\/pos\/v1\/answers\/.+/);
    expect(first.response.headers.get('Location')).toBe(facts.pending?.location);
    expect(facts.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);

    const later = await pos.readBack(facts.pending!.location, { deadlineMs: 15_000 });
    expect(later.status).toBe(201);
    expect(await later.json()).toMatchObject({ paymentId: 'deadline-sale-1', status: 'recorded' });
    expect(s.sentUpstream().filter((e) => e.method === 'POST' && e.path.endsWith('/payments'))).toHaveLength(1);
  }, 40_000);
});

import { eventually, pending, setFaults } from '../pos/outbox/stack-helpers';
import { startStack, Stack } from '../support/e2e';

/**
 * A refund's lines are held to the loyalty service's limits at the till: what
 * it would refuse is a 400 naming the till's own field, before anything is
 * sent or queued, so nothing the outbox accepts can become a dead letter for
 * a line's length. A line at every limit is accepted, and delivered.
 */
describe.each(['memory', 'redis'] as const)('refund line limits (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });

  const customerId = `rll-${store}`;
  const atLimits = {
    serviceId: 's'.repeat(200),
    sku: 'k'.repeat(200),
    name: 'n'.repeat(500),
    provider: 'p'.repeat(200),
    quantity: 2,
    amount: 40,
    category: ['c'.repeat(200)],
    tags: ['t'.repeat(200)],
  };
  const refund = (refundId: string, line: object) =>
    s.pos('manager').post('/refunds', { customerId, refundId, paymentId: `${customerId}-sale`, lines: [line] });

  beforeAll(async () => {
    await s.seed(customerId, 0);
    await s
      .pos('cashier')
      .post('/payments?receipt=none', { customerId, paymentId: `${customerId}-sale`, totalPaid: 40, lines: [atLimits] })
      .expect(201);
  });

  it.each([
    ['a provider (vendor) one past 200', { provider: 'p'.repeat(201) }, 'lines.0.provider'],
    ['a name (title) one past 500', { name: 'n'.repeat(501) }, 'lines.0.name'],
  ])('%s: 400 naming the field, sent nowhere, queued nowhere (the loyalty service down)', async (_what, change, path) => {
    await setFaults(s, [{ operation: 'refund', status: 503 }]);
    const res = await refund(`${customerId}-bad-${path}`, { ...atLimits, ...change }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path })] });
    expect(await pending(s)).toBe(0);
  });

  it("the same refund with the service up: 400 naming the till's field, not the loyalty service's", async () => {
    const res = await refund(`${customerId}-bad-up`, { ...atLimits, provider: 'p'.repeat(201) }).expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'lines.0.provider' })]);
  });

  it('a line at every limit, queued while the service is down, is delivered once it is back (not a dead letter)', async () => {
    await setFaults(s, [{ operation: 'refund', status: 503 }]);
    const queued = await refund(`${customerId}-ok`, { ...atLimits, quantity: 1, amount: 20 }).expect(202);
    expect(queued.body).toMatchObject({ queued: true, kind: 'refund' });
    await setFaults(s, []);
    await eventually('the queued refund to be delivered', async () => (await pending(s)) === 0);
    expect((await s.bff.deps.outbox.counts()).dead).toBe(0);
    expect((await s.balance(customerId)).availablePointsBalance).toBe(20);
  });
});

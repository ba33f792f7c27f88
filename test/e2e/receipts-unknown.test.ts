import { setFaults } from '../pos/outbox/stack-helpers';
import { startStack, Stack } from '../support/e2e';
import { heldRedemption } from './helpers';

/**
 * A receipt figure that could not be read prints as unknown, never as a
 * number: the points a refund gave back are read after it (the published
 * refund answer does not carry them), and that read may fail.
 */
describe.each(['memory', 'redis'] as const)('receipt figures that could not be read (%s store)', (store) => {
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

  /** 1000 points, 100 of them paying part of a 90.00 sale that earns 90: 990 after. */
  async function saleWithPoints(customerId: string, paymentId: string) {
    const r = await heldRedemption(s, customerId, 100, { seed: 1000 });
    await s.pos('cashier').post('/payments?receipt=none', { customerId, paymentId, totalPaid: 90, redemptionId: r.id }).expect(201);
  }

  it.each([
    ['the loyalty service fails (500)', { operation: 'orderTransactions', status: 500 }],
    ['the loyalty service is rate limited (429)', { operation: 'orderTransactions', status: 429 }],
  ])('a refund whose given-back points cannot be read: %s -> null and "unknown", never 0', async (_what, fault) => {
    const id = `gb-${store}-${fault.status}`;
    await saleWithPoints(id, `${id}-sale`);
    await setFaults(s, [fault]);
    const res = await s
      .pos('manager')
      .post('/refunds', { customerId: id, refundId: `${id}-rf`, paymentId: `${id}-sale`, amount: 45 })
      .expect(201);
    const rc = res.body.receipt;
    // 45 taken back, 50 given back: 995, read after the refund.
    expect(rc).toMatchObject({ pointsTakenBack: 45, pointsGivenBack: null, balanceAfter: 995 });
    expect(rc.lines).toContain(`Given back${' '.repeat(40 - 'Given back'.length - 'unknown'.length)}unknown`);
    expect(rc.lines.join('\n')).not.toMatch(/Given back +\+?0 /);
    // A 429 pauses its bucket fleet-wide for its Retry-After (1 s): the next test reads the same bucket.
    if (fault.status === 429) await new Promise((r) => setTimeout(r, 1000));
  });

  it('the same refund read back in full once the read works: 50 given back, and the balance adds up', async () => {
    const id = `gb-${store}-ok`;
    await saleWithPoints(id, `${id}-sale`);
    const before = await s.balance(id);
    const rc = (
      await s
        .pos('manager')
        .post('/refunds', { customerId: id, refundId: `${id}-rf`, paymentId: `${id}-sale`, amount: 45 })
        .expect(201)
    ).body.receipt;
    expect(rc).toMatchObject({ pointsTakenBack: 45, pointsGivenBack: 50, balanceAfter: 995 });
    expect(before.availablePointsBalance + rc.pointsGivenBack - rc.pointsTakenBack).toBe(rc.balanceAfter);
    expect(rc.lines.join('\n')).toMatch(/Given back +\+50 Stars/);
  });
});

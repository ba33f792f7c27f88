import { SALE_OPERATION, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';

/**
 * The receipt block and the round trips a sale waits for. The
 * published payment and refund answers carry no balance, so the receipt's
 * balance and tier are read after the write: one more round trip, its reads
 * side by side. `?receipt=none` answers right after the write.
 */
// Wide enough that a loaded 2-core machine cannot blur one round trip into two.
const LATENCY = 1000;
const COUNTED = [SALE_OPERATION, 'refund', 'balance', 'tierProgress', 'orderTransactions'];

async function slowAndCounted(s: Stack): Promise<void> {
  const rules = [{ operation: '*', latencyMs: LATENCY }, ...COUNTED.map((operation) => ({ operation, latencyMs: 0 }))];
  await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
}

async function callsSeen(s: Stack): Promise<Record<string, number>> {
  const res = await s.sandboxAdmin.get('/_sandbox/faults').set(SANDBOX_KEYS).expect(200);
  return Object.fromEntries(
    (res.body.rules as { operation: string; applied: number }[]).filter((r) => r.operation !== '*').map((r) => [r.operation, r.applied]),
  );
}

const none = { [SALE_OPERATION]: 0, refund: 0, balance: 0, tierProgress: 0, orderTransactions: 0 };

describe(`receipt round trips (sandbox ${LATENCY} ms away)`, () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await s.sandboxAdmin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules: [] }).expect(200);
  });

  const timed = async <T>(f: () => Promise<T>) => {
    const t0 = Date.now();
    const r = await f();
    return { r, ms: Date.now() - t0 };
  };

  it('?receipt=none: the payment answers after the payment alone, with its own figures and receipt null', async () => {
    await s.seed('rc-1', 100);
    await slowAndCounted(s);
    const { r, ms } = await timed(() =>
      s.pos('cashier').post('/payments?receipt=none', { customerId: 'rc-1', paymentId: 'rc-pay-1', totalPaid: 50 }).expect(201),
    );
    expect(r.body).toMatchObject({ status: 'recorded', pointsEarned: 50, receipt: null });
    expect(await callsSeen(s)).toEqual({ ...none, [SALE_OPERATION]: 1 });
    expect(ms).toBeGreaterThanOrEqual(LATENCY);
    expect(ms).toBeLessThan(2 * LATENCY);
  });

  it('default (full): the payment, then balance and tier side by side: two round trips, the balance after the sale', async () => {
    await s.seed('rc-2', 100);
    await slowAndCounted(s);
    const { r, ms } = await timed(() => s.pos('cashier').post('/payments', { customerId: 'rc-2', paymentId: 'rc-pay-2', totalPaid: 50 }).expect(201));
    expect(r.body.receipt).toMatchObject({ pointsEarned: 50, balanceAfter: 150, tier: expect.objectContaining({ current: expect.any(String) }) });
    expect(await callsSeen(s)).toEqual({ ...none, [SALE_OPERATION]: 1, balance: 1, tierProgress: 1 });
    expect(ms).toBeGreaterThanOrEqual(2 * LATENCY);
    expect(ms).toBeLessThan(3 * LATENCY);
  });

  it("a refund's receipt reads the points given back and the balance side by side: two round trips, not three", async () => {
    await s.seed('rc-3', 100);
    await s.pos('cashier').post('/payments?receipt=none', { customerId: 'rc-3', paymentId: 'rc-pay-3', totalPaid: 80 }).expect(201);
    await slowAndCounted(s);
    const { r, ms } = await timed(() =>
      s.pos('manager').post('/refunds', { customerId: 'rc-3', refundId: 'rc-ref-3', paymentId: 'rc-pay-3', amount: 40 }).expect(201),
    );
    expect(r.body.receipt).toMatchObject({ pointsTakenBack: 40, balanceAfter: 140 });
    expect(await callsSeen(s)).toEqual({ ...none, refund: 1, orderTransactions: 1, balance: 1, tierProgress: 1 });
    expect(ms).toBeGreaterThanOrEqual(2 * LATENCY);
    expect(ms).toBeLessThan(3 * LATENCY);
  });

  it('?receipt=none on a sale void: one round trip, receipt null; a bad value is a 400 naming the parameter', async () => {
    await s.seed('rc-4', 0);
    await s.pos('cashier').post('/payments?receipt=none', { customerId: 'rc-4', paymentId: 'rc-pay-4', totalPaid: 30 }).expect(201);
    await slowAndCounted(s);
    const { r, ms } = await timed(() => s.pos('manager').post('/payments/rc-pay-4/void?receipt=none', { customerId: 'rc-4' }).expect(200));
    expect(r.body).toMatchObject({ status: 'refunded', receipt: null });
    expect(await callsSeen(s)).toEqual({ ...none, refund: 1 });
    expect(ms).toBeLessThan(2 * LATENCY);
    const bad = await s.pos('manager').post('/refunds?receipt=later', { customerId: 'rc-4', refundId: 'rc-ref-4', paymentId: 'rc-pay-4' }).expect(400);
    expect(JSON.stringify(bad.body)).toContain('receipt');
  });
});

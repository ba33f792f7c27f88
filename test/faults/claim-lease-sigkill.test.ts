import Redis from 'ioredis';
import { BffProcess, eventually, ProcessStack, startProcessStack } from './process-stack';

/**
 * A BFF killed (SIGKILL) after it sent a payment with a redemption and before
 * it recorded it; the till never sends the sale again. A new process settles
 * both claims once their lease is over, long before the hold would be due:
 * the redemption `redeemed`, the sale id `recorded`, an audit entry naming the
 * terminal, cashier and shift that took them, and the day's reconciliation
 * lists the sale with the loyalty service's figures, `unknown_then_settled`.
 */
describe('claims a crash left behind are settled once their lease is over', () => {
  let stack: ProcessStack;
  let redis: Redis;
  const LEASE = { CLAIM_LEASE_SECONDS: '2' };
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
    redis = new Redis(process.env.TEST_REDIS_URL!);
  }, 30_000);
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
  });

  const saleEntry = async (paymentId: string) => {
    const raw = await redis.get(`${stack.redisPrefix}sale:payment:${paymentId}`);
    return raw ? (JSON.parse(raw) as { state?: string; lease?: Record<string, unknown> }) : null;
  };

  it('settles the sale and its redemption from the upstream, audits them as the till that took them, and reconciles the sale', async () => {
    await stack.seed('fern', 1000);
    const first: BffProcess = await stack.spawnBff(LEASE);
    const till = (b: BffProcess) => (p: 'get' | 'post', path: string, body?: object) =>
      (p === 'get' ? b.pos(stack.tokens.cashier).get(path) : b.pos(stack.tokens.cashier).post(path, body)).set('X-Cashier-Id', 'anna-07').set('X-Shift-Id', 'shift-42');
    const held = await till(first)('post', '/redemptions', { customerId: 'fern', hash: await stack.hash('fern'), points: 150 }).expect(201);
    const expiresAt = Date.parse(held.body.expiresAt);
    expect(expiresAt).toBeGreaterThan(Date.now() + 5 * 60_000);

    // The sandbox holds the payment back while the process that sent it is killed.
    await stack.faults([{ operation: 'payment', latencyMs: 3000 }]);
    const sale = { customerId: 'fern', paymentId: 'sale-fern-1', totalPaid: 40, redemptionId: held.body.id };
    const inFlight = till(first)('post', '/payments', sale).then(
      (r) => r.status,
      () => 'connection lost',
    );
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 10_000, 'payment reached the sandbox');
    // The claims carry their lease: who took them and until when.
    const claimed = await saleEntry('sale-fern-1');
    expect(claimed).toMatchObject({ state: 'recording', lease: { terminalId: stack.terminalIds.cashier, cashierId: 'anna-07', shiftId: 'shift-42' } });
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await inFlight).toBe('connection lost');
    await stack.faults([]);
    await eventually(async () => (await stack.activity('fern')).some((a) => a.type === 'Payment Processed'), 10_000, 'the payment to land upstream');

    // A new process: nobody retries the sale.
    const second = await stack.spawnBff(LEASE);
    const settled = await eventually(
      async () => {
        const r = await till(second)('get', `/redemptions/${held.body.id}`).expect(200);
        const e = await saleEntry('sale-fern-1');
        return r.body.state !== 'paying' && e?.state !== 'recording' ? { redemption: r.body, sale: e } : undefined;
      },
      20_000,
      'both claims to be settled',
    );
    // Settled from the lease, not at the hold's end.
    expect(Date.now()).toBeLessThan(expiresAt);
    expect(settled.redemption).toMatchObject({ state: 'redeemed', paymentId: 'sale-fern-1' });
    expect(settled.sale).toMatchObject({ state: 'recorded' });
    expect(settled.sale).not.toHaveProperty('lease');

    const manager = second.pos(stack.tokens.manager);
    const entries = await eventually(
      async () => {
        const got = (await manager.get('/audit?customerId=fern&action=payment').expect(200)).body.entries as Record<string, unknown>[];
        return got.length >= 2 ? got : undefined;
      },
      10_000,
      'the settlements to be audited',
    );
    for (const repair of [`redemption:${held.body.id}`, 'sale:payment:sale-fern-1'])
      expect(entries).toContainEqual(
        expect.objectContaining({
          action: 'payment',
          outcome: 'settled',
          afterCrash: true,
          repair,
          paymentId: 'sale-fern-1',
          terminalId: stack.terminalIds.cashier,
          cashierId: 'anna-07',
          shiftId: 'shift-42',
        }),
      );

    const day = new Date().toISOString().slice(0, 10);
    const report = (await manager.get(`/reconciliation?date=${day}`).expect(200)).body;
    const row = report.rows.find((r: { kind: string; id: string }) => r.kind === 'sale' && r.id === 'sale-fern-1');
    expect(row).toMatchObject({ status: 'matched', flags: ['unknown_then_settled'], upstream: { paid: 40, redeemed: 150 } });
    // The hold is this store's sale's, and the day's totals count the sale on the loyalty service's side.
    const hold = report.rows.find((r: { id: string }) => r.id === held.body.id);
    expect(hold).toMatchObject({ status: 'used', note: expect.stringContaining('used by sale sale-fern-1') });
    expect(report.totals.upstream).toMatchObject({ paid: 40, redeemed: 150 });
  }, 90_000);
});

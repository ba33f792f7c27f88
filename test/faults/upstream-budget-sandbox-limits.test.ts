import { startStack, Stack } from '../support/e2e';
import { LIMITS_OUT_OF_REACH } from '../support/sandbox-limits';

/**
 * The BFF fleet against a sandbox that enforces its limits itself (per
 * account and bucket, 429 with Retry-After past them). Customer reads get a
 * small quota on the sandbox; every other bucket stays out of reach.
 */
const sandboxQuota = (quota: number) => ({ rateLimits: { ...LIMITS_OUT_OF_REACH, buckets: { customersRead: { rate: 1000, quota } } } });

describe('the same figures on both sides: the BFF stays inside them, the sandbox never has to refuse', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2, account: sandboxQuota(20), env: { UPSTREAM_QUOTA_CUSTOMERS_READ: '20' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a burst of 40 reads over two instances: 18 go (20 less the second legs reserve), all answered; the rest are 503 upstream_busy from the BFF', async () => {
    await s.seed('sl-ana', 0);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => s.pos('kiosk', i % 2).get('/customers/sl-ana/hash')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(18);
    expect(answers.filter((a) => a.status === 503 && a.body.code === 'upstream_busy')).toHaveLength(22);
    expect(s.sentUpstream().filter((e) => e.path.endsWith('/customers/sl-ana/hash'))).toHaveLength(18);
    // No call was refused upstream: the sandbox never answered 429.
    expect(s.logs.filter((l) => l.includes('"status":429'))).toEqual([]);
  });
});

describe('the BFF set above the sandbox: it learns from the 429 and pauses that bucket for the whole fleet', () => {
  let s: Stack;
  beforeAll(async () => {
    // The BFF's own figures for customer reads are out of reach (the test harness default); the sandbox allows 5 per 30 s.
    s = await startStack({ store: 'redis', instances: 2, account: sandboxQuota(5) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("after the sandbox's 429 neither instance sends a customer read until its Retry-After; other buckets go on", async () => {
    await s.seed('sl-bob', 0);
    const hashes = () => s.sentUpstream().filter((e) => e.path.endsWith('/customers/sl-bob/hash')).length;
    for (let i = 0; i < 5; i++) await s.pos('kiosk', 0).get('/customers/sl-bob/hash').expect(200);
    // The sixth reaches the sandbox and is refused there; the client's retry asks the budget, which is paused.
    const refused = await s.pos('kiosk', 0).get('/customers/sl-bob/hash');
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('upstream_busy');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(25);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(hashes()).toBe(6);
    expect(s.logs.filter((l) => l.includes('"status":429'))).not.toEqual([]);
    // The other instance does not even ask the sandbox, and hears how long the pause has left.
    const other = await s.pos('kiosk', 1).get('/customers/sl-bob/hash');
    expect(other.status).toBe(503);
    expect(Number(other.headers['retry-after'])).toBeGreaterThan(25);
    expect(hashes()).toBe(6);
    // Another bucket is not paused: an earn preview (orders) goes.
    await s
      .pos('cashier', 1)
      .post('/earn-preview', { customerId: 'sl-bob', totalPaid: 10, lines: [{ serviceId: 'sku-1', amount: 10 }] })
      .expect(200);
  });
});

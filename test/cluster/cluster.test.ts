import { randomUUID } from 'node:crypto';
import Redis, { Cluster } from 'ioredis';
import request from 'supertest';
import { addTerminal } from '../../src/pos/terminals';
import { expiredCount, PAST_HOLD_MS, waitFor } from '../e2e/helpers';
import { activity, eventually, faultsApplied, inBatches, paymentsOf, pending, setFaults } from '../pos/outbox/stack-helpers';
import { KEY_REQUIRED, startStack, Stack } from '../support/e2e';
import { RedisCluster, startRedisCluster } from '../support/redis-topologies';

/**
 * Three BFF instances on a three-master Redis Cluster (REDIS_CLUSTER_NODES),
 * driven by many terminals at once: checkouts, idempotent replays, hold
 * sweeps and the outbox must behave as they do on one Redis node.
 */
describe('three BFF instances on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let s: Stack;
  const tills: string[] = [];
  const managers: string[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    s = await startStack({
      store: 'memory',
      instances: 3,
      env: {
        REDIS_CLUSTER_NODES: cluster.env,
        LOYALTY_RETRIES: '0',
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_BASE_MS: '100',
        OUTBOX_BACKOFF_MAX_MS: '300',
        BREAKER_FAILURE_THRESHOLD: '10000',
        // Waiting for the new terminals below fails authentication a few times on purpose.
        AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
      },
    });
    for (let i = 0; i < 12; i++) tills.push(addTerminal(s.terminalsFile, { storeId: 'store-001', role: 'cashier' }).token);
    for (let i = 0; i < 3; i++) managers.push(addTerminal(s.terminalsFile, { storeId: 'store-001', role: 'manager' }).token);
    // Every instance re-reads the terminals file within its check interval.
    await waitFor(
      'the new terminals to be known to every instance',
      async () => {
        const codes = await Promise.all(
          s.bffs.map((b) =>
            request(b.url)
              .get('/pos/v1/outbox/obx_none')
              .set('Authorization', `Bearer ${tills[11]}`)
              .then((r) => r.status),
          ),
        );
        return codes.every((c) => c !== 401);
      },
      10_000,
    );
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    await cluster?.close();
  });

  const at = (i: number, token: string) => {
    const http = request(s.bffs[i % 3].url);
    return {
      get: (p: string) => http.get(`/pos/v1${p}`).set('Authorization', `Bearer ${token}`),
      post: (p: string, body: object, key?: string) => {
        const t = http.post(`/pos/v1${p}`).set('Authorization', `Bearer ${token}`);
        const k = key ?? (KEY_REQUIRED.test(p) ? randomUUID() : undefined);
        return (k ? t.set('Idempotency-Key', k) : t).send(body);
      },
    };
  };

  it('really is a cluster: each BFF connection is a Cluster client, and the keys spread over every master', async () => {
    for (const b of s.bffs) expect(b.redis).toBeInstanceOf(Cluster);
    // An idempotent write from every till: their records are tagged per terminal.
    for (let i = 0; i < tills.length; i++) await s.seed(`spread-${i}`, 0);
    await Promise.all(tills.map((t, i) => at(i, t).post('/events', { customerId: `spread-${i}`, events: { visit: {} } }, `spread-${i}`)));
    const sizes: number[] = await Promise.all(
      cluster.nodes.map(async (n) => {
        const r = new Redis(n.port, n.host);
        try {
          return await r.dbsize();
        } finally {
          r.disconnect();
        }
      }),
    );
    expect(sizes.filter((n) => n > 0)).toHaveLength(3);
  });

  it('concurrent checkouts from 12 terminals over 3 instances: each payment upstream once, each redemption claimed once, replays on other instances', async () => {
    const customers = tills.map((_, i) => `cl-buyer-${i}`);
    for (const c of customers) await s.seed(c, 500);
    const checkouts = await Promise.all(
      tills.map(async (token, i) => {
        const customerId = customers[i];
        const hold = await at(i, token).post('/redemptions', { customerId, hash: await s.hash(customerId), points: 100 }, `hold-${i}`);
        expect(hold.status).toBe(201);
        const sales = [0, 1].map((n) => ({
          key: `pay-${i}-${n}`,
          body: { customerId, paymentId: `cl-sale-${i}-${n}`, totalPaid: 20, redemptionId: hold.body.id },
        }));
        // The same redemption paid twice at once, under two sale ids, through two instances: one claim wins.
        const answers = await Promise.all(sales.map((x, n) => at(i + 1 + n, token).post('/payments', x.body, x.key)));
        const won = answers.findIndex((a) => a.status === 201);
        const replay = won < 0 ? undefined : await at(i + 2 - won, token).post('/payments', sales[won].body, sales[won].key);
        return { hold, answers, won, replay };
      }),
    );
    for (const [i, c] of checkouts.entries()) {
      expect(c.answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(['redemption_in_use', 'redemption_not_held']).toContain(c.answers[1 - c.won].body.code);
      expect(c.replay!.status).toBe(201);
      expect(c.replay!.headers['idempotent-replayed']).toBe('true');
      expect(c.replay!.body).toEqual(c.answers[c.won].body);
      expect(await paymentsOf(s, customers[i])).toEqual([`cl-sale-${i}-${c.won}`]);
      expect((await at(i, tills[i]).get(`/redemptions/${c.hold.body.id}`)).body.state).toBe('redeemed');
      // 100 redeemed once, 20 earned once (the demo account earns a point per unit paid).
      expect((await s.balance(customers[i])).availablePointsBalance).toBe(500 - 100 + 20);
    }
  });

  it('hold sweeps: 12 holds from 3 instances each expire exactly once', async () => {
    const ids: string[] = [];
    for (const [i, token] of tills.entries()) {
      const customerId = `cl-sweep-${i}`;
      await s.seed(customerId, 100);
      const res = await at(i, token).post('/redemptions', { customerId, hash: await s.hash(customerId), points: 50 });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const before = expiredCount(s);
    await s.advance(PAST_HOLD_MS);
    await waitFor('every hold to expire', async () => expiredCount(s) - before >= ids.length, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(expiredCount(s) - before).toBe(ids.length);
    const logged = s.logs
      .filter((l) => l.includes('"msg":"hold expired"'))
      .map((l) => JSON.parse(l).redemptionId as string)
      .filter((id) => ids.includes(id));
    expect(logged.sort()).toEqual([...ids].sort());
    for (const [i, id] of ids.entries()) expect((await at(i + 1, tills[i]).get(`/redemptions/${id}`)).body.state).toBe('expired');
  });

  it('the outbox: sales and refunds queued on all 3 instances during an outage are delivered once each, in order per customer', async () => {
    const customers = Array.from({ length: 6 }, (_, i) => `cl-obx-${i}`);
    for (const c of customers) await s.seed(c, 0);
    await setFaults(s, [
      { operation: 'payment', status: 503 },
      { operation: 'refund', status: 503 },
    ]);
    // Per customer: a sale, its refund, a second sale, each through a different instance.
    const answers = await inBatches(customers, 6, async (customerId, i) => {
      const out = [];
      out.push(await at(i, tills[i]).post('/payments', { customerId, paymentId: `${customerId}-s1`, totalPaid: 30 }));
      out.push(await at(i + 1, managers[i % 3]).post('/refunds', { customerId, refundId: `${customerId}-r1`, paymentId: `${customerId}-s1`, amount: 10 }));
      out.push(await at(i + 2, tills[i]).post('/payments', { customerId, paymentId: `${customerId}-s2`, totalPaid: 40 }));
      return out;
    });
    for (const list of answers)
      for (const a of list) expect(a.status === 202 ? { queued: a.body.queued } : { status: a.status, body: a.body }).toEqual({ queued: true });
    // Recover the payments first: the refunds still fail, so each customer's refund waits for its retry
    // while the next sale is due; the head-of-queue rule must keep that sale behind it.
    await setFaults(s, [{ operation: 'refund', status: 503, times: 12 }]);
    await eventually('the outbox to drain', async () => (await pending(s)) === 0, 30_000);
    // The refunds really did fail and wait for their retries.
    expect((await faultsApplied(s))[0]).toBeGreaterThanOrEqual(6);
    await setFaults(s, []);
    for (const customerId of customers) {
      const done = (await activity(s, customerId)).filter((a) => a.type === 'Payment Processed' || a.type === 'Refund Processed');
      expect(done.map((a) => String(a.properties.paymentId ?? a.properties.refundTransactionId))).toEqual([
        `${customerId}-s1`,
        `${customerId}-r1`,
        `${customerId}-s2`,
      ]);
    }
    // Which instances delivered depends on timing (on a loaded machine one may take them all); the
    // deterministic cross-consumer order check is test/pos/outbox/store-suite.ts "order across instances".
    const workers = new Set(s.logs.filter((l) => l.includes('"msg":"outbox entry delivered"')).map((l) => JSON.parse(l).instance));
    console.log(`cluster outbox: delivered by ${workers.size} of 3 instances`);
  });
});

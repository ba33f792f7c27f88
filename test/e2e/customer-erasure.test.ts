import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * A customer's erasure (docs/operator/privacy.md): after the cashier route
 * deletes a customer with a history (sign-up, OTP, redemptions, a coupon sale,
 * a refund, kept answers, audit entries), nothing this BFF keeps names them:
 * every Redis key and value under the prefix is read (or, without Redis, every
 * store), and the audit trail is read through its route. Another customer's
 * history is untouched and the day's reconciliation still balances.
 */
const GONE = 'erin-7731';
const KEPT = 'kofi-7732';
const PROFILE = { displayName: 'Erin Quillfeather', firstName: 'Erin', lastName: 'Quillfeather', email: 'erin.quill@example.com', mobile: '+201009998877' };
/** What must not appear anywhere once she is erased: her id, name, email and phone. */
const TRACES = [GONE, 'Quillfeather', 'erin.quill@example.com', '+201009998877', '201009998877'];
const LINES = [{ serviceId: 'sku-mug', name: 'Mug', amount: 50 }];

describe.each(['redis', 'memory'] as const)('customer erasure (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { otpEnabled: true }, env: { ERASURE_SECOND_PASS_SECONDS: '1' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  /** A redemption held with the customer's OTP; leaves their ticket settled. */
  async function held(customerId: string, points: number): Promise<string> {
    const start = await s
      .pos('cashier')
      .post('/redemptions', { customerId, hash: await s.hash(customerId), points })
      .expect(201);
    await s
      .pos('cashier')
      .post(`/redemptions/${start.body.id}/otp`, { otp: await s.otp(customerId) })
      .expect(200);
    return start.body.id as string;
  }

  /** A history: signed up with a key, a redemption paid, a coupon sale, a refund. Its ids start with `tag` (never the customer id). */
  async function history(customerId: string, tag: string): Promise<{ hold: string }> {
    await s.seed(customerId, 1000);
    await s.pos('cashier').put(`/customers/${customerId}`, PROFILE).set('Idempotency-Key', randomUUID()).expect(200);
    const hold = await held(customerId, 100);
    await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `${tag}-sale-1`, totalPaid: 50, redemptionId: hold, lines: LINES })
      .expect(201);
    const lock = await s
      .pos('cashier')
      .post('/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 50 })
      .expect(201);
    await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `${tag}-sale-2`, totalPaid: 40, totalAmount: 50, couponLockId: lock.body.id, lines: LINES })
      .expect(201);
    await s
      .pos('manager')
      .post('/refunds', { customerId, refundId: `${tag}-refund-1`, paymentId: `${tag}-sale-1`, amount: 20 })
      .expect(201);
    return { hold };
  }

  /** Every key under the stack's prefix with its value, whatever its type, as text. */
  async function everythingInRedis(): Promise<string[]> {
    const r = new Redis(process.env.TEST_REDIS_URL as string);
    try {
      const out: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await r.scan(cursor, 'MATCH', `${s.redisPrefix}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) {
          const type = await r.type(key);
          const value =
            type === 'string'
              ? await r.get(key)
              : type === 'hash'
                ? await r.hgetall(key)
                : type === 'set'
                  ? await r.smembers(key)
                  : type === 'zset'
                    ? await r.zrange(key, 0, -1, 'WITHSCORES')
                    : type === 'list'
                      ? await r.lrange(key, 0, -1)
                      : type === 'stream'
                        ? await r.xrange(key, '-', '+')
                        : `unread type ${type}`;
          out.push(`${key} ${JSON.stringify(value)}`);
        }
      } while (cursor !== '0');
      return out;
    } finally {
      r.disconnect();
    }
  }

  /** Every record of every store, as text (the memory stores cannot be scanned from outside). */
  async function everythingInStores(): Promise<string[]> {
    const d = s.bff.deps;
    const out: string[] = [];
    const keep = async (each: (f: (xs: unknown[]) => Promise<void>) => Promise<void>) => each(async (xs) => void out.push(...xs.map((x) => JSON.stringify(x))));
    await keep((f) => d.redemptions.list(f));
    await keep((f) => d.couponLocks.list(f));
    await keep((f) => d.sales.list(f));
    await keep((f) => d.outbox.list(f));
    // Read through the forgetting pass, answering "keep" for each.
    const read = (a: { body: string; location?: string }) => (out.push(JSON.stringify(a)), false);
    await d.idempotency.forgetAnswers(read);
    await d.tillAnswers.forgetAnswers(read);
    if (await d.otpTickets.current(GONE, d.clock())) out.push(`otp ticket of ${GONE}`);
    if (await d.redemptionCap?.usedOn(GONE, d.clock())) out.push(`redemption cap count of ${GONE}`);
    return out;
  }

  const kept = () => (store === 'redis' ? everythingInRedis() : everythingInStores());
  const tracesIn = (texts: string[]) => texts.filter((t) => TRACES.some((x) => t.includes(x)));
  const audit = async (query = '') => (await s.pos('manager').get(`/audit${query}`).expect(200)).body as { entries: Record<string, unknown>[] };
  const reconciliation = async () => {
    const body = (await s.pos('manager').get('/reconciliation').expect(200)).body;
    return { totals: body.totals, anomalies: body.anomalies, rows: body.rows.length };
  };

  it('erases what names the customer, keeps the money under a pseudonym, and leaves another customer alone', async () => {
    await history(KEPT, 'k');
    const { hold } = await history(GONE, 'g');

    // An open hold: refused, naming it, and nothing is deleted or erased.
    const open = await held(GONE, 50);
    const refused = await s.pos('manager').delete(`/customers/${GONE}`);
    expect([refused.status, refused.body.code, refused.body.open]).toEqual([409, 'customer_has_open_work', [`redemption ${open} (held)`]]);
    // The POST form (tills that cannot send DELETE) goes through the same refusal.
    const refusedPost = await s.pos('manager').post(`/customers/${GONE}/delete`);
    expect([refusedPost.status, refusedPost.body.code, refusedPost.body.open]).toEqual([409, 'customer_has_open_work', [`redemption ${open} (held)`]]);
    expect((await s.balance(GONE)).availablePointsBalance).toBeGreaterThan(0);
    await s.pos('cashier').post(`/redemptions/${open}/void`).expect(200);
    // A code left out: the OTP ticket stands until the erasure.
    await s
      .pos('cashier')
      .post('/redemptions', { customerId: GONE, hash: await s.hash(GONE), points: 10 })
      .expect(201);

    expect(tracesIn(await kept()).length).toBeGreaterThan(5);
    const before = await reconciliation();
    expect(before.anomalies).toEqual([]);
    // A store's trail is one stream holding both customers' entries: compared by its route, the rest key by key.
    const ownOf = async () => (await kept()).filter((t) => t.includes(KEPT) && !/audit:/.test(t));
    const keptBefore = await ownOf();
    const keptTrail = (await audit(`?customerId=${KEPT}`)).entries;
    expect(keptBefore.length).toBeGreaterThan(3);

    const deleted = await s.pos('manager').delete(`/customers/${GONE}`).set('Idempotency-Key', randomUUID()).expect(200);
    expect(deleted.body).toMatchObject({ customerId: GONE, deleted: true });
    expect(deleted.body.erased).toMatchObject({ otpTickets: 1 });
    expect(deleted.body.erased.redemptions).toBeGreaterThanOrEqual(3);
    expect(deleted.body.erased.sales).toBe(3);
    expect(deleted.body.erased.couponLocks).toBe(1);
    expect(deleted.body.erased.keptAnswers).toBeGreaterThan(3);
    expect(deleted.body.erased.auditEntries).toBeGreaterThan(5);

    // The second pass takes the deletion's own kept answer (it names the id) and anything written after the first.
    await waitFor('the second erasure pass', () => (s.bff.deps.erasureFollowUp?.passes ?? 0) >= 1, 30_000);
    await s.bff.deps.audit?.flush();
    expect(tracesIn(await kept())).toEqual([]);

    // The trail: nothing under her id, her entries linked by one pseudonym, the other customer's as they were.
    expect((await audit(`?customerId=${GONE}`)).entries).toEqual([]);
    const all = await audit();
    expect(tracesIn([JSON.stringify(all)])).toEqual([]);
    const pseudonym = s.bff.deps.customerPseudonym(GONE);
    expect(pseudonym).toMatch(/^erased-[0-9a-f]{24}$/);
    const hers = await audit(`?customerId=${pseudonym}`);
    expect(hers.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(['customer_registration', 'payment', 'refund', 'coupon_lock', 'customer_deletion']),
    );
    expect(hers.entries.some((e) => e.redemptionId === hold)).toBe(true);
    expect((await audit(`?customerId=${KEPT}`)).entries).toEqual(keptTrail);
    expect(keptTrail.length).toBeGreaterThanOrEqual(6);
    expect(await ownOf()).toEqual(keptBefore);

    // Metrics never carry a customer id (neither hers nor the other's).
    const exposition = await s.bff.metrics.registry.metrics();
    expect(exposition.length).toBeGreaterThan(1000);
    expect([GONE, KEPT].filter((id) => exposition.includes(id))).toEqual([]);

    // The money still reconciles: the same rows and totals, nothing flagged.
    expect(await reconciliation()).toEqual(before);
    // Her sale is still there, under the pseudonym, for its store.
    expect((await s.bff.deps.sales.get('payment', 'g-sale-1'))?.customerId).toBe(pseudonym);
  });

  it('erases again when the loyalty service says the customer is already gone, and still answers 404', async () => {
    await history('gone-twice', 't');
    ok(await s.sandboxAdmin.delete('/api/v4.0/integrations/customers/gone-twice').set({ apikey: 'e2e_api_key', secretkey: 'e2e_secret_key_do_not_leak_7f3a' }));
    const res = await s.pos('manager').delete('/customers/gone-twice');
    expect([res.status, res.body.code]).toEqual([404, 'customer_not_found']);
    expect((await audit('?customerId=gone-twice')).entries).toEqual([]);
    expect((await kept()).filter((t) => t.includes('gone-twice'))).toEqual([]);
  });
});

function ok(res: { status: number; text: string }): void {
  if (res.status >= 300) throw new Error(`${res.status} ${res.text}`);
}

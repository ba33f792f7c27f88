import { SALE_OPERATION, SANDBOX_KEYS, Stack, startStack } from '../support/e2e';
import { eventually, setFaults } from '../pos/outbox/stack-helpers';
import { heldRedemption, waitFor } from './helpers';

/**
 * The money path's rules, each as a shop would meet it: ids belong to a store
 * only once the upstream accepted them, a duplicate answer is checked against
 * the upstream's record before anything is called done, and a write that may
 * have landed is never reported as "nothing was done".
 */
const orderDate = '2026-01-15T18:00:00.000Z';

/** A sale recorded straight in the loyalty service (another system of the retailer's), unknown to this BFF. */
async function saleElsewhere(s: Stack, customerId: string, paymentId: string, totalPaid: number) {
  await s.sandboxAdmin
    .post('/api/v4.0/integrations/payments')
    .set(SANDBOX_KEYS)
    .send({ customerId, paymentId, paymentDate: new Date().toISOString(), totalPaid })
    .expect(200);
}

describe.each(['memory', 'redis'] as const)('the money path (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store,
      env: { LOYALTY_RETRIES: '0', BREAKER_FAILURE_THRESHOLD: '10000', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0', OUTBOX_POLL_INTERVAL_MS: '50' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });
  const redemption = async (id: string) => (await s.pos('cashier').get(`/redemptions/${id}`).expect(200)).body;

  it('a sale id another store tried and was refused for stays free: the store that rings it up owns it', async () => {
    const P = `sq-${store}`;
    await s.seed(`sq-a-${store}`, 0);
    const squat = await s
      .pos('otherCashier')
      .post('/payments', { customerId: `sq-b-${store}`, paymentId: P, totalPaid: 10, redemptionId: 'rdm_doesnotexist' })
      .expect(404);
    expect(squat.body.code).toBe('redemption_not_found');
    await s
      .pos('cashier')
      .post('/payments', { customerId: `sq-a-${store}`, paymentId: P, totalPaid: 100 })
      .expect(201);
    expect((await s.pos('cashier').get(`/payments/${P}`).expect(200)).body).toMatchObject({ paymentId: P, customerId: `sq-a-${store}`, pointsEarned: 100 });
    await s.pos('otherCashier').get(`/payments/${P}`).expect(404);
    const refund = await s
      .pos('otherManager')
      .post('/refunds', { customerId: `sq-a-${store}`, refundId: `sq-r-${store}`, paymentId: P })
      .expect(404);
    expect(refund.body.code).toBe('sale_not_found');
    expect((await s.balance(`sq-a-${store}`)).availablePointsBalance).toBe(100);
    // A sale id another store's payment was refused for upstream is free too.
    const Q = `sq2-${store}`;
    await setFaults(s, [{ operation: SALE_OPERATION, status: 422, times: 1 }]);
    expect((await s.pos('otherCashier').post('/payments', { customerId: `sq-b-${store}`, paymentId: Q, totalPaid: 10 })).status).toBe(422);
    await setFaults(s, []);
    await s
      .pos('cashier')
      .post('/payments', { customerId: `sq-a-${store}`, paymentId: Q, totalPaid: 20 })
      .expect(201);
    await s.pos('cashier').get(`/payments/${Q}`).expect(200);
    await s.pos('otherCashier').get(`/payments/${Q}`).expect(404);
    // A refused refund leaves its id free too: the owning store can use it.
    await s
      .pos('manager')
      .post('/refunds', { customerId: `sq-a-${store}`, refundId: `sq-r-${store}`, paymentId: P, amount: 10 })
      .expect(201);
  });

  it('"duplicate" is not "done": a payment reusing another sale\'s id is refused, the redemption is free again, and its hold can be voided', async () => {
    const other = `dup-other-${store}`;
    await s.seed(other, 0);
    await saleElsewhere(s, other, `dup-sale-${store}`, 70);
    const customerId = `dup-${store}`;
    const r = await heldRedemption(s, customerId, 100, { seed: 500 });
    const sale = { customerId, paymentId: `dup-sale-${store}`, totalPaid: 20, redemptionId: r.id };
    for (let i = 0; i < 2; i++) {
      const res = await s.pos('cashier').post('/payments', sale).expect(409);
      expect(res.body.code).toBe('payment_id_taken');
      expect(await redemption(r.id)).toMatchObject({ state: 'held', paymentId: null });
    }
    expect((await s.balance(customerId)).heldPoints).toBe(100);
    await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200);
    expect(await s.balance(customerId)).toMatchObject({ availablePointsBalance: 500, heldPoints: 0 });
  });

  it('"duplicate" is not "done" for a coupon lock either: the lock is free again, nothing burned', async () => {
    const other = `cdup-other-${store}`;
    await s.seed(other, 0);
    await saleElsewhere(s, other, `cdup-sale-${store}`, 70);
    const customerId = `cdup-${store}`;
    await s.seed(customerId, 0);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    const res = await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `cdup-sale-${store}`, totalPaid: 40, totalAmount: 50, couponLockId: lock.id })
      .expect(409);
    expect(res.body.code).toBe('payment_id_taken');
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body).toMatchObject({ state: 'locked', paymentId: null });
    const paid = await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `cdup-sale2-${store}`, totalPaid: 40, totalAmount: 50, couponLockId: lock.id })
      .expect(201);
    expect(paid.body.couponLock).toMatchObject({ id: lock.id, state: 'used' });
  });

  it('a queued sale whose id the upstream has for another sale is a dead letter, not "delivered", and its id is freed', async () => {
    const other = `qdup-other-${store}`;
    await s.seed(other, 0);
    await saleElsewhere(s, other, `qdup-sale-${store}`, 70);
    const customerId = `qdup-${store}`;
    await s.seed(customerId, 0);
    await setFaults(s, [{ operation: SALE_OPERATION, status: 503, times: 1 }]);
    const queued = await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `qdup-sale-${store}`, totalPaid: 20 })
      .expect(202);
    const entry = await eventually('the delivery to end', async () => {
      const body = (await s.pos('cashier').get(`/outbox/${queued.body.outboxId}`).expect(200)).body;
      return body.state === 'dead' || body.state === 'delivered' ? body : undefined;
    });
    expect(entry).toMatchObject({ state: 'dead', lastError: { code: 'payment_id_taken' } });
    expect((await s.balance(customerId)).availablePointsBalance).toBe(0);
    await s.pos('cashier').get(`/payments/qdup-sale-${store}`).expect(404);
  });

  it('a batch-uploaded order belongs to the store that uploaded it: another store cannot void it, its own can', async () => {
    const customerId = `bo-${store}`;
    await s.seed(customerId, 0);
    const up = await s
      .pos('cashier')
      .post('/orders/batch', { orders: [{ customerId, orderId: `bo-1-${store}`, orderDate, totalPaid: 50 }] })
      .expect(202);
    await waitFor('the job to complete', async () => (await s.pos('cashier').get(`/orders/batch/${up.body.jobId}`).expect(200)).body.status === 'completed');
    expect((await s.balance(customerId)).availablePointsBalance).toBe(50);
    const theirs = await s.pos('otherManager').post(`/payments/bo-1-${store}/void`, { customerId }).expect(404);
    expect(theirs.body.code).toBe('sale_not_found');
    await s.pos('otherCashier').get(`/payments/bo-1-${store}`).expect(404);
    expect((await s.balance(customerId)).availablePointsBalance).toBe(50);
    await s.pos('cashier').get(`/payments/bo-1-${store}`).expect(200);
    await s.pos('manager').post(`/payments/bo-1-${store}/void`, { customerId }).expect(200);
    expect((await s.balance(customerId)).availablePointsBalance).toBe(0);
    // Another store uploading the same order id is refused before anything is sent.
    const clash = await s
      .pos('otherCashier')
      .post('/orders/batch', { orders: [{ customerId, orderId: `bo-1-${store}`, orderDate, totalPaid: 50 }] })
      .expect(409);
    expect(clash.body.code).toBe('payment_id_taken');
  });

  it("a refund id of the form void-<sale> is refused at the till, so no store can make another's sale impossible to void", async () => {
    const a = `vd-a-${store}`;
    const b = `vd-b-${store}`;
    await s.seed(a, 0);
    await s.seed(b, 0);
    await s
      .pos('cashier')
      .post('/payments', { customerId: a, paymentId: `vd-pa-${store}`, totalPaid: 60 })
      .expect(201);
    await s
      .pos('otherCashier')
      .post('/payments', { customerId: b, paymentId: `vd-pb-${store}`, totalPaid: 60 })
      .expect(201);
    const trick = await s
      .pos('otherManager')
      .post('/refunds', { customerId: b, refundId: `void-vd-pa-${store}`, paymentId: `vd-pb-${store}` })
      .expect(400);
    expect(trick.body.errors.map((e: { path: string }) => e.path)).toContain('refundId');
    const voided = await s.pos('manager').post(`/payments/vd-pa-${store}/void`, { customerId: a }).expect(200);
    expect(voided.body).toMatchObject({ status: 'refunded', refundId: `void-vd-pa-${store}` });
    expect((await s.balance(a)).availablePointsBalance).toBe(0);
    const again = await s.pos('manager').post(`/payments/vd-pa-${store}/void`, { customerId: a }).expect(409);
    expect(again.body.code).toBe('sale_already_voided');
  });

  it('a void whose release answered 5xx is not recorded as voided: it stays voiding, and the same void settles it', async () => {
    const customerId = `v5-${store}`;
    const r = await heldRedemption(s, customerId, 100, { seed: 300 });
    await setFaults(s, [{ operation: 'holdCancel', status: 500, times: 1 }]);
    const first = await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(503);
    expect(first.body.code).toBe('retry_same_request');
    expect((await redemption(r.id)).state).toBe('voiding');
    // A payment cannot take it meanwhile.
    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `v5-sale-${store}`, totalPaid: 5, redemptionId: r.id })
      .expect(409);
    expect(pay.body).toMatchObject({ code: 'redemption_not_held', state: 'voided' });
    await setFaults(s, []);
    expect((await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(200)).body.state).toBe('voided');
    expect(await s.balance(customerId)).toMatchObject({ availablePointsBalance: 300, heldPoints: 0 });
  });

  it('a release cannot take a coupon lock a payment holds (coupon_lock_in_use), and the payment burns it once', async () => {
    const customerId = `cl-${store}`;
    await s.seed(customerId, 0);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 700, times: 1 }]);
    const paying = s
      .pos('cashier')
      .post('/payments', { customerId, paymentId: `cl-sale-${store}`, totalPaid: 40, totalAmount: 50, couponLockId: lock.id })
      .then((r) => r);
    await eventually('the payment to claim the lock', async () => (await s.pos('cashier').get(`/coupon-locks/${lock.id}`)).body.state === 'paying');
    const release = await s.pos('cashier').post(`/coupon-locks/${lock.id}/release`).expect(409);
    expect(release.body).toMatchObject({ code: 'coupon_lock_in_use', state: 'paying' });
    expect((await paying).status).toBe(201);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('used');
  });
});

describe('a payment whose first attempt landed while the breaker opened (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      env: {
        LOYALTY_TIMEOUT_MS: '600',
        LOYALTY_RETRIES: '1',
        BREAKER_FAILURE_THRESHOLD: '1',
        BREAKER_HALF_OPEN_AFTER_MS: '300',
        MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0',
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers retry_same_request (never "nothing was done"), keeps the redemption paying, refuses a void, and settles it redeemed from the hold\'s record', async () => {
    const customerId = 'brk-1';
    const r = await heldRedemption(s, customerId, 200, { seed: 1000 });
    // Slower than the BFF waits: the first attempt times out (and opens the breaker), the sandbox records it after.
    await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 1000, times: 1 }]);
    const res = await s.pos('cashier').post('/payments', { customerId, paymentId: 'brk-sale-1', totalPaid: 30, redemptionId: r.id });
    expect([res.status, res.body.code]).toEqual([503, 'retry_same_request']);
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body).toMatchObject({ state: 'paying', paymentId: 'brk-sale-1' });
    const voided = await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(409);
    expect(voided.body).toMatchObject({ code: 'payment_in_progress', paymentId: 'brk-sale-1' });
    await setFaults(s, []);
    const settled = await eventually('the redemption to be settled from the upstream', async () => {
      const body = (await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body;
      return body.state === 'redeemed' ? body : undefined;
    });
    expect(settled.paymentId).toBe('brk-sale-1');
    expect(await s.balance(customerId)).toMatchObject({ availablePointsBalance: 1000 - 200 + 30, heldPoints: 0 });
    // The same sale again: recorded once, answered from the upstream's record.
    const again = await s.pos('cashier').post('/payments', { customerId, paymentId: 'brk-sale-1', totalPaid: 30, redemptionId: r.id }).expect(201);
    expect(again.body).toMatchObject({ status: 'already_recorded', redemption: { state: 'redeemed' } });
  });
});

describe('a coupon lock past its release point (memory store, no sweeper in the way)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { SWEEPER_INTERVAL_MS: '600000' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('cannot be claimed by a payment once its release time has come, though the upstream lock has not ended', async () => {
    await s.seed('late-1', 0);
    const lock = (
      await s
        .pos('cashier')
        .post('/coupon-locks', { customerId: 'late-1', codes: ['WELCOME10'], basketTotal: 50 })
        .expect(201)
    ).body;
    // 30 s (HOLD_SAFETY_MARGIN_SECONDS) before the upstream lock ends is the release time: go 15 s before its end.
    await s.advance(Date.parse(lock.expiresAt) - Date.now() + 30_000 - 15_000);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.id}`).expect(200)).body.state).toBe('locked');
    const res = await s
      .pos('cashier')
      .post('/payments', { customerId: 'late-1', paymentId: 'late-sale-1', totalPaid: 40, totalAmount: 50, couponLockId: lock.id })
      .expect(409);
    expect(res.body).toMatchObject({ code: 'coupon_lock_not_active', state: 'locked' });
  });
});

describe('a retried payment refused while its first attempt is still in flight (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      env: { LOYALTY_TIMEOUT_MS: '500', LOYALTY_RETRIES: '0', BREAKER_FAILURE_THRESHOLD: '10000', MAX_OPEN_REDEMPTIONS_PER_TERMINAL: '0' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('keeps the redemption paying (the first attempt may land), and settles it redeemed when it does', async () => {
    const customerId = 'inflight-1';
    const r = await heldRedemption(s, customerId, 100, { seed: 500 });
    // The first attempt outlasts the BFF's wait and lands later; the retry is refused outright.
    await setFaults(s, [{ operation: SALE_OPERATION, latencyMs: 1500, times: 1 }]);
    const sale = { customerId, paymentId: 'inflight-sale-1', totalPaid: 20, redemptionId: r.id };
    expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
    await setFaults(s, [{ operation: SALE_OPERATION, status: 422, times: 1 }]);
    // The retry's refusal says nothing of the first attempt: never "nothing was done".
    expect((await s.pos('cashier').post('/payments', sale)).body.code).toBe('retry_same_request');
    await setFaults(s, []);
    expect((await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body.state).toBe('paying');
    await s.pos('cashier').post(`/redemptions/${r.id}/void`).expect(409);
    const settled = await eventually('the first attempt to land and be settled', async () => {
      const body = (await s.pos('cashier').get(`/redemptions/${r.id}`).expect(200)).body;
      return body.state === 'redeemed' ? body : undefined;
    });
    expect(settled.paymentId).toBe('inflight-sale-1');
    expect(await s.balance(customerId)).toMatchObject({ availablePointsBalance: 500 - 100 + 20, heldPoints: 0 });
  });
});

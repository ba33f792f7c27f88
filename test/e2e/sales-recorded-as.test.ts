import { isSaleSend, SANDBOX_KEYS, startStack, Stack } from '../support/e2e';
import { setFaults } from '../pos/outbox/stack-helpers';
import { heldRedemption, waitFor } from './helpers';

/**
 * SALES_RECORDED_AS: a sale goes upstream as a payment (`POST /payments`) or
 * as a tracked order (`POST /orders`); the till sees the same answer either
 * way, and a sale keeps the way it was first sent across a change of mode:
 * its retry, its queued delivery, its refund, void and read-back.
 */
const API = '/api/v4.0/integrations';
const LINES = [
  { serviceId: 'sku-tv', name: 'TV stand', amount: 200, quantity: 2, category: ['furniture'] },
  { serviceId: 'sku-cable', amount: 50, tags: ['double-points'], sku: 'CBL-1' },
];

const saleSends = (s: Stack, from: number) =>
  s
    .sentUpstream()
    .slice(from)
    .filter(isSaleSend)
    .map((e) => e.path.replace(API, ''));

describe('a sale recorded as a payment or as a tracked order (redis store)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { SALES_RECORDED_AS: 'payment', LOYALTY_TIMEOUT_MS: '2000', LOYALTY_RETRIES: '0' } });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(() => setFaults(s, []));

  const sale = (customerId: string, paymentId: string, extra: object = {}) =>
    s.pos('cashier').post('/payments', { customerId, paymentId, totalPaid: 250, lines: LINES, ...extra });

  it('the same basket earns the same points and answers the same way in both modes, sent as POST /payments or POST /orders', async () => {
    await s.restart(0, { SALES_RECORDED_AS: 'payment' });
    await s.seed('ra-1', 100);
    let from = s.sentUpstream().length;
    const asPayment = await sale('ra-1', 'ra-pay-1').expect(201);
    expect(saleSends(s, from)).toEqual(['/payments']);

    await s.restart(0, { SALES_RECORDED_AS: 'order' });
    await s.seed('ra-2', 100);
    from = s.sentUpstream().length;
    const asOrder = await sale('ra-2', 'ra-pay-2').expect(201);
    expect(saleSends(s, from)).toEqual(['/orders']);
    const sent = s
      .sentUpstream()
      .slice(from)
      .find((e) => e.path.endsWith('/orders'))!.body as Record<string, unknown>;
    // The order carries the sale's id, its lines by product id with unit price and quantity, and the branch.
    expect(sent).toMatchObject({
      orderId: 'ra-pay-2',
      customerId: 'ra-2',
      totalPaid: 250,
      // The POS guide requires the order's price; without the till's totalAmount, what was paid plus its discount.
      totalPrice: 250,
      channel: 'pos',
      merchant: expect.objectContaining({ branch: expect.objectContaining({ uniqueId: 'branch-001' }) }),
      lineItems: [
        { productId: 'sku-tv', quantity: 2, price: 100, title: 'TV stand', category: ['furniture'] },
        { productId: 'sku-cable', price: 50, sku: 'CBL-1', tags: ['double-points'] },
      ],
    });
    expect(s.upstreamViolations()).toEqual([]);

    const view = (b: Record<string, unknown>) => ({ ...b, paymentId: 'x', customerId: 'x', receipt: undefined });
    expect(view(asOrder.body)).toEqual(view(asPayment.body));
    expect(asOrder.body).toMatchObject({
      status: 'recorded',
      pointsEarned: 300,
      lines: [
        { serviceId: 'sku-tv', points: 200 },
        { serviceId: 'sku-cable', points: 100 },
      ],
    });
    expect((await s.balance('ra-2')).availablePointsBalance).toBe((await s.balance('ra-1')).availablePointsBalance);
  });

  it('a sale with a held redemption is a tracked order naming the hold: points redeemed once, the hold used', async () => {
    await s.restart(0, { SALES_RECORDED_AS: 'order' });
    const r = await heldRedemption(s, 'ra-3', 200, { seed: 500 });
    const pay = await s
      .pos('cashier')
      .post('/payments', { customerId: 'ra-3', paymentId: 'ra-pay-3', totalAmount: 120, totalPaid: 100, redemptionId: r.id })
      .expect(201);
    expect(pay.body).toMatchObject({ status: 'recorded', pointsRedeemed: 200, pointsEarned: 100, redemption: { id: r.id, state: 'redeemed' } });
    expect(await s.balance('ra-3')).toMatchObject({ availablePointsBalance: 400, heldPoints: 0 });
    // The order id sent again for the same sale: already recorded, from the order's transactions; nothing earned twice.
    const again = await s.pos('cashier').post('/payments', { customerId: 'ra-3', paymentId: 'ra-pay-3', totalAmount: 120, totalPaid: 100, redemptionId: r.id });
    expect([again.status, again.body.status]).toEqual([201, 'already_recorded']);
    expect((await s.balance('ra-3')).availablePointsBalance).toBe(400);
  });

  it('a sale recorded as a payment is read back, refunded and voided after the mode changed to orders, and the other way round', async () => {
    await s.restart(0, { SALES_RECORDED_AS: 'payment' });
    await s.seed('ra-4', 0);
    await s.pos('cashier').post('/payments', { customerId: 'ra-4', paymentId: 'ra-pay-4a', totalPaid: 100 }).expect(201);
    await s.pos('cashier').post('/payments', { customerId: 'ra-4', paymentId: 'ra-pay-4b', totalPaid: 60 }).expect(201);
    await s.restart(0, { SALES_RECORDED_AS: 'order' });
    await s.pos('cashier').post('/payments', { customerId: 'ra-4', paymentId: 'ra-pay-4c', totalPaid: 40 }).expect(201);
    expect((await s.balance('ra-4')).availablePointsBalance).toBe(200);

    expect((await s.pos('cashier').get('/payments/ra-pay-4a').expect(200)).body).toMatchObject({ paymentId: 'ra-pay-4a', pointsEarned: 100 });
    await s.pos('manager').post('/refunds', { customerId: 'ra-4', refundId: 'ra-rf-4a', paymentId: 'ra-pay-4a', amount: 50 }).expect(201);
    await s.pos('manager').post('/payments/ra-pay-4b/void', { customerId: 'ra-4' }).expect(200);
    expect((await s.balance('ra-4')).availablePointsBalance).toBe(90);

    // Back to payments: the order is read back, refunded and voided the same way.
    await s.restart(0, { SALES_RECORDED_AS: 'payment' });
    expect((await s.pos('cashier').get('/payments/ra-pay-4c').expect(200)).body).toMatchObject({ paymentId: 'ra-pay-4c', pointsEarned: 40 });
    await s.pos('manager').post('/refunds', { customerId: 'ra-4', refundId: 'ra-rf-4c', paymentId: 'ra-pay-4c', amount: 10 }).expect(201);
    await s.pos('manager').post('/payments/ra-pay-4c/void', { customerId: 'ra-4' }).expect(200);
    expect((await s.balance('ra-4')).availablePointsBalance).toBe(50);
  });

  it('a sale whose first attempt may have landed is sent again the way it was first sent, after the mode changed', async () => {
    await s.restart(0, { SALES_RECORDED_AS: 'order' });
    const r = await heldRedemption(s, 'ra-5', 100, { seed: 300 });
    const body = { customerId: 'ra-5', paymentId: 'ra-pay-5', totalAmount: 80, totalPaid: 70, redemptionId: r.id };
    // Applied upstream, its answer lost: the outcome is unknown to the till (a sale with a hold is not queued).
    await setFaults(s, [{ operation: 'trackOrder', after: true, drop: true, times: 1 }]);
    const first = await s.pos('cashier').post('/payments', body);
    expect(first.status).toBeGreaterThanOrEqual(500);
    await setFaults(s, []);
    await s.restart(0, { SALES_RECORDED_AS: 'payment' });
    const from = s.sentUpstream().length;
    const retry = await s.pos('cashier').post('/payments', body);
    expect([retry.status, retry.body.status]).toEqual([201, 'already_recorded']);
    expect(saleSends(s, from)).toEqual(['/orders']);
    expect((await s.balance('ra-5')).availablePointsBalance).toBe(270);
  });

  it('a sale queued in order mode is delivered as an order after a restart in payment mode, once', async () => {
    await s.restart(0, { SALES_RECORDED_AS: 'order', OUTBOX_INTERVAL_MS: '100' });
    await s.seed('ra-6', 0);
    await setFaults(s, [{ operation: 'trackOrder', status: 503 }]);
    const queued = await s.pos('cashier').post('/payments', { customerId: 'ra-6', paymentId: 'ra-pay-6', totalPaid: 30 }).expect(202);
    await s.restart(0, { SALES_RECORDED_AS: 'payment' });
    const from = s.sentUpstream().length;
    await setFaults(s, []);
    await waitFor('the queued sale delivered', async () => (await s.pos('cashier').get(`/outbox/${queued.body.outboxId}`)).body.state === 'delivered', 30_000);
    expect(saleSends(s, from)).toEqual(['/orders']);
    const activity = await s.sandboxAdmin.get(`${API}/orders/ra-pay-6/transactions`).set(SANDBOX_KEYS).expect(200);
    expect(activity.body.transactions.filter((t: { transactionType: string }) => t.transactionType === 'PaymentReward')).toHaveLength(1);
    expect((await s.balance('ra-6')).availablePointsBalance).toBe(30);
  });
});

describe('the fleet budget counts each sale in the bucket of the way it is recorded (redis store)', () => {
  let s: Stack | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('as orders, holds alone use Transactions POST: with that quota spent on holds, their payments and plain sales still go at once', async () => {
    // 3 per 30 s: a till's calls may take 2 of them (the rest is the second legs' reserve).
    s = await startStack({ store: 'redis', env: { SALES_RECORDED_AS: 'order', UPSTREAM_QUOTA_TRANSACTIONS_WRITE: '3' } });
    const a = await heldRedemption(s, 'rb-1', 100, { seed: 500 });
    const b = await heldRedemption(s, 'rb-2', 100, { seed: 500 });
    const third = await s.pos('cashier').post('/redemptions', { customerId: 'rb-3', hash: await s.hash('rb-1'), points: 100 });
    expect([third.status, third.body.code]).toEqual([503, 'upstream_busy']);
    for (const [customerId, r] of [
      ['rb-1', a],
      ['rb-2', b],
    ] as const) {
      const pay = await s
        .pos('cashier')
        .post('/payments', { customerId, paymentId: `rb-pay-${customerId}`, totalAmount: 60, totalPaid: 50, redemptionId: r.id });
      expect([pay.status, pay.body.redemption?.state]).toEqual([201, 'redeemed']);
    }
    for (let i = 0; i < 4; i++)
      await s
        .pos('cashier')
        .post('/payments', { customerId: 'rb-1', paymentId: `rb-plain-${i}`, totalPaid: 10 })
        .expect(201);
  });

  it('as orders, sales share the Orders bucket with earn previews: once previews took the quota, a plain sale queues (202) and no redemption starts', async () => {
    // 4 per 30 s: a till's calls may take 3 of them.
    s = await startStack({ store: 'redis', env: { SALES_RECORDED_AS: 'order', UPSTREAM_QUOTA_ORDERS: '4' } });
    await s.seed('rb-4', 500);
    for (let i = 0; i < 3; i++)
      await s
        .pos('cashier')
        .post('/earn-preview', { customerId: 'rb-4', totalPaid: 40, lines: [{ serviceId: 'sku-mug', amount: 40 }] })
        .expect(200);
    const sale = await s.pos('cashier').post('/payments', { customerId: 'rb-4', paymentId: 'rb-pay-4', totalPaid: 40 });
    expect([sale.status, sale.body.queued, sale.body.reason]).toEqual([202, true, 'upstream_busy']);
    // Nor is a redemption started: its sale would find no room either.
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'rb-4', hash: await s.hash('rb-4'), points: 100 });
    expect([start.status, start.body.code]).toEqual([503, 'upstream_busy']);
  });

  it('as orders, a redemption is not started when a call of a till would find no room in Orders: refused before the hold, nothing held', async () => {
    // 4 per 30 s: a till's calls may take 3 of them; the 4th is the second legs'.
    s = await startStack({ store: 'redis', env: { SALES_RECORDED_AS: 'order', UPSTREAM_QUOTA_ORDERS: '4' } });
    const held = await heldRedemption(s, 'rb-8', 100, { seed: 500 });
    for (let i = 0; i < 3; i++)
      await s
        .pos('cashier')
        .post('/payments', { customerId: 'rb-9', paymentId: `rb-fill-${i}`, totalPaid: 10 })
        .expect(201);
    const holds = () => s!.sentUpstream().filter((e) => e.path.endsWith('/transactions/hold')).length;
    const before = holds();
    const start = await s.pos('cashier').post('/redemptions', { customerId: 'rb-8', hash: await s.hash('rb-8'), points: 100 });
    expect([start.status, start.body.code]).toEqual([503, 'upstream_busy']);
    expect(holds()).toBe(before);
    expect((await s.balance('rb-8')).heldPoints).toBe(100);
    // The redemption already held still pays: its sale takes the second legs' reserve.
    const pay = await s.pos('cashier').post('/payments', { customerId: 'rb-8', paymentId: 'rb-pay-8', totalAmount: 60, totalPaid: 50, redemptionId: held.id });
    expect([pay.status, pay.body.redemption?.state]).toEqual([201, 'redeemed']);
  });

  it('as payments, the same sales use Transactions POST: with that quota spent on holds, a plain sale queues', async () => {
    s = await startStack({ store: 'redis', env: { SALES_RECORDED_AS: 'payment', UPSTREAM_QUOTA_TRANSACTIONS_WRITE: '3' } });
    await heldRedemption(s, 'rb-5', 100, { seed: 500 });
    await heldRedemption(s, 'rb-6', 100, { seed: 500 });
    const sale = await s.pos('cashier').post('/payments', { customerId: 'rb-7', paymentId: 'rb-pay-7', totalPaid: 40 });
    expect([sale.status, sale.body.reason]).toEqual([202, 'upstream_busy']);
  });
});

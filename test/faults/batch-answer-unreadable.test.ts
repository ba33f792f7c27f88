import { startStack, Stack } from '../support/e2e';
import { eventually, setFaults } from '../pos/outbox/stack-helpers';

/**
 * A 2xx whose body cannot be read means the write was applied, only its answer
 * is lost. For a batch upload the job id is gone: the till hears it was taken
 * (202, `jobId: null`) and not "send the same request again", and the orders'
 * ids stay this store's claim until their records show them.
 */
describe('a batch upload answered 200 with a body that cannot be read', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', env: { LOYALTY_RETRIES: '0', BREAKER_FAILURE_THRESHOLD: '10000' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  const uploads = () => s.sentUpstream().filter((x) => x.path.endsWith('/integrations/batch/orders')).length;

  it('is answered accepted with its job id lost, sent once, and its orders stay claimed by the store until their records show them', async () => {
    await s.seed('bu-ana', 0);
    const orderDate = new Date().toISOString();
    const orders = [
      { customerId: 'bu-ana', orderId: 'bu-order-1', orderDate, totalPaid: 30 },
      { customerId: 'bu-ana', orderId: 'bu-order-2', orderDate, totalPaid: 12 },
    ];
    await setFaults(s, [{ operation: 'batchOrders', brokenBody: true, times: 1 }]);
    const before = uploads();

    const up = await s.pos('cashier').post('/orders/batch', { orders }).set('Idempotency-Key', 'bu-upload-1').expect(202);
    expect(up.body).toEqual({ jobId: null, orders: 2 });
    // The same request again is the stored answer: nothing is sent twice.
    const again = await s.pos('cashier').post('/orders/batch', { orders }).set('Idempotency-Key', 'bu-upload-1').expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(uploads() - before).toBe(1);

    // Another store cannot take the orders' ids meanwhile.
    const clash = await s.pos('otherCashier').post('/orders/batch', { orders: [orders[0]] });
    expect(clash.status).toBe(409);
    expect(uploads() - before).toBe(1);

    // The upload was applied; each order becomes this store's once its record shows it.
    await eventually('the orders to be recorded', async () => (await s.balance('bu-ana')).availablePointsBalance === 42, 20_000);
    await eventually("the first order to be the store's", async () => (await s.pos('cashier').get('/payments/bu-order-1')).status === 200, 30_000);
    await s.pos('otherCashier').get('/payments/bu-order-1').expect(404);
    expect((await s.balance('bu-ana')).availablePointsBalance).toBe(42);
  });
});

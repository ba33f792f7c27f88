import { startStack, Stack } from '../support/e2e';

/**
 * `?receipt=` shapes the answer (`none`: `receipt: null`), so a request with
 * it is not the request without it: the same Idempotency-Key for both is a
 * key reused for a different request (422), not a replay of an answer shaped
 * for the other one. `?receipt=full` is the default, so it is the same request
 * as none given.
 */
describe.each(['memory', 'redis'] as const)('Idempotency-Key and ?receipt= (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store });
  });
  afterAll(async () => {
    await s?.close();
  });

  const pay = (path: string, key: string, paymentId: string) =>
    s
      .pos('cashier')
      .post(path, { customerId: `idem-${store}`, paymentId, totalPaid: 30 })
      .set('Idempotency-Key', key);

  beforeAll(async () => {
    await s.seed(`idem-${store}`, 100);
  });

  it('full receipt first, then the same key with ?receipt=none: 422 idempotency_key_reused', async () => {
    const first = await pay('/payments', `k1-${store}`, `idem-sale-1-${store}`).expect(201);
    expect(first.body.receipt).not.toBeNull();
    const other = await pay('/payments?receipt=none', `k1-${store}`, `idem-sale-1-${store}`).expect(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    // The default spelled out is the same request: the first answer again.
    const same = await pay('/payments?receipt=full', `k1-${store}`, `idem-sale-1-${store}`).expect(201);
    expect(same.headers['idempotent-replayed']).toBe('true');
    expect(same.body).toEqual(first.body);
  });

  it('?receipt=none first, then the same key without it: 422, never a receipt-less replay to a till that asked for one', async () => {
    const first = await pay('/payments?receipt=none', `k2-${store}`, `idem-sale-2-${store}`).expect(201);
    expect(first.body.receipt).toBeNull();
    expect((await pay('/payments', `k2-${store}`, `idem-sale-2-${store}`).expect(422)).body.code).toBe('idempotency_key_reused');
    const again = await pay('/payments?receipt=none', `k2-${store}`, `idem-sale-2-${store}`).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('the same on a refund', async () => {
    await pay('/payments?receipt=none', `k3-${store}`, `idem-sale-3-${store}`).expect(201);
    const refund = (path: string) =>
      s
        .pos('manager')
        .post(path, { customerId: `idem-${store}`, refundId: `idem-rf-3-${store}`, paymentId: `idem-sale-3-${store}` })
        .set('Idempotency-Key', `k4-${store}`);
    await refund('/refunds?receipt=none').expect(201);
    expect((await refund('/refunds').expect(422)).body.code).toBe('idempotency_key_reused');
  });
});

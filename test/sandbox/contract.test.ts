import { API_PREFIX, LoyaltyErrorBody, OPERATIONS, OperationId } from '../../src/contract';
import { buildLoyaltyOpenApi } from '../../src/sandbox/openapi';
import { OPERATION_EXAMPLES } from '../../src/sandbox/openapi/examples';
import { API, harness } from './helpers';

const T = '2025-03-01T10:00:00Z';

/** Every success body parses with the contract's response schema (the BFF validates them the same way). */
describe('sandbox responses follow the contract', () => {
  const h = harness();
  const check = (op: OperationId, body: unknown) => {
    const parsed = OPERATIONS[op].response.safeParse(body);
    if (!parsed.success) throw new Error(`${op} response does not match the contract: ${parsed.error.message}`);
  };

  it('for every operation this sandbox core serves', async () => {
    await h.seed('c1', 1000);
    const otp = await h.http.post(`${API}/transactions/otp`).set(h.keys).send({ customerId: 'c1', points: 100 });
    check('otp', otp.body);
    const hold = await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 100 });
    check('hold', hold.body);
    check('holdLookup', (await h.http.get(`${API}/transactions/hold/${hold.body.holdReference}`).set(h.keys)).body);
    const other = await h.http.post(`${API}/transactions/hold`).set(h.keys).send({ customerId: 'c1', transactionTime: T, ruleId: 'rship' });
    check('holdCancel', (await h.http.delete(`${API}/transactions/hold/${other.body.holdReference}`).set(h.keys)).body);
    const pay = await h.http
      .post(`${API}/payments`)
      .set(h.keys)
      .send({
        customerId: 'c1',
        paymentId: 'p1',
        paymentDate: T,
        totalPaid: 90,
        paymentDetails: [{ serviceId: 'a', amount: 100 }],
        redemption: { pointsHoldReference: hold.body.holdReference },
      });
    check('payment', pay.body);
    check(
      'refund',
      (
        await h.http
          .post(`${API}/transactions/refund`)
          .set(h.keys)
          .send({ customerId: 'c1', refundTransactionId: 'r1', reverseTransactionId: 'p1', transactionTime: T, lineItems: [{ productId: 'a', price: 50 }] })
      ).body,
    );
    check('balance', (await h.http.get(`${API}/customers/c1/balance`).set(h.keys)).body);
    check('hash', (await h.http.get(`${API}/customers/c1/hash`).set(h.keys)).body);
    check(
      'events',
      (
        await h.http
          .post(`${API}/events`)
          .set(h.keys)
          .send({ customerId: 'c1', events: { place_order: {} } })
      ).body,
    );
    check('deleteCustomer', (await h.http.delete(`${API}/customers/c1`).set(h.keys)).body);
    const err = await h.http.get(`${API}/customers/c1/hash`).set(h.keys);
    expect(LoyaltyErrorBody.strict().safeParse(err.body).success).toBe(true);
  });

  it('for the sandbox-only operations too, which the v4.0 document lists with their keys and examples', async () => {
    await h.seed('c2', 1000);
    const order = await h.http
      .post(`${API}/orders`)
      .set(h.keys)
      .send({ customerId: 'c2', orderId: 'o1', orderDate: T, totalPaid: 10, lineItems: [{ productId: 'a', price: 10 }] });
    expect(OPERATIONS.trackOrder.response.parse(order.body).lineItems).toHaveLength(1);
    const redeemed = await h.http
      .post(`${API}/transactions/redeem`)
      .set(h.keys)
      .send({ customerId: 'c2', transactionId: 'r1', transactionTime: T, points: 10 });
    expect(OPERATIONS.redeem.response.parse(redeemed.body).redeemEquivalentPoints).toBe(10);

    const doc = buildLoyaltyOpenApi() as unknown as { paths: Record<string, Record<string, { operationId: string; security: unknown }>> };
    // Once sandbox-only (SANDBOX_ONLY_OPERATIONS), now the BFF's: Track Order and redeem.
    for (const op of [OPERATIONS.trackOrder, OPERATIONS.redeem]) {
      expect(doc.paths[API_PREFIX + op.path].post).toMatchObject({ operationId: op.id, security: [{ apiKey: [], secretKey: [] }] });
      const ex = OPERATION_EXAMPLES[op.id]!;
      expect({ op: op.id, request: op.request.safeParse(ex.request).error?.issues ?? [] }).toEqual({ op: op.id, request: [] });
      expect({ op: op.id, response: op.response.safeParse(ex.response).error?.issues ?? [] }).toEqual({ op: op.id, response: [] });
    }
  });
});

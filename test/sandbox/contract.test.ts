import { LoyaltyErrorBody, OPERATIONS, OperationId } from '../../src/contract';
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
});

import { codesOf } from '../../src/pos/openapi/codes';
import { POS_ROUTES } from '../../src/pos/routes';
import { disagreements } from '../support/problem-codes';

/** The check the test run ends with (global teardown), on made-up traces. */
describe("the check of each operation's problem codes", () => {
  const every = POS_ROUTES.flatMap((r) => [...codesOf(r).keys()].map((code) => ({ operationId: r.operationId, status: 0, code })));

  it('names a code answered on an operation that does not list it', () => {
    expect(disagreements([{ operationId: 'getAuditTrail', status: 409, code: 'payment_id_taken' }], false)).toEqual([
      "getAuditTrail answered 409 payment_id_taken, which it does not list (add it to its entry's codes, or fix the answer)",
    ]);
  });

  it('on a whole run, names a listed code no test produced', () => {
    const withoutOne = every.filter((a) => !(a.operationId === 'recordPayment' && a.code === 'payment_id_taken'));
    expect(disagreements(withoutOne, true)).toEqual(['recordPayment lists payment_id_taken (own), which no test produced on it (add a test, or unlist it)']);
    expect(disagreements(withoutOne, false)).toEqual([]);
  });

  it("counts a shared middleware's code seen on one operation for every operation with that middleware", () => {
    const authOnlyOnce = every.filter((a) => a.code !== 'missing_token' || a.operationId === 'getAuditTrail');
    expect(disagreements(authOnlyOnce, true)).toEqual([]);
    expect(disagreements(every, true)).toEqual([]);
  });
});

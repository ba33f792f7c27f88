import type { RefundRequest, StartRedemptionRequest } from '../../clients/pos-types';

/**
 * Type-level: an "exactly one of" body is a union whose variants forbid the
 * other choices, so a till sending two does not compile (checked by
 * `npm run typecheck`; the test only keeps jest aware of it).
 */
const byPoints: StartRedemptionRequest = { customerId: 'alice', hash: '123456', points: 100 };
const byQr: StartRedemptionRequest = { qr: 'alice:123456', ruleId: 'rule-1' };
// @ts-expect-error -- points and amount together
const twoAsks: StartRedemptionRequest = { customerId: 'alice', points: 1, amount: 2 };
// @ts-expect-error -- qr and customerId together
const twoIdentities: StartRedemptionRequest = { qr: 'alice:123456', customerId: 'alice', points: 1 };
// @ts-expect-error -- no ask at all
const noAsk: StartRedemptionRequest = { customerId: 'alice' };
const fullRefund: RefundRequest = { customerId: 'alice', refundId: 'r-1', paymentId: 'p-1' };
// @ts-expect-error -- amount and lines together
const both: RefundRequest = { customerId: 'alice', refundId: 'r-1', paymentId: 'p-1', amount: 1, lines: [{ serviceId: 's', amount: 1 }] };

describe('exclusive request bodies in the generated client types', () => {
  it('refuse two of the choices', () => {
    expect([byPoints, byQr, twoAsks, twoIdentities, noAsk, fullRefund, both]).toHaveLength(7);
  });
});

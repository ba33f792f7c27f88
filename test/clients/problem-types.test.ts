import type { ProblemOf } from '../../clients/pos-types';

/**
 * Type-level: the generated client tells each operation's codes apart per
 * status (checked by `npm run typecheck`; the test only keeps jest aware of it).
 */
type Conflict = ProblemOf<'recordPayment', 409>['code'];

const taken: Conflict = 'payment_id_taken';
const unconfirmed: Conflict = 'write_unconfirmed';
// @ts-expect-error -- a code recordPayment never answers with 409
const notOurs: Conflict = 'too_many_open_redemptions';
// @ts-expect-error -- a 409 code under another status
const wrongStatus: ProblemOf<'recordPayment', 400>['code'] = 'payment_id_taken';

describe('problem codes in the generated client types', () => {
  it('are narrowed per operation and status', () => {
    expect([taken, unconfirmed, notOurs, wrongStatus]).toHaveLength(4);
  });
});

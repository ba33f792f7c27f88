import { ConflictError, NotFoundError } from '../../src/platform/errors';
import { isProblem, problem } from '../../src/platform/problem';

describe('problem()', () => {
  it('builds the error class of the status the catalogue gives the code', () => {
    const err = problem('payment_id_taken', 'Payment id p-1 is already used by another sale', { extra: { paymentId: 'p-1' } });
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({
      status: 409,
      code: 'payment_id_taken',
      message: 'Payment id p-1 is already used by another sale',
      extra: { paymentId: 'p-1' },
    });
    expect(problem('redemption_not_found', 'Redemption r-1 was not found')).toBeInstanceOf(NotFoundError);
  });

  it('is recognised by isProblem for its own codes only', () => {
    const err = problem('hold_not_active', 'The points hold is gone');
    expect(isProblem(err, 'hold_not_active')).toBe(true);
    expect(isProblem(err, 'hold_already_cancelled', 'hold_not_active')).toBe(true);
    expect(isProblem(err, 'hold_already_cancelled')).toBe(false);
    expect(isProblem({ code: 'hold_not_active' }, 'hold_not_active')).toBe(false);
    expect(isProblem(undefined, 'hold_not_active')).toBe(false);
  });
});

import { POS_ROUTES } from '../../src/pos/routes';
import { startStack, Stack } from '../support/e2e';

/**
 * Every route with a body requires it (the document says `required: true`):
 * without one it is a 400 naming the body, never a write made of defaults.
 */
describe('required bodies', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  const withBody = POS_ROUTES.filter((r) => r.body);

  it.each(withBody.map((r) => [r.operationId, r] as const))('%s without a body: 400 validation_failed naming the body', async (_id, r) => {
    // An id of every kind's form (a redemption id is the strictest), so only the body is wrong.
    const path = r.path.replace(/:[A-Za-z]+/g, 'rdm_Zk3vQ9bT2mXc8LpA');
    const call = s.pos(r.roles[0])[r.method as 'post' | 'put'](path).set('Idempotency-Key', `req-body-${r.operationId}`);
    const res = await call;
    expect({ status: res.status, code: res.body.code, errors: res.body.errors }).toEqual({
      status: 400,
      code: 'validation_failed',
      errors: [{ path: '(body)', message: expect.stringMatching(/expected object/) }],
    });
  });

  it('a registration with an empty object: 400 naming the fields to give', async () => {
    const res = await s.pos('cashier').put('/customers/req-body-1', {});
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
    expect(res.body.errors).toEqual([
      { path: '(body)', message: expect.stringContaining('give at least one of displayName, firstName, lastName, email, mobile') },
    ]);
  });
});

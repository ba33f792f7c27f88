import { startStack, Stack } from '../support/e2e';

/**
 * A bug's message (which may name internals, a query, a key) never reaches the
 * till: the 500 says only that something went wrong, with the errorId that
 * finds the whole story in the log.
 */
describe('an unexpected error in a route', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers a generic 500 whose errorId is on the log line that carries the real message', async () => {
    await s.seed('bug-1', 100);
    // A fault inside the real BFF: its upstream client throws a plain Error, as a bug would.
    Object.assign(s.bff.deps.loyalty, {
      balance: async () => {
        throw new Error('secret internal text');
      },
    });
    const res = await s.pos('cashier').get('/customers/bug-1').expect(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 500, code: 'internal_error', detail: 'An internal error occurred' });
    expect(res.text).not.toContain('secret internal text');
    expect(res.body.errorId).toEqual(expect.any(String));

    const line = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.errorId === res.body.errorId);
    expect(line).toBeDefined();
    expect(line!.level).toBe(50);
    expect(JSON.stringify(line)).toContain('secret internal text');
  });
});

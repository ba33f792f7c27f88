import { setFaults } from '../pos/outbox/stack-helpers';
import { startStack, Stack } from '../support/e2e';

const coupons = [
  {
    code: 'WELCOME10',
    name: 'Welcome 10 EGP',
    value: 10,
    startDate: '2024-01-01T00:00:00Z',
    expiryDate: '2099-12-31T23:59:59Z',
    usageLimit: 0,
    limitPerCustomer: 1,
  },
  {
    code: 'TWICE5',
    name: '5 EGP, twice each',
    value: 5,
    startDate: '2024-01-01T00:00:00Z',
    expiryDate: '2099-12-31T23:59:59Z',
    usageLimit: 0,
    limitPerCustomer: 2,
  },
  { code: 'FREE5', name: '5 EGP', value: 5, startDate: '2024-01-01T00:00:00Z', expiryDate: '2099-12-31T23:59:59Z' },
];

type Verdict = { code: string; usable: boolean; reason: string | null; worth: number };
const verdicts = (list: Verdict[]) => list.map((c) => [c.code, c.usable, c.reason]);

/**
 * A refused coupon lock explains itself: one verdict per code the till named,
 * in its order, a code named more times than the customer may use it is
 * refused from the copy over the limit on, and a refusal no single code
 * explains never reads as "all usable".
 */
describe.each(['memory', 'redis'] as const)('coupon lock verdicts (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store, account: { coupons } });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });

  const lock = (customerId: string, codes: string[]) => s.pos('cashier').post('/coupon-locks', { customerId, codes, basketTotal: 100 });

  it('a once-per-customer code named twice: the second copy is not usable, and says why', async () => {
    await s.seed('dup-1', 0);
    const res = await lock('dup-1', ['WELCOME10', 'WELCOME10']).expect(422);
    expect(res.body.code).toBe('coupon_refused');
    expect(verdicts(res.body.coupons)).toEqual([
      ['WELCOME10', true, null],
      ['WELCOME10', false, 'coupon_exhausted'],
    ]);
    expect(res.body.coupons[1].worth).toBe(0);
    expect(res.body.reason).toBe('coupon_exhausted');
    // Nothing was locked: the code alone still locks.
    const alone = await lock('dup-1', ['WELCOME10']).expect(201);
    await s.pos('cashier').post(`/coupon-locks/${alone.body.id}/release`).expect(200);
  });

  it('a twice-per-customer code named three times: only the third copy is refused; other codes keep their own verdict', async () => {
    await s.seed('dup-2', 0);
    const res = await lock('dup-2', ['TWICE5', 'FREE5', 'TWICE5', 'TWICE5']).expect(422);
    expect(verdicts(res.body.coupons)).toEqual([
      ['TWICE5', true, null],
      ['FREE5', true, null],
      ['TWICE5', true, null],
      ['TWICE5', false, 'coupon_exhausted'],
    ]);
  });

  it('the check route gives one verdict per code named, duplicates over the limit refused', async () => {
    await s.seed('dup-3', 0);
    const res = await s
      .pos('cashier')
      .post('/coupons/validate', { customerId: 'dup-3', codes: ['WELCOME10', 'FREE5', 'WELCOME10'], basketTotal: 100 })
      .expect(200);
    expect(verdicts(res.body.coupons)).toEqual([
      ['WELCOME10', true, null],
      ['FREE5', true, null],
      ['WELCOME10', false, 'coupon_exhausted'],
    ]);
  });

  it('refused together though each code alone is usable: the answer gives the set\'s reason, not "all usable"', async () => {
    await s.seed('set-1', 0);
    // The lock call alone is refused (as "not found"); the checks that follow, one code each, pass.
    await setFaults(s, [{ operation: 'couponsValidate', status: 404, times: 1 }]);
    const res = await lock('set-1', ['WELCOME10', 'FREE5']).expect(422);
    expect(res.body.code).toBe('coupon_refused');
    expect(verdicts(res.body.coupons)).toEqual([
      ['WELCOME10', true, null],
      ['FREE5', true, null],
    ]);
    expect(res.body.reason).toBe('coupon_not_found');
    expect(res.body.detail).toMatch(/together/);
  });
});

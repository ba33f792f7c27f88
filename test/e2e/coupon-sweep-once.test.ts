import { startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * Two BFF instances share one Redis: coupon locks nobody paid with are
 * abandoned and released upstream exactly once, whichever instance sweeps.
 */
describe('coupon lock release with two BFF instances on one Redis', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis', instances: 2 });
  });
  afterAll(async () => {
    await s?.close();
  });
  const abandoned = () => s.bffs.reduce((n, b) => n + b.couponLockSweeper.abandonedCount, 0);

  it('abandons every due lock once across both sweepers, and frees its coupon upstream', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      await s.seed(`cs-${i}`, 0);
      const res = await s
        .pos('cashier', i % 2)
        .post('/coupon-locks', { customerId: `cs-${i}`, codes: ['WELCOME10'], basketTotal: 30 })
        .expect(201);
      ids.push(res.body.id);
    }
    expect(await s.bffs[1].deps.couponLocks.countOpen()).toBe(6);
    await s.advance(10 * 60_000 - 29_000);
    await Promise.all([...s.bffs, ...s.bffs].map((b) => b.couponLockSweeper.sweepOnce()));
    await waitFor('every lock to be abandoned', async () => abandoned() >= 6 && (await s.bffs[0].deps.couponLocks.countOpen()) === 0);
    await new Promise((r) => setTimeout(r, 450));
    expect(abandoned()).toBe(6);
    const logged = s.logs.filter((l) => l.includes('"msg":"coupon lock abandoned"')).map((l) => JSON.parse(l).couponLockId as string);
    expect(logged.sort()).toEqual([...ids].sort());
    for (const [i, id] of ids.entries()) {
      expect(
        (
          await s
            .pos('cashier', (i + 1) % 2)
            .get(`/coupon-locks/${id}`)
            .expect(200)
        ).body.state,
      ).toBe('abandoned');
      // Released upstream before its own lock ran out: the coupon can be locked again now.
      await s
        .pos('cashier', i % 2)
        .post('/coupon-locks', { customerId: `cs-${i}`, codes: ['WELCOME10'], basketTotal: 30 })
        .expect(201);
    }
  });
});

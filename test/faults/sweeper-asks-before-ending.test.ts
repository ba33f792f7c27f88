import Redis from 'ioredis';
import { BffProcess, eventually, ProcessStack, startProcessStack } from './process-stack';

/**
 * The BFF's estimate of a hold's end is shorter than the account's hold
 * period (HOLD_PERIOD_MINUTES=1, the sandbox's 10), and the host's clock
 * reaches it: the hold sweeper does not simply record the hold expired. It
 * asks the hold's record; while the loyalty service cannot be asked the
 * redemption stays `held` for the next sweep; once it can, a hold still
 * active there is released before the redemption is recorded `expired`, so
 * the customer's points are free at once, not minutes later.
 */
describe('the hold sweeper asks the hold record before it ends a hold', () => {
  let stack: ProcessStack;
  let bff: BffProcess;
  let redis: Redis;
  beforeAll(async () => {
    stack = await startProcessStack({ redisUrl: process.env.TEST_REDIS_URL! });
    bff = await stack.spawnBff({ HOLD_PERIOD_MINUTES: '1' });
    redis = new Redis(process.env.TEST_REDIS_URL!);
  }, 30_000);
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
  });

  it('leaves a due hold held while the upstream cannot be asked, then releases it upstream before recording it expired', async () => {
    await stack.seed('hana', 1000);
    const till = bff.pos(stack.tokens.cashier);
    const held = await till.post('/redemptions', { customerId: 'hana', hash: await stack.hash('hana'), points: 200 }).expect(201);
    const estimate = Date.parse(held.body.expiresAt);
    expect(estimate).toBeLessThan(Date.now() + 2 * 60_000);
    expect((await stack.balance('hana')).availablePointsBalance).toBe(800);

    // The hold's record cannot be read for now.
    await stack.faults([{ operation: 'holdLookup', status: 500 }]);
    // The host's clock reaches the estimate (a process's clock cannot be moved: the hold's place in the due index is).
    expect(await redis.zadd(`${stack.redisPrefix}{rdm}:open`, 'XX', 'CH', Date.now() - 1, held.body.id)).toBe(1);
    await eventually(async () => (await stack.faultsApplied())[0] >= 1, 10_000, 'the sweeper to ask the hold record');
    expect((await till.get(`/redemptions/${held.body.id}`).expect(200)).body.state).toBe('held');
    expect((await stack.balance('hana')).availablePointsBalance).toBe(800);

    // The record can be read again. The next sweep of this hold comes after the recheck time (and after the
    // circuit the failed lookups may have opened closes): its place in the index is moved to now while waiting.
    await stack.faults([]);
    const ended = await eventually(
      async () => {
        await redis.zadd(`${stack.redisPrefix}{rdm}:open`, 'XX', Date.now() - 1, held.body.id);
        const r = await till.get(`/redemptions/${held.body.id}`).expect(200);
        return r.body.state !== 'held' ? r.body : undefined;
      },
      20_000,
      'the sweeper to end the hold',
    );
    expect(ended.state).toBe('expired');
    // Released upstream, well before the account's hold period would have freed the points (the release follows the record's end).
    await eventually(async () => (await stack.balance('hana')).availablePointsBalance === 1000, 15_000, 'the hold released upstream');
    expect(Date.now()).toBeLessThan(estimate + 9 * 60_000);
  }, 60_000);
});

import type { Redis } from 'ioredis';
import { MemoryOtpMode, MemoryOtpTickets, RedisOtpMode, RedisOtpTickets, type OtpModeStore, type OtpTicket, type OtpTicketStore } from '../../../src/pos/otp';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';

const T0 = 1_800_000_000_000;
const ticket = (redemptionId: string, lapsesAt = T0 + 300_000): OtpTicket => ({ redemptionId, storeId: 'store-001', ask: 'points:100', lapsesAt });

/** The memory and Redis stores behave alike (one interface, as the other stores in src/pos). */
describe.each(['memory', 'redis'] as const)('OTP stores (%s)', (kind) => {
  let redis: Redis | undefined;
  let prefix: string;
  let mode: OtpModeStore;
  let tickets: OtpTicketStore;
  beforeEach(async () => {
    prefix = uniquePrefix('otp');
    if (kind === 'redis') {
      redis = await testRedis();
      [mode, tickets] = [new RedisOtpMode(redis, prefix), new RedisOtpTickets(redis, prefix)];
    } else {
      [mode, tickets] = [new MemoryOtpMode(), new MemoryOtpTickets()];
    }
  });
  afterEach(async () => {
    if (redis) {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });

  it('the mode is what the newest answer showed, whatever order the answers are recorded in', async () => {
    expect(await mode.get()).toBeUndefined();
    await mode.record(true, T0 + 2);
    await mode.record(false, T0 + 1);
    expect(await mode.get()).toEqual({ required: true, at: T0 + 2 });
    await mode.record(false, T0 + 3);
    expect(await mode.get()).toEqual({ required: false, at: T0 + 3 });
  });

  it('a reset forgets what was learnt, and says whether there was anything', async () => {
    await mode.record(true, T0);
    expect(await mode.forget()).toBe(true);
    expect(await mode.get()).toBeUndefined();
    expect(await mode.forget()).toBe(false);
    await mode.record(false, T0 - 1);
    expect(await mode.get()).toEqual({ required: false, at: T0 - 1 });
  });

  it('one ticket per customer: a second claim gets the standing ticket until it lapses or is settled', async () => {
    expect(await tickets.claim('c-1', ticket('r1'), T0)).toBeNull();
    expect(await tickets.claim('c-1', ticket('r2'), T0 + 1)).toEqual(ticket('r1'));
    expect(await tickets.claim('c-2', ticket('r3'), T0 + 1)).toBeNull();
    expect(await tickets.current('c-1', T0 + 1)).toEqual(ticket('r1'));

    // Settling another redemption's ticket changes nothing; its own frees the customer.
    await tickets.settle('c-1', 'r2');
    expect(await tickets.claim('c-1', ticket('r2'), T0 + 2)).toEqual(ticket('r1'));
    await tickets.settle('c-1', 'r1');
    expect(await tickets.claim('c-1', ticket('r2'), T0 + 3)).toBeNull();

    // A lapsed ticket reads as none and can be claimed over.
    expect(await tickets.current('c-1', T0 + 300_000)).toBeNull();
    expect(await tickets.claim('c-1', ticket('r4', T0 + 600_000), T0 + 300_000)).toBeNull();
    expect((await tickets.current('c-1', T0 + 300_001))?.redemptionId).toBe('r4');
  });
});

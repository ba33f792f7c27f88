import type { Redis } from 'ioredis';
import { createOtpTickets, type OtpTicket, type OtpTicketStore } from '../../../src/pos/otp';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';

/*
 * An OTP is bound to its redemption: the customer's one ticket names the
 * redemption its code was asked for. Two starts asking at once must not both
 * take it (each would have a code sent, and the live code would be only one
 * of theirs), in either store.
 */
const T0 = 1_800_000_000_000;
const ticket = (redemptionId: string): OtpTicket => ({ redemptionId, storeId: 'store-001', ask: 'points:100', lapsesAt: T0 + 300_000 });

describe.each(['memory', 'redis'] as const)("an OTP is bound to its redemption: the customer's ticket (%s store)", (kind) => {
  let redis: Redis | undefined;
  let prefix: string;
  let tickets: OtpTicketStore;
  beforeEach(async () => {
    prefix = uniquePrefix('otp-rules');
    redis = kind === 'redis' ? await testRedis() : undefined;
    tickets = createOtpTickets({ redis, prefix });
  });
  afterEach(async () => {
    await tickets.close();
    if (redis) {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });

  it('of two claims made at once for one customer, exactly one takes the ticket, and it names that redemption', async () => {
    const [a, b] = await Promise.all([tickets.claim('c-1', ticket('rdm_a'), T0), tickets.claim('c-1', ticket('rdm_b'), T0)]);
    const taken = [a, b].filter((standing) => standing === null);
    expect(taken).toHaveLength(1);
    const winner = a === null ? 'rdm_a' : 'rdm_b';
    // The one refused is told the winner's ticket.
    expect((a ?? b)?.redemptionId).toBe(winner);
    expect((await tickets.current('c-1', T0))?.redemptionId).toBe(winner);
  });
});

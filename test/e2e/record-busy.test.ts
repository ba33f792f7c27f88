import type Redis from 'ioredis';
import { startStack, Stack } from '../support/e2e';
import { testRedis } from '../support/redis';
import { heldRedemption } from './helpers';

/**
 * A record another writer keeps changing (in Redis, between each read and
 * compare-and-set of the BFF's claim) cannot be claimed: after its rounds the
 * claim gives up with the record's busy code, and nothing was done (the till
 * sends the same request again). The other writer here bumps the stored
 * version only, as fast as Redis takes it, on a connection of its own.
 */
const BUMP = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local nxt = string.gsub(cur, ARGV[1], function(v) return ARGV[2] .. (tonumber(v) + 1) end, 1)
redis.call('SET', KEYS[1], nxt, 'KEEPTTL')
return 1
`;

/** Keeps changing the record under `key` until stopped; `version` finds its version (a Lua pattern capturing the digits) and `prefix` writes it back. */
function otherWriter(redis: Redis, key: string, version: string, prefix: string): { stop(): Promise<void> } {
  let stopped = false;
  // Several pipelines in flight, so Redis always has one of its changes queued between the BFF's read and write.
  const loops = Array.from({ length: 3 }, async () => {
    while (!stopped) {
      const p = redis.pipeline();
      for (let i = 0; i < 200; i++) p.eval(BUMP, 1, key, version, prefix);
      await p.exec();
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

describe('a claim that loses every compare-and-set round to another writer', () => {
  let s: Stack;
  let redis: Redis;
  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
    redis = await testRedis();
  });
  afterAll(async () => {
    redis?.disconnect();
    await s?.close();
  });

  it('a void of a redemption being changed all along: 409 redemption_busy, still held, voided once the writer stops', async () => {
    const held = await heldRedemption(s, 'busy-rdm', 50, { seed: 100 });
    const writer = otherWriter(redis, `${s.redisPrefix}{rdm}:r:${held.id}`, '^(%d+)', '');
    const res = await s.pos('cashier').post(`/redemptions/${held.id}/void`);
    await writer.stop();
    expect([res.status, res.body.code]).toEqual([409, 'redemption_busy']);
    expect((await s.pos('cashier').get(`/redemptions/${held.id}`).expect(200)).body.state).toBe('held');
    expect((await s.balance('busy-rdm')).heldPoints).toBe(50);
    await s.pos('cashier').post(`/redemptions/${held.id}/void`).expect(200);
    expect((await s.balance('busy-rdm')).heldPoints).toBe(0);
  });

  it('a release of a coupon lock being changed all along: 409 coupon_lock_busy, still locked, released once the writer stops', async () => {
    await s.seed('busy-cpl', 0);
    const lock = await s
      .pos('cashier')
      .post('/coupon-locks', { customerId: 'busy-cpl', codes: ['WELCOME10'], basketTotal: 50 })
      .expect(201);
    const writer = otherWriter(redis, `${s.redisPrefix}{cpl}:r:${lock.body.id}`, '"version":(%d+)', '"version":');
    const res = await s.pos('cashier').post(`/coupon-locks/${lock.body.id}/release`);
    await writer.stop();
    expect([res.status, res.body.code]).toEqual([409, 'coupon_lock_busy']);
    expect((await s.pos('cashier').get(`/coupon-locks/${lock.body.id}`).expect(200)).body.state).toBe('locked');
    await s.pos('cashier').post(`/coupon-locks/${lock.body.id}/release`).expect(200);
  });

  it('a payment naming a redemption being changed all along: 409 redemption_busy, nothing recorded, paid once the writer stops', async () => {
    const held = await heldRedemption(s, 'busy-pay-rdm', 50, { seed: 100 });
    const sale = { customerId: 'busy-pay-rdm', paymentId: 'busy-pay-rdm-1', totalPaid: 95, totalAmount: 100, redemptionId: held.id };
    const writer = otherWriter(redis, `${s.redisPrefix}{rdm}:r:${held.id}`, '^(%d+)', '');
    const res = await s.pos('cashier').post('/payments', sale);
    await writer.stop();
    expect([res.status, res.body.code]).toEqual([409, 'redemption_busy']);
    await s.pos('cashier').get('/payments/busy-pay-rdm-1').expect(404);
    await s.pos('cashier').post('/payments', sale).expect(201);
  });

  it('a payment naming a coupon lock being changed all along: 409 coupon_lock_busy, nothing recorded, paid once the writer stops', async () => {
    await s.seed('busy-pay-cpl', 0);
    const lock = await s
      .pos('cashier')
      .post('/coupon-locks', { customerId: 'busy-pay-cpl', codes: ['WELCOME10'], basketTotal: 50 })
      .expect(201);
    const sale = { customerId: 'busy-pay-cpl', paymentId: 'busy-pay-cpl-1', totalPaid: 40, totalAmount: 50, couponLockId: lock.body.id };
    const writer = otherWriter(redis, `${s.redisPrefix}{cpl}:r:${lock.body.id}`, '"version":(%d+)', '"version":');
    const res = await s.pos('cashier').post('/payments', sale);
    await writer.stop();
    expect([res.status, res.body.code]).toEqual([409, 'coupon_lock_busy']);
    await s.pos('cashier').get('/payments/busy-pay-cpl-1').expect(404);
    await s.pos('cashier').post('/payments', sale).expect(201);
  });
});

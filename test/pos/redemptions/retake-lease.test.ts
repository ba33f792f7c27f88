import pino from 'pino';
import type { CallContext } from '../../../src/pos/context';
import { asTaker, setClaimLeaseMs } from '../../../src/pos/money/lease';
import { redemptionForPayment, type RedemptionPaymentClaimDeps } from '../../../src/pos/redemptions/claims';
import { aHold, memoryHarness, redisHarness, T0, type StoreHarness } from './harness';

/*
 * A payment's retry (the same payment taking its redemption again after an
 * unknown outcome) renews the claim's lease: its taker is settling it once
 * more, so the lease sweeps leave it until the new lease ends.
 */
describe.each([
  ['memory', memoryHarness],
  ['redis', redisHarness],
])("a payment's retry renews its redemption's lease (%s)", (_name, harness) => {
  let h: StoreHarness;
  let now = T0 + 1000;
  beforeAll(() => setClaimLeaseMs(60_000));
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(() => h.cleanup());

  it('stamps a new lease naming the retry', async () => {
    const hold = aHold();
    await h.store.create(hold);
    const deps = {
      redemptions: h.store,
      clock: () => now,
      logger: pino({ level: 'silent' }),
      settings: { holdSafetyMarginSeconds: 0 },
    } as unknown as RedemptionPaymentClaimDeps;
    const ctx = { identity: { store: { id: 'store-001' } } } as unknown as CallContext;
    const who = { customerId: hold.customerId, paymentId: 'P1' };
    const first = redemptionForPayment(deps, ctx, hold.id, who);
    await asTaker({ requestId: 'req-1' }, () => first.take());
    expect(first.claimed.lease).toEqual({ at: now, until: now + 60_000, requestId: 'req-1' });
    now += 30_000;
    const retry = redemptionForPayment(deps, ctx, hold.id, who);
    await asTaker({ requestId: 'req-2' }, () => retry.take());
    expect(retry.again).toBe(true);
    expect(retry.claimed.lease).toEqual({ at: now, until: now + 60_000, requestId: 'req-2' });
    expect((await h.store.get(hold.id, now))?.lease).toEqual(retry.claimed.lease);
  });
});

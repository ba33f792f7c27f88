import { MemoryRedemptionStore } from '../../../src/pos/redemptions';
import { aHold, memoryHarness, T0 } from './harness';
import { redemptionStoreSuite } from './store-suite';

redemptionStoreSuite('MemoryRedemptionStore', memoryHarness);

describe('MemoryRedemptionStore retention (the in-memory twin of Redis TTLs)', () => {
  const HOUR = 3600_000;
  it('forgets ending records after ttlAfterEndMs and pending OTPs after otpTtlMs', async () => {
    const store = new MemoryRedemptionStore({ ttlAfterEndMs: 24 * HOUR, otpTtlMs: 15 * 60_000 });
    const voided = aHold();
    const pending = aHold({ state: 'otp_required', expiresAt: undefined });
    await store.create(voided);
    await store.create(pending);
    await store.change(voided.id, T0, (r) => ({ ...r, state: 'voiding' }));
    await store.change(voided.id, T0, (r) => ({ ...r, state: 'voided' }));
    expect((await store.get(voided.id, T0))?.state).toBe('voided');
    expect(await store.get(pending.id, T0 + 15 * 60_000 - 1)).not.toBeNull();
    expect(await store.get(pending.id, T0 + 15 * 60_000)).toBeNull();
    expect(await store.get(voided.id, T0 + 24 * HOUR - 1)).not.toBeNull();
    expect(await store.get(voided.id, T0 + 24 * HOUR)).toBeNull();
  });

  it('keeps a held record until its expiry plus ttlAfterEndMs, and drops it on a sweep', async () => {
    const store = new MemoryRedemptionStore({ ttlAfterEndMs: HOUR });
    const hold = aHold();
    await store.create(hold);
    // Expired by the sweep at expiry, then kept one more hour from then.
    expect(await store.sweepDue(hold.expiresAt as number, 10)).toHaveLength(1);
    await store.sweepDue((hold.expiresAt as number) + HOUR, 10);
    expect(await store.get(hold.id, (hold.expiresAt as number) + HOUR - 1)).toBeNull();
  });
});

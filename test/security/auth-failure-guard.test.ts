import { RateLimiterMemory } from 'rate-limiter-flexible';
import { silentLogger } from '../../src/platform/logger';
import { authFailureGuard } from '../../src/pos/security/rate-limits';

describe('authFailureGuard', () => {
  it('reads the shared count only for an address that failed on this instance within the window', async () => {
    const shared = new RateLimiterMemory({ points: 3, duration: 60 });
    let t = 1_000_000;
    const here = authFailureGuard(shared, silentLogger, () => t);
    const elsewhere = authFailureGuard(shared, silentLogger, () => t);

    // Three failures seen by another instance put the address over the fleet-wide limit.
    for (let i = 0; i < 3; i++) await elsewhere.record('10.0.0.9');
    expect(await elsewhere.blockedFor('10.0.0.9')).toBeGreaterThan(0);

    // This instance has not seen it fail: no shared read, one more try is allowed here...
    expect(await here.blockedFor('10.0.0.9')).toBeUndefined();
    // ...and once it fails here too, this instance refuses it like the others.
    await here.record('10.0.0.9');
    expect(await here.blockedFor('10.0.0.9')).toBeGreaterThan(0);

    // Past the window the local memory of the failure lapses.
    t += 61_000;
    expect(await here.blockedFor('10.0.0.9')).toBeUndefined();
  });

  it('never blocks an address that stays under the limit', async () => {
    const guard = authFailureGuard(new RateLimiterMemory({ points: 3, duration: 60 }), silentLogger);
    await guard.record('10.0.0.1');
    await guard.record('10.0.0.1');
    expect(await guard.blockedFor('10.0.0.1')).toBeUndefined();
    await guard.record('10.0.0.1');
    expect(await guard.blockedFor('10.0.0.1')).toBeGreaterThan(0);
  });
});

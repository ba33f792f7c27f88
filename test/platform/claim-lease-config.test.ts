import { loadConfig, type ConfigError } from '../../src/platform/config';
import { claimLeaseSecondsOf } from '../../src/platform/settings/money';

/*
 * The claim lease's promise (a claim whose lease is over has no write of its
 * taker in flight) is checked at start-up against the upstream calls' timeout
 * and retries, with room for several calls.
 */
const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return '';
  } catch (err) {
    return (err as ConfigError).message;
  }
};

describe('a claim lease outlasts several upstream calls with their retries', () => {
  it('refuses a lease shorter than three calls with their retries, naming the settings', () => {
    // 3 calls x 5 s x (2 + 1) = 45 s.
    const message = problems({ CLAIM_LEASE_SECONDS: '44', LOYALTY_TIMEOUT_MS: '5000', LOYALTY_RETRIES: '2' });
    expect(message).toContain('CLAIM_LEASE_SECONDS: 44 s is too short for LOYALTY_TIMEOUT_MS=5000 with LOYALTY_RETRIES=2');
    expect(message).toContain('at least 45 s');
    expect(problems({ CLAIM_LEASE_SECONDS: '45', LOYALTY_TIMEOUT_MS: '5000', LOYALTY_RETRIES: '2' })).toBe('');
  });

  it('accepts the defaults; unset, the lease follows a long timeout; set, it must outlast it', () => {
    expect(problems({})).toBe('');
    expect(claimLeaseSecondsOf(loadConfig({}).money, loadConfig({}).loyalty)).toBe(120);
    // 3 calls x 60 s x (2 + 1) = 540 s.
    const long = loadConfig({ LOYALTY_TIMEOUT_MS: '60000' });
    expect(claimLeaseSecondsOf(long.money, long.loyalty)).toBe(540);
    expect(problems({ LOYALTY_TIMEOUT_MS: '60000', CLAIM_LEASE_SECONDS: '120' })).toContain('CLAIM_LEASE_SECONDS');
    expect(problems({ LOYALTY_TIMEOUT_MS: '60000', CLAIM_LEASE_SECONDS: '540' })).toBe('');
  });
});

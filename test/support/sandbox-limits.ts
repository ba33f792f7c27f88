import type { AccountSettingsInput } from '../../src/sandbox';

/**
 * What every test sandbox account gets unless its test is about limits: the
 * published limits still enforced (so the path runs) but raised out of reach,
 * since tests send bursts a real account never would. Tests about limits set
 * `rateLimits` themselves (test/sandbox/rate-limits.test.ts).
 */
export const LIMITS_OUT_OF_REACH: NonNullable<AccountSettingsInput['rateLimits']> = { enforced: true, multiplier: 10_000 };

import { PUBLISHED_LIMITS, QUOTA_WINDOW_SECONDS } from '../../src/contract';
import { ConfigError, loadConfig } from '../../src/platform/config';

/** The budget's settings: the published table by default, every figure settable, priorities that cannot be inverted. */
function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return '';
}

it('defaults to the published rate and quota of every bucket, over the published window', () => {
  const { budget } = loadConfig({}).upstream;
  expect(budget.limits).toEqual(Object.fromEntries(Object.entries(PUBLISHED_LIMITS).map(([b, l]) => [b, { rate: l.rate, quota: l.quota }])));
  expect(budget.windowMs).toBe(QUOTA_WINDOW_SECONDS * 1000);
  expect(budget.priorities).toEqual({
    secondLeg: { reservePercent: 0, maxWaitMs: 1000 },
    cashier: { reservePercent: 10, reservePercentIn: { orders: 5 }, maxWaitMs: 250 },
    background: { reservePercent: 30, maxWaitMs: 50 },
  });
});

it('reads each figure from its own variable', () => {
  const { budget, pauses } = loadConfig({
    UPSTREAM_RATE_CUSTOMERS_WRITE: '7',
    UPSTREAM_QUOTA_CUSTOMERS_WRITE: '70',
    UPSTREAM_QUOTA_WINDOW_SECONDS: '10',
    UPSTREAM_429_MAX_PAUSE_SECONDS: '5',
  }).upstream;
  expect(budget.limits.customersWrite).toEqual({ rate: 7, quota: 70 });
  expect(budget.limits.customersRead).toEqual({ rate: 100, quota: 1200 });
  expect(budget.windowMs).toBe(10_000);
  expect(pauses).toEqual({ pauseWithoutRetryAfterMs: 1000, maxPauseMs: 5000 });
});

it('refuses settings that would put a lower priority ahead of a higher one, naming them', () => {
  expect(problems({ UPSTREAM_SECOND_LEG_RESERVE_PERCENT: '40' })).toMatch(
    /UPSTREAM_BACKGROUND_RESERVE_PERCENT: must be at least UPSTREAM_SECOND_LEG_RESERVE_PERCENT/,
  );
  expect(problems({ UPSTREAM_BACKGROUND_MAX_WAIT_MS: '500' })).toMatch(
    /UPSTREAM_BACKGROUND_MAX_WAIT_MS <= UPSTREAM_MAX_WAIT_MS <= UPSTREAM_SECOND_LEG_MAX_WAIT_MS/,
  );
  expect(problems({ UPSTREAM_SECOND_LEG_RESERVE_PERCENT: '95' })).toMatch(/UPSTREAM_SECOND_LEG_RESERVE_PERCENT/);
  expect(problems({ UPSTREAM_QUOTA_EVENTS: '-1' })).toMatch(/UPSTREAM_QUOTA_EVENTS/);
  expect(problems({})).toBe('');
});

import { nonNegativeInt, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

/** A published limit group's calls per second, for the whole fleet. */
const fleetRate = (variable: string, group: string, perSecond: number) =>
  setting(variable, nonNegativeInt.max(100_000).default(perSecond), {
    description:
      `Calls per second the whole fleet of BFF instances may send in the ${group} limit group ` +
      '(shared through Redis; per instance without it); 0 = no limit.',
  });

export const upstream = feature({
  title: 'Upstream protection (circuit breaker and fleet rate limiter around the loyalty service)',
  settings: {
    breaker: {
      failureThreshold: setting('BREAKER_FAILURE_THRESHOLD', positiveInt.max(10_000).default(5), {
        description: 'Consecutive failed calls (no answer, timeout, 5xx) that open the circuit breaker (per instance).',
      }),
      halfOpenAfterMs: setting('BREAKER_HALF_OPEN_AFTER_MS', positiveInt.max(3_600_000).default(10_000), {
        description: 'How long the circuit stays open before one probe call is let through, in milliseconds.',
      }),
    },
    rateLimits: {
      transactions: fleetRate('UPSTREAM_RATE_LIMIT_TRANSACTIONS', 'transactions', 30),
      coupons: fleetRate('UPSTREAM_RATE_LIMIT_COUPONS', 'coupons', 30),
      orders: fleetRate('UPSTREAM_RATE_LIMIT_ORDERS', 'orders', 30),
      customers: fleetRate('UPSTREAM_RATE_LIMIT_CUSTOMERS', 'customers', 100),
      events: fleetRate('UPSTREAM_RATE_LIMIT_EVENTS', 'events', 100),
    },
    rateMaxWaitMs: setting('UPSTREAM_RATE_MAX_WAIT_MS', nonNegativeInt.max(60_000).default(250), {
      description:
        'How long a call waits for its slot before it is refused (a read answers 503 with Retry-After, a write is queued ' +
        'in the outbox), in milliseconds (0..60000).',
    }),
  },
});

export type UpstreamSettings = SliceOf<typeof upstream>;

import { LimitBucket, PUBLISHED_LIMITS, QUOTA_WINDOW_SECONDS } from '../../contract/rate-limits';
import { nonNegativeInt, positiveInt } from './values';
import { feature, setting, type Setting, type SliceOf } from './define';

const BUCKETS = Object.keys(PUBLISHED_LIMITS) as LimitBucket[];

/** `transactionsRead` -> `TRANSACTIONS_READ`. */
const envName = (bucket: LimitBucket) => bucket.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** One setting per published bucket, its default the published figure. */
function perBucket<S extends Setting>(make: (bucket: LimitBucket) => S): Record<LimitBucket, S> {
  return Object.fromEntries(BUCKETS.map((b) => [b, make(b)])) as Record<LimitBucket, S>;
}

const rates = perBucket((b) =>
  setting(`UPSTREAM_RATE_${envName(b)}`, nonNegativeInt.max(100_000).default(PUBLISHED_LIMITS[b].rate), {
    description: `Calls per second the whole fleet may send in the published "${PUBLISHED_LIMITS[b].row}" limit (shared through Redis; per instance without it); 0 = no limit.`,
  }),
);

const quotas = perBucket((b) =>
  setting(`UPSTREAM_QUOTA_${envName(b)}`, nonNegativeInt.max(10_000_000).default(PUBLISHED_LIMITS[b].quota), {
    description: `Calls per UPSTREAM_QUOTA_WINDOW_SECONDS the whole fleet may send in the published "${PUBLISHED_LIMITS[b].row}" limit; 0 = no quota.`,
  }),
);

const percent = nonNegativeInt.max(90);

export const upstream = feature({
  title: "Upstream protection (circuit breaker; the fleet's budget that keeps calls inside the loyalty service's published limits)",
  notes: [
    'Every call counts against one published bucket (src/contract/rate-limits.ts), both its rate and its quota. When ' +
      'budget is short, the second leg of a checkout (a payment naming a redemption or coupon lock, the OTP step) goes ' +
      'first, then other cashier calls, then background work (outbox, sweepers, repairs, refreshes).',
  ],
  settings: {
    breaker: {
      failureThreshold: setting('BREAKER_FAILURE_THRESHOLD', positiveInt.max(10_000).default(5), {
        description: 'Consecutive failed calls (no answer, timeout, 5xx) that open the circuit breaker (per instance).',
      }),
      halfOpenAfterMs: setting('BREAKER_HALF_OPEN_AFTER_MS', positiveInt.max(3_600_000).default(10_000), {
        description: 'How long the circuit stays open before one probe call is let through, in milliseconds.',
      }),
    },
    rates,
    quotas,
    quotaWindowSeconds: setting('UPSTREAM_QUOTA_WINDOW_SECONDS', positiveInt.max(3600).default(QUOTA_WINDOW_SECONDS), {
      description: 'The window the UPSTREAM_QUOTA_* figures count over, in seconds (the published one is 30).',
    }),
    secondLegReservePercent: setting('UPSTREAM_SECOND_LEG_RESERVE_PERCENT', percent.default(10), {
      description:
        "Per cent of each bucket's quota kept for the second leg of a checkout already under way: other cashier calls " + 'stop short of it (0..90).',
    }),
    ordersSecondLegReservePercent: setting('UPSTREAM_ORDERS_SECOND_LEG_RESERVE_PERCENT', percent.default(5), {
      description:
        'UPSTREAM_SECOND_LEG_RESERVE_PERCENT in the Orders bucket. A second leg there is a sale recorded as an order ' +
        "(SALES_RECORDED_AS=order) after its hold, and a hold is only placed while a till's call still finds room in Orders, " +
        'so the reserve needs to cover only the sales of holds placed in the moment before Orders filled (0..90).',
    }),
    backgroundReservePercent: setting('UPSTREAM_BACKGROUND_RESERVE_PERCENT', percent.default(30), {
      description:
        "Per cent of each bucket's quota that work nobody waits for (outbox deliveries, sweepers, repairs, refreshes, " +
        'batch jobs) leaves to tills; at least UPSTREAM_SECOND_LEG_RESERVE_PERCENT (0..90).',
    }),
    secondLegMaxWaitMs: setting('UPSTREAM_SECOND_LEG_MAX_WAIT_MS', nonNegativeInt.max(60_000).default(1000), {
      description: 'How long a second leg of a checkout may wait for budget before it is refused (503 upstream_busy), in milliseconds.',
    }),
    cashierMaxWaitMs: setting('UPSTREAM_MAX_WAIT_MS', nonNegativeInt.max(60_000).default(250), {
      description:
        "How long any other till's call may wait for budget before it is refused (a read answers 503 upstream_busy with " +
        'Retry-After, a sale or refund is queued in the outbox), in milliseconds (0..60000).',
    }),
    backgroundMaxWaitMs: setting('UPSTREAM_BACKGROUND_MAX_WAIT_MS', nonNegativeInt.max(60_000).default(50), {
      description: 'How long background work may wait for budget before it is put off (and tried again later), in milliseconds.',
    }),
    limitMarginMs: setting('UPSTREAM_LIMIT_MARGIN_MS', nonNegativeInt.max(5000).default(100), {
      description:
        'How much later than planned a call may reach the loyalty service (timers, the network), in milliseconds: the budget ' +
        'counts each second and each quota window this much longer, so calls paced at the full rate are not refused there (0..5000).',
    }),
    pauseWithoutRetryAfterMs: setting('UPSTREAM_429_PAUSE_MS', nonNegativeInt.max(600_000).default(1000), {
      description: 'How long a 429 from the loyalty service without a Retry-After pauses its bucket, fleet-wide, in milliseconds.',
    }),
    maxPauseSeconds: setting('UPSTREAM_429_MAX_PAUSE_SECONDS', positiveInt.max(3600).default(60), {
      description: "The longest pause a 429's Retry-After may set for its bucket, fleet-wide, in seconds.",
    }),
  },
  read: (v, _deployment, problems) => {
    if (v.backgroundReservePercent < Math.max(v.secondLegReservePercent, v.ordersSecondLegReservePercent))
      problems.push(
        'UPSTREAM_BACKGROUND_RESERVE_PERCENT: must be at least UPSTREAM_SECOND_LEG_RESERVE_PERCENT and UPSTREAM_ORDERS_SECOND_LEG_RESERVE_PERCENT (background work leaves the most)',
      );
    if (!(v.backgroundMaxWaitMs <= v.cashierMaxWaitMs && v.cashierMaxWaitMs <= v.secondLegMaxWaitMs))
      problems.push('UPSTREAM_BACKGROUND_MAX_WAIT_MS <= UPSTREAM_MAX_WAIT_MS <= UPSTREAM_SECOND_LEG_MAX_WAIT_MS: a lower priority may not wait longer');
    return {
      breaker: v.breaker,
      budget: {
        limits: Object.fromEntries(BUCKETS.map((b) => [b, { rate: v.rates[b], quota: v.quotas[b] }])) as Record<LimitBucket, { rate: number; quota: number }>,
        windowMs: v.quotaWindowSeconds * 1000,
        marginMs: v.limitMarginMs,
        priorities: {
          secondLeg: { reservePercent: 0, maxWaitMs: v.secondLegMaxWaitMs },
          cashier: { reservePercent: v.secondLegReservePercent, reservePercentIn: { orders: v.ordersSecondLegReservePercent }, maxWaitMs: v.cashierMaxWaitMs },
          background: { reservePercent: v.backgroundReservePercent, maxWaitMs: v.backgroundMaxWaitMs },
        },
      },
      pauses: { pauseWithoutRetryAfterMs: v.pauseWithoutRetryAfterMs, maxPauseMs: v.maxPauseSeconds * 1000 },
    };
  },
});

export type UpstreamSettings = SliceOf<typeof upstream>;

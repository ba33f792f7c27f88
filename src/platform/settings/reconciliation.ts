import { z } from 'zod';
import { positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

/** An IANA time zone this runtime knows. */
const TimeZone = z.string().refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  },
  { error: 'an IANA time zone such as UTC or Africa/Cairo' },
);

export const reconciliation = feature({
  title: 'End-of-day reconciliation against the loyalty service',
  settings: {
    timeZone: setting('STORE_TIME_ZONE', TimeZone.default('UTC'), {
      description: "The stores' time zone (IANA name): where a store's day begins and ends for its reconciliation, and the times it prints.",
    }),
    dailyAt: setting(
      'RECONCILIATION_DAILY_AT',
      z
        .string()
        .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'HH:MM, 24-hour')
        .optional(),
      {
        description:
          'When to reconcile the day before of every store, HH:MM in STORE_TIME_ZONE (one instance of the fleet runs it); unset: ' +
          'never by itself (the route and the terminal CLI still do it on demand).',
        default: 'unset (off)',
        readme: 'the daily reconciliation of every store (HH:MM, the day before); unset: only on demand',
      },
    ),
    reportDir: setting('RECONCILIATION_REPORT_DIR', z.string().min(1).default('reports'), {
      description: "Where the daily job writes each store's report (JSON, CSV and the 40-column printout), one set of files per store and day.",
    }),
    concurrency: setting('RECONCILIATION_CONCURRENCY', positiveInt.max(16).default(2), {
      description:
        "Reads of the loyalty service's records a reconciliation makes at once (1..16); they are sent at background priority, " +
        'within the fleet rate limit, after the tills.',
    }),
  },
});

export type ReconciliationSettings = SliceOf<typeof reconciliation>;

import { positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const outbox = feature({
  title: 'Outbox (store-and-forward of writes while the loyalty service is out of reach)',
  settings: {
    pollIntervalMs: setting('OUTBOX_POLL_INTERVAL_MS', positiveInt.max(60_000).default(500), {
      description: 'How often an idle delivery worker looks for due entries, in milliseconds (1..60000).',
    }),
    concurrency: setting('OUTBOX_CONCURRENCY', positiveInt.max(256).default(8), {
      description: 'Deliveries one instance runs at once, each for a different customer (1..256).',
    }),
    claimIdleMs: setting('OUTBOX_CLAIM_IDLE_MS', positiveInt.min(100).max(3_600_000).default(30_000), {
      description:
        "A delivering instance's lease on a customer's queue (renewed while it delivers), and how long entries of an " +
        'instance that died stay idle before another instance claims them, in milliseconds (100..3600000).',
    }),
    maxAttempts: setting('OUTBOX_MAX_ATTEMPTS', positiveInt.max(100_000).default(50), {
      description:
        'Sends after which an entry that still fails moves to the dead letters (refusals by our own circuit breaker or ' +
        'rate limiter, and 429s, do not count: nothing was sent).',
    }),
    backoffBaseMs: setting('OUTBOX_BACKOFF_BASE_MS', positiveInt.max(3_600_000).default(1000), {
      description: 'The first wait between sends of one entry, in milliseconds; it doubles (jittered) up to OUTBOX_BACKOFF_MAX_MS.',
    }),
    backoffMaxMs: setting('OUTBOX_BACKOFF_MAX_MS', positiveInt.max(86_400_000).default(300_000), {
      description: 'The longest wait between sends of one entry, in milliseconds (never below OUTBOX_BACKOFF_BASE_MS).',
    }),
    statusTtlSeconds: setting(
      'OUTBOX_STATUS_TTL_HOURS',
      positiveInt
        .max(24 * 366)
        .default(168)
        .transform((hours) => hours * 3600),
      {
        description: 'How long the record of a delivered or discarded entry stays for GET /pos/v1/outbox/:id, in hours.',
        default: '168 (7 days)',
      },
    ),
  },
  read: (outbox) => ({ ...outbox, backoffMaxMs: Math.max(outbox.backoffMaxMs, outbox.backoffBaseMs) }),
});

export type OutboxSettings = SliceOf<typeof outbox>;

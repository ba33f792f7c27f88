import { positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const idempotency = feature({
  title: 'Idempotency keys',
  settings: {
    ttlMs: setting(
      'IDEMPOTENCY_TTL_HOURS',
      positiveInt
        .max(24 * 30)
        .default(24)
        .transform((hours) => hours * 3_600_000),
      {
        description: 'How long the first answer to an Idempotency-Key is replayed, in hours (1..720).',
      },
    ),
    leaseMs: setting('IDEMPOTENCY_LEASE_MS', positiveInt.min(200).max(600_000).default(30_000), {
      description:
        'How long a running request holds its Idempotency-Key before a crashed one frees it, in milliseconds (renewed ' +
        'every third of it while the request runs; 200..600000).',
    }),
  },
});

export type IdempotencySettings = SliceOf<typeof idempotency>;

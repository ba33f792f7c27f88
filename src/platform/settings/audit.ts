import { z } from 'zod';
import { bool, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const audit = feature({
  title: 'Audit trail (every cashier action that changes money or points, per store)',
  notes: ['With REDIS_URL (or a cluster or sentinels) one Redis Stream per store; without, process memory (one instance, lost on restart).'],
  settings: {
    retentionDays: setting('AUDIT_RETENTION_DAYS', positiveInt.max(3660).default(400), {
      description:
        'How long audit entries are kept, in days (1..3660); older ones are trimmed as new ones are written. Keep it at least ' +
        'as long as your chain must answer "who did this?" about a disputed sale.',
      readme: 'how long the audit trail keeps each cashier action (`GET /pos/v1/audit`)',
    }),
    cashierRequired: setting('CASHIER_ID_REQUIRED', bool.default(false), {
      description:
        'Whether tills must send X-Cashier-Id and X-Shift-Id on every request that changes something (400 cashier_required ' +
        'naming the header otherwise), for stores whose "requireCashier" in the terminals file does not say. Kiosks never need them.',
      readme: 'tills must name the cashier and shift (`X-Cashier-Id`, `X-Shift-Id`) on every write, unless the store says otherwise in the terminals file',
    }),
    pseudonymKey: setting('CUSTOMER_PSEUDONYM_KEY', z.string().min(32).optional(), {
      description:
        "The key of erased customers' pseudonyms (HMAC-SHA256 of the customer id), at least 32 characters, the same on every instance; " +
        'never give it to a till. Unset: derived from LOYALTY_SECRET_KEY, so it changes when that key does: set it before rotating ' +
        'the loyalty keys, or an erased customer erased again gets a second pseudonym (docs/operator/privacy.md).',
      default: 'derived from LOYALTY_SECRET_KEY',
      readme: "the key of erased customers' pseudonyms in the audit trail and the money's records",
    }),
    erasureSecondPassSeconds: setting('ERASURE_SECOND_PASS_SECONDS', positiveInt.max(3600).default(120), {
      description:
        "Seconds after a customer's deletion when the instance that deleted them erases again what names them: the deletion's own " +
        'kept answer (Idempotency-Key) and anything a request in flight at the deletion wrote after it (1..3600).',
    }),
  },
});

export type AuditSettings = SliceOf<typeof audit>;

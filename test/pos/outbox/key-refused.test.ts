import { judgeFailure, type OutboxEntry } from '../../../src/pos/outbox';
import { keyRefused } from '../../../src/upstream/keys';
import { fromUpstreamStatus } from '../../../src/upstream/errors';
import { anEntry, paymentWork, T0 } from './harness';

/**
 * A queued write refused for the loyalty keys waits for them to work, like an
 * outage: never a dead letter, its attempts not used up, tried again after the
 * key check's interval.
 */
const policy = { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 8000 };
const entry = (attempts: number): OutboxEntry => ({
  ...anEntry(paymentWork('ana', 'p1')),
  state: 'delivering',
  attempts,
  nextAttemptAt: 0,
  createdAt: T0,
  updatedAt: T0,
});

it('a key refusal on the last attempt is retried, uncounted, after its Retry-After', () => {
  const verdict = judgeFailure(keyRefused('current', 1001, 20), entry(policy.maxAttempts - 1), policy, T0, () => 0.5);
  expect(verdict).toMatchObject({ kind: 'retry', counted: false, error: { code: 'loyalty_key_refused', status: 503 } });
  expect((verdict as { nextAttemptAt: number }).nextAttemptAt).toBe(T0 + 20_000);
});

it('an event refused by something in front of the service (a 401 or 403 without a key code) certainly did nothing: retried, not a dead letter', () => {
  const events: OutboxEntry = { ...entry(0), work: { kind: 'events', request: { customerId: 'ana', events: { store_visit: {} } } } as OutboxEntry['work'] };
  const verdict = judgeFailure(fromUpstreamStatus('events', 401, { message: 'proxy says no' }, undefined), events, policy, T0, () => 0.5);
  expect(verdict).toMatchObject({ kind: 'retry', error: { code: 'upstream_auth_failed' } });
});

it('an event whose send may have landed (a 5xx) is a dead letter event_maybe_recorded, never retried', () => {
  const events: OutboxEntry = { ...entry(0), work: { kind: 'events', request: { customerId: 'ana', events: { store_visit: {} } } } as OutboxEntry['work'] };
  const verdict = judgeFailure(fromUpstreamStatus('events', 500, { message: 'failed' }, undefined), events, policy, T0, () => 0.5);
  expect(verdict).toMatchObject({ kind: 'dead', error: { code: 'event_maybe_recorded' } });
});

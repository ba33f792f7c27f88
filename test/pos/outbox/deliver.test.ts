import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError, UpstreamError } from '../../../src/platform/errors';
import { judgeFailure, OutboxEntry } from '../../../src/pos/outbox';
import { markNotDelivered, rateLimited } from '../../../src/upstream';
import { anEntry, paymentWork, T0 } from './harness';

const policy = { maxAttempts: 5, backoffBaseMs: 1000, backoffMaxMs: 8000 };
const entry = (attempts = 0): OutboxEntry => ({ ...anEntry(paymentWork('ana', 'p1')), state: 'delivering', attempts, nextAttemptAt: 0, createdAt: T0, updatedAt: T0 });
// random 0.5: "equal jitter" lands at 3/4 of the step.
const judge = (err: unknown, attempts = 0) => judgeFailure(err, entry(attempts), policy, T0, () => 0.5);

describe('what a failed delivery means', () => {
  it('a duplicate answer: delivered before (the upstream has it)', () => {
    expect(judge(new ConflictError('duplicate_transaction', 'dup', { loyaltyCode: 9004 }))).toEqual({ kind: 'delivered', result: { alreadyRecorded: true } });
  });

  it.each([
    ['no answer / 5xx', new ServiceUnavailableError('upstream_unavailable', 'down')],
    ['timeout', new ServiceUnavailableError('upstream_timeout', 'slow')],
    ['unreadable answer', new UpstreamError('upstream_invalid_response', '?')],
    ['our keys refused (configuration)', new UpstreamError('upstream_auth_failed', 'keys')],
  ])('%s: retried after a backoff, counted as an attempt', (_what, err) => {
    expect(judge(err)).toMatchObject({ kind: 'retry', counted: true, nextAttemptAt: T0 + 750, error: { code: err.code, status: err.status, at: T0 } });
  });

  it('the backoff doubles per attempt up to the cap', () => {
    const down = new ServiceUnavailableError('upstream_unavailable', 'down');
    const waits = [0, 1, 2, 3, 4, 5].map((a) => (judgeFailure(down, entry(a), { ...policy, maxAttempts: 100 }, T0, () => 0.5) as { nextAttemptAt: number }).nextAttemptAt - T0);
    expect(waits).toEqual([750, 1500, 3000, 6000, 6000, 6000]);
  });

  it.each([
    ['the circuit is open', markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'open', { retryAfterSeconds: 10 })), 10_000],
    ['over the fleet rate limit (or a 429)', rateLimited(0.5), 750],
    ['the call was aborted', new ServiceUnavailableError('upstream_call_aborted', 'stop'), 750],
  ])('%s: retried, not counted (nothing was sent), Retry-After honoured', (_what, err, wait) => {
    expect(judge(err, 2)).toMatchObject({ kind: 'retry', counted: false, nextAttemptAt: T0 + Math.max(wait, 1500) });
    expect(judge(err, 0)).toMatchObject({ kind: 'retry', counted: false, nextAttemptAt: T0 + wait });
  });

  it.each([
    ['refund of an unknown payment', new NotFoundError('original_transaction_not_found', 'nope', { loyaltyCode: 9005 })],
    ['customer not found', new NotFoundError('customer_not_found', 'nope', { loyaltyCode: 7000 })],
    ['an invalid value', new UnprocessableError('upstream_rejected', 'bad', { loyaltyCode: 3003 })],
    ['a request our client refuses to send', new BadRequestError('validation_failed', 'bad')],
  ])('%s: a dead letter', (_what, err) => {
    expect(judge(err)).toEqual({ kind: 'dead', error: { code: err.code, message: err.message, status: err.status, at: T0 } });
  });

  it('a bug: a dead letter without its text', () => {
    expect(judge(new TypeError('x is undefined'))).toEqual({ kind: 'dead', error: { code: 'internal_error', message: 'The delivery failed unexpectedly', at: T0 } });
  });

  it('the last allowed attempt failing: a dead letter saying so; uncounted refusals never kill an entry', () => {
    const down = new ServiceUnavailableError('upstream_unavailable', 'down');
    expect(judge(down, 3)).toMatchObject({ kind: 'retry' });
    expect(judge(down, 4)).toMatchObject({ kind: 'dead', error: { code: 'upstream_unavailable', message: 'down (gave up after 5 attempts)' } });
    expect(judge(rateLimited(1), 400)).toMatchObject({ kind: 'retry', counted: false });
  });
});

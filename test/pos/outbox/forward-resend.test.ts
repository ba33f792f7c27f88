import { isProblem, problem } from '../../../src/platform/problem';
import { silentLogger } from '../../../src/platform/logger';
import type { CallContext } from '../../../src/pos/context';
import { sendOrQueue, type OutboxDeps } from '../../../src/pos/outbox/forward';
import { MemoryOutboxStore } from '../../../src/pos/outbox/memory-store';
import type { OutboxWork } from '../../../src/pos/outbox/types';
import { markNotDelivered, rateLimited } from '../../../src/upstream';
import { fromTransportFailure, fromUpstreamStatus, invalidResponse, timedOut } from '../../../src/upstream/errors';

/**
 * Which failures queue which writes: events only when they certainly never
 * left; payments, refunds and batches (ids the service refuses twice) also
 * after a send that may have landed.
 */
const ctx = { requestId: 'req-1', identity: { store: { id: 'store-001' }, terminal: { id: 'till-1' } } } as unknown as CallContext;
const events = { kind: 'events', request: { customerId: 'c-1', events: { store_visit: {} } } } as unknown as OutboxWork;
const payment = { kind: 'payment', request: { customerId: 'c-1', paymentId: 'p-1' } } as unknown as OutboxWork;

const neverLeft: [string, () => Error][] = [
  ['an open circuit', () => markNotDelivered(problem('upstream_circuit_open', 'open'))],
  ['a refused connection', () => fromTransportFailure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9', 1000)],
  ['a 429', () => rateLimited(1)],
];
const mayHaveLanded: [string, () => Error][] = [
  ['a timeout', () => timedOut(1000)],
  ['a 5xx', () => fromUpstreamStatus('events', 503, undefined, undefined)],
  ['a reset connection', () => fromTransportFailure('ECONNRESET', 'socket hang up', 1000)],
];

async function attempt(work: OutboxWork, err: () => Error) {
  const deps: OutboxDeps = { outbox: new MemoryOutboxStore({ leaseMs: 5000, statusTtlSeconds: 3600 }), logger: silentLogger, clock: () => 1_000 };
  try {
    return { answer: await sendOrQueue(deps, ctx, work, {}, () => Promise.reject(err())), pending: (await deps.outbox.counts()).pending };
  } catch (thrown) {
    return { thrown, pending: (await deps.outbox.counts()).pending };
  }
}

it.each(neverLeft)('events are queued after %s (nothing was sent)', async (_what, err) => {
  const { answer, pending } = await attempt(events, err);
  expect(answer).toMatchObject({ queued: true, kind: 'events' });
  expect(pending).toBe(1);
});

it.each(mayHaveLanded)('events are answered event_maybe_recorded after %s, and not queued', async (_what, err) => {
  const { thrown, pending } = await attempt(events, err);
  expect(isProblem(thrown, 'event_maybe_recorded')).toBe(true);
  expect((thrown as { status: number; retryAfterSeconds?: number }).status).toBe(503);
  expect((thrown as { retryAfterSeconds?: number }).retryAfterSeconds).toBeUndefined();
  expect(pending).toBe(0);
});

it.each([...neverLeft, ...mayHaveLanded])('a payment is queued after %s (its id makes a copy harmless)', async (_what, err) => {
  const { answer, pending } = await attempt(payment, err);
  expect(answer).toMatchObject({ queued: true, kind: 'payment' });
  expect(pending).toBe(1);
});

it('an unreadable answer queues neither: events may have been recorded, a payment is left to its own outcome reader', async () => {
  const ev = await attempt(events, invalidResponse);
  expect(isProblem(ev.thrown, 'event_maybe_recorded')).toBe(true);
  const pay = await attempt(payment, invalidResponse);
  expect(isProblem(pay.thrown, 'upstream_invalid_response')).toBe(true);
  expect([ev.pending, pay.pending]).toEqual([0, 0]);
});

it('a refusal of events is passed on as it is', async () => {
  const { thrown, pending } = await attempt(events, () => fromUpstreamStatus('events', 400, { code: 3003, message: 'bad' }, undefined));
  expect(isProblem(thrown, 'upstream_rejected')).toBe(true);
  expect(pending).toBe(0);
});

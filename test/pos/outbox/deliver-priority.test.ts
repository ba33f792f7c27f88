import { type OutboxEntry, type OutboxWork, send } from '../../../src/pos/outbox';
import type { CallInfo, CallPolicy } from '../../../src/upstream';
import { bodies, batchRequest, eventRequest, refundRequest } from '../../upstream/fixtures';
import { json, loyaltyError, makeClient, useTestUpstream } from '../../upstream/test-upstream';
import { anEntry, paymentWork, T0 } from './harness';

const upstream = useTestUpstream();

const entry = (work: OutboxWork): OutboxEntry => ({ ...anEntry(work), state: 'delivering', attempts: 0, nextAttemptAt: 0, createdAt: T0, updatedAt: T0 });

/**
 * The outbox is work nobody waits for: every call a delivery makes, and the
 * record reads after a duplicate answer, goes at background priority, so it
 * only takes budget the tills leave free.
 */
describe('outbox deliveries ask for background budget', () => {
  it.each<[string, OutboxWork]>([
    ['a sale, and the record read after its duplicate answer', paymentWork('ana', 'p-1')],
    ['a refund', { kind: 'refund', request: refundRequest }],
    ['events', { kind: 'events', request: eventRequest }],
    ['a batch upload', { kind: 'batchOrders', request: batchRequest }],
  ])('%s', async (_what, work) => {
    const seen: CallInfo[] = [];
    const spy: CallPolicy = (info, next) => {
      seen.push(info);
      return next();
    };
    const { client } = makeClient(upstream, { retries: 0, policies: [spy] });
    if (work.kind === 'payment') upstream.script(loyaltyError(422, 9004, 'DuplicateTransaction', 'dup'), json(200, { transactions: [] }));
    else upstream.always(json(200, work.kind === 'refund' ? bodies.refund : work.kind === 'batchOrders' ? bodies.batchOrders : {}));
    await send(client, entry(work), async () => null).catch(() => undefined);
    client.close();
    expect(seen.length).toBeGreaterThanOrEqual(work.kind === 'payment' ? 2 : 1);
    expect(seen.map((i) => i.priority)).toEqual(seen.map(() => 'background'));
  });
});

import { ServiceUnavailableError } from '../../../src/platform/errors';
import { silentLogger } from '../../../src/platform/logger';
import type { CallContext } from '../../../src/pos/context';
import { sendOrQueue, type OutboxDeps } from '../../../src/pos/outbox/forward';
import { MemoryOutboxStore } from '../../../src/pos/outbox/memory-store';
import type { OutboxWork } from '../../../src/pos/outbox/types';
import type { LoyaltyCallContext } from '../../../src/upstream';

/**
 * sendOrQueue's `first` (a sale's store record): made in the precondition's
 * round trip, and nothing is sent or queued before it is done; when it fails,
 * nothing is sent or queued at all.
 */
const ctx = { requestId: 'req-1', identity: { store: { id: 'store-001' }, terminal: { id: 'till-1' } } } as unknown as CallContext;
const work = { kind: 'payment', request: { customerId: 'c-1', paymentId: 'p-1' } } as unknown as OutboxWork;

function setup() {
  const outbox = new MemoryOutboxStore({ leaseMs: 5000, statusTtlSeconds: 3600 });
  const deps: OutboxDeps = { outbox, logger: silentLogger, clock: () => 1_000 };
  return { outbox, deps };
}

/** As the loyalty client: the precondition starts with the first attempt; a policy may refuse before it is awaited. */
const refusedByPolicy = async (call: LoyaltyCallContext): Promise<never> => {
  void call.precondition?.().catch(() => undefined);
  throw new ServiceUnavailableError('upstream_circuit_open', 'open');
};

it('sends only once `first` is done', async () => {
  const { deps } = setup();
  const order: string[] = [];
  const sent = await sendOrQueue(
    deps,
    ctx,
    work,
    {},
    async (call) => {
      await call.precondition?.();
      order.push('sent');
      return 'ok';
    },
    {
      first: async () => {
        await new Promise((r) => setTimeout(r, 20));
        order.push('first');
      },
    },
  );
  expect([sent, order]).toEqual(['ok', ['first', 'sent']]);
});

it('a failed `first` ends the write: nothing sent, nothing queued, its own error', async () => {
  const { deps, outbox } = setup();
  let sent = false;
  const failing = () => Promise.reject(new ServiceUnavailableError('redis_unavailable', 'sale records down'));
  await expect(
    sendOrQueue(
      deps,
      ctx,
      work,
      {},
      async (call) => {
        await call.precondition?.();
        sent = true;
      },
      { first: failing },
    ),
  ).rejects.toMatchObject({ code: 'redis_unavailable' });
  await expect(sendOrQueue(deps, ctx, work, {}, refusedByPolicy, { first: failing })).rejects.toMatchObject({ code: 'redis_unavailable' });
  expect(sent).toBe(false);
  expect(await outbox.hasPending('customer:c-1')).toBe(false);
});

it('a call refused before its precondition was awaited is queued only after `first` is done', async () => {
  const { deps, outbox } = setup();
  let done = false;
  const queued = await sendOrQueue(deps, ctx, work, { paymentId: 'p-1' }, refusedByPolicy, {
    first: async () => {
      await new Promise((r) => setTimeout(r, 20));
      done = true;
    },
  });
  expect(queued).toMatchObject({ queued: true, reason: 'upstream_circuit_open', paymentId: 'p-1' });
  expect(done).toBe(true);
  expect(await outbox.hasPending('customer:c-1')).toBe(true);
});

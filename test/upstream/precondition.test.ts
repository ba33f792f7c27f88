import type { CallPolicy } from '../../src/upstream';
import { rateLimited } from '../../src/upstream/errors';
import { bodies, paymentRequest, reads } from './fixtures';
import { failure, json, makeClient, useTestUpstream } from './test-upstream';

/**
 * A call's precondition (the outbox's "nothing queued for this customer"):
 * started with the first attempt's policies, awaited before anything is sent,
 * and a refusal ends the call with nothing sent.
 */
const upstream = useTestUpstream();

it('is started in the same tick as the policies, and nothing is sent until it passes', async () => {
  const order: string[] = [];
  const policy: CallPolicy = (info, next) => {
    order.push(`policy ${info.attempt}`);
    return next();
  };
  let pass!: () => void;
  const { client } = makeClient(upstream, { policies: [policy] });
  upstream.script(json(200, bodies.payment));
  const call = client.payment(paymentRequest, {
    precondition: () => {
      order.push('precondition');
      return new Promise<void>((resolve) => (pass = resolve));
    },
  });
  expect(order).toEqual(['precondition', 'policy 1']);
  await new Promise((r) => setTimeout(r, 50));
  expect(upstream.seen).toHaveLength(0);
  pass();
  await expect(call).resolves.toEqual(reads.payment);
  client.close();
  expect(upstream.seen).toHaveLength(1);
});

it('a refusal ends the call with its own error, nothing sent, no retry', async () => {
  const { client } = makeClient(upstream, { retries: 3 });
  upstream.script(json(200, bodies.payment));
  class Queued extends Error {}
  const err = await failure(() => client.payment(paymentRequest, { precondition: () => Promise.reject(new Queued('behind')) }));
  client.close();
  expect(err).toBeInstanceOf(Queued);
  expect(upstream.seen).toHaveLength(0);
});

it('is made once: an attempt a policy refused before it was awaited is retried, and the retry waits for it too', async () => {
  let refusals = 1;
  const limiter: CallPolicy = async (_info, next) => {
    if (refusals-- > 0) throw rateLimited(0.001);
    return next();
  };
  let made = 0;
  const { client, delays } = makeClient(upstream, { policies: [limiter] });
  upstream.script(json(200, bodies.payment));
  await expect(
    client.payment(paymentRequest, {
      precondition: async () => {
        made += 1;
      },
    }),
  ).resolves.toEqual(reads.payment);
  client.close();
  expect(made).toBe(1);
  expect(delays).toEqual([1]);
  expect(upstream.seen).toHaveLength(1);

  // A refusal found on the retry still stops it.
  refusals = 1;
  const again = makeClient(upstream, { policies: [limiter] });
  const err = await failure(() => again.client.payment(paymentRequest, { precondition: () => Promise.reject(new Error('behind')) }));
  again.client.close();
  expect(err.message).toBe('behind');
  expect(upstream.seen).toHaveLength(1);
});

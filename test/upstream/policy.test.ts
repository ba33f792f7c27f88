import { ServiceUnavailableError } from '../../src/platform/errors';
import { CallInfo, CallPolicy, composePolicies, markNotDelivered, rateLimited, upstreamFailureKind } from '../../src/upstream';
import { bodies, holdRequest } from './fixtures';
import { failure, json, loyaltyError, makeClient, useTestUpstream } from './test-upstream';

const upstream = useTestUpstream();

it('policies wrap every attempt, outermost first, and see what the breaker and limiter need', async () => {
  const trace: string[] = [];
  const infos: CallInfo[] = [];
  const tag =
    (name: string): CallPolicy =>
    async (info, next) => {
      trace.push(`${name}>`);
      infos.push(info);
      try {
        return await next();
      } catch (err) {
        trace.push(`${name}!${upstreamFailureKind(err)}`);
        throw err;
      } finally {
        trace.push(`<${name}`);
      }
    };
  const { client } = makeClient(upstream, { policies: [tag('breaker'), tag('limiter')] });
  upstream.script(loyaltyError(503, 5000, 'InternalError', 'down'), json(200, bodies.coupons));
  await client.coupons('c-1', { requestId: 'rq-p', priority: 'background' });
  client.close();
  expect(trace).toEqual([
    'breaker>',
    'limiter>',
    'limiter!unavailable',
    '<limiter',
    'breaker!unavailable',
    '<breaker',
    'breaker>',
    'limiter>',
    '<limiter',
    '<breaker',
  ]);
  // The customer's coupon list is a customer read in the published table; the priority is the caller's.
  expect(infos.filter((_, i) => i % 2 === 0).map((i) => [i.operation, i.method, i.bucket, i.priority, i.attempt, i.requestId])).toEqual([
    ['coupons', 'GET', 'customersRead', 'background', 1, 'rq-p'],
    ['coupons', 'GET', 'customersRead', 'background', 2, 'rq-p'],
  ]);
});

it('an open breaker refuses without sending, is "unavailable" to the outbox, and is not retried', async () => {
  let calls = 0;
  const breaker: CallPolicy = async () => {
    calls += 1;
    throw markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'The loyalty service is unavailable; try again shortly'));
  };
  const { client, delays } = makeClient(upstream, { policies: [breaker] });
  const err = await failure(() => client.balance('c-1'));
  client.close();
  expect(err.code).toBe('upstream_circuit_open');
  expect(upstreamFailureKind(err)).toBe('unavailable');
  expect(calls).toBe(1);
  expect(delays).toEqual([]);
  expect(upstream.seen).toHaveLength(0);
});

it('a policy refusing with a short 429 is waited out, even for a hold (nothing was sent)', async () => {
  let refused = false;
  const limiter: CallPolicy = async (_info, next) => {
    if (!refused) {
      refused = true;
      throw rateLimited(1);
    }
    return next();
  };
  const { client, delays } = makeClient(upstream, { policies: [limiter] });
  upstream.script(json(200, bodies.hold));
  await expect(client.hold(holdRequest)).resolves.toEqual(bodies.hold);
  client.close();
  expect(delays).toEqual([1000]);
  expect(upstream.seen).toHaveLength(1);
});

it('composePolicies with none just runs the call', async () => {
  await expect(composePolicies([])({} as CallInfo, async () => 7)).resolves.toBe(7);
});

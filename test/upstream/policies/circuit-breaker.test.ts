import { ServiceUnavailableError } from '../../../src/platform/errors';
import { certainlyNotDelivered, upstreamFailureKind } from '../../../src/upstream';
import { BreakerState, CircuitBreaker } from '../../../src/upstream/policies';
import { bodies, reads } from '../fixtures';
import { drop, failure, json, loyaltyError, makeClient, useTestUpstream } from '../test-upstream';

const upstream = useTestUpstream();

const down = loyaltyError(503, 5000, 'InternalError', 'down');
const ok = json(200, bodies.balance);

function setup(threshold = 3, halfOpenAfterMs = 10_000) {
  let now = 1_000_000;
  const transitions: BreakerState[] = [];
  const breaker = new CircuitBreaker({ failureThreshold: threshold, halfOpenAfterMs, clock: () => now, onStateChange: (s) => transitions.push(s) });
  // retries 0: each client call is one attempt, so counts are easy to read.
  const { client } = makeClient(upstream, { retries: 0, policies: [breaker.policy] });
  return {
    breaker,
    client,
    transitions,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

it('opens after N consecutive failures, then fails fast without sending anything', async () => {
  const { breaker, client, transitions } = setup(3);
  upstream.always(down);
  for (let i = 0; i < 3; i++) expect((await failure(() => client.balance('c-1'))).code).toBe('upstream_unavailable');
  expect(breaker.state).toBe('open');
  expect(upstream.seen).toHaveLength(3);

  const fast = await failure(() => client.balance('c-1'));
  expect(fast).toBeInstanceOf(ServiceUnavailableError);
  expect(fast.code).toBe('upstream_circuit_open');
  expect(fast.retryAfterSeconds).toBe(10);
  expect(upstreamFailureKind(fast)).toBe('unavailable');
  expect(certainlyNotDelivered(fast)).toBe(true);
  for (let i = 0; i < 20; i++) await failure(() => client.balance('c-1'));
  expect(upstream.seen).toHaveLength(3);
  expect(transitions).toEqual(['open']);
  client.close();
});

it('a success between failures resets the count; refusals (4xx) count as the upstream being up', async () => {
  const { breaker, client } = setup(3);
  upstream.script(down, down, ok, down, down, loyaltyError(404, 7000, 'CustomerNotFound', 'no'), down, down);
  await failure(() => client.balance('c-1'));
  await failure(() => client.balance('c-1'));
  await client.balance('c-1');
  await failure(() => client.balance('c-1'));
  await failure(() => client.balance('c-1'));
  expect((await failure(() => client.balance('c-1'))).code).toBe('customer_not_found');
  await failure(() => client.balance('c-1'));
  await failure(() => client.balance('c-1'));
  expect(breaker.state).toBe('closed');
  expect(breaker.consecutiveFailures).toBe(2);
  expect(upstream.seen).toHaveLength(8);
  client.close();
});

it('dropped connections count as failures too', async () => {
  const { breaker, client } = setup(2);
  upstream.always(drop);
  await failure(() => client.balance('c-1'));
  await failure(() => client.balance('c-1'));
  expect(breaker.state).toBe('open');
  client.close();
});

it('half-opens after the delay: one probe goes out; its success closes the circuit', async () => {
  const { breaker, client, transitions, advance } = setup(2, 5000);
  upstream.always(down);
  await failure(() => client.balance('c-1'));
  await failure(() => client.balance('c-1'));
  advance(4999);
  expect((await failure(() => client.balance('c-1'))).retryAfterSeconds).toBe(1);
  expect(upstream.seen).toHaveLength(2);
  advance(1);
  expect(breaker.state).toBe('half_open');

  // The probe is held open by a slow answer; meanwhile other calls still fail fast.
  let release!: () => void;
  upstream.always((res, seen, req) => {
    release = () => ok(res, seen, req);
  });
  const probe = client.balance('c-1');
  while (upstream.seen.length < 3) await new Promise((r) => setImmediate(r));
  expect((await failure(() => client.balance('c-1'))).code).toBe('upstream_circuit_open');
  release();
  await expect(probe).resolves.toEqual(reads.balance);
  expect(breaker.state).toBe('closed');
  upstream.always(ok);
  await client.balance('c-1');
  expect(upstream.seen).toHaveLength(4);
  expect(transitions).toEqual(['open', 'half_open', 'closed']);
  client.close();
});

it('a failed probe opens the circuit for another full delay', async () => {
  const { breaker, client, transitions, advance } = setup(1, 1000);
  upstream.always(down);
  await failure(() => client.balance('c-1'));
  advance(1000);
  expect((await failure(() => client.balance('c-1'))).code).toBe('upstream_unavailable');
  expect(breaker.state).toBe('open');
  advance(999);
  expect((await failure(() => client.balance('c-1'))).code).toBe('upstream_circuit_open');
  expect(upstream.seen).toHaveLength(2);
  expect(transitions).toEqual(['open', 'half_open', 'open']);
  client.close();
});

it('refuses bad settings', () => {
  expect(() => new CircuitBreaker({ failureThreshold: 0, halfOpenAfterMs: 1 })).toThrow(RangeError);
  expect(() => new CircuitBreaker({ failureThreshold: 1, halfOpenAfterMs: 0 })).toThrow(RangeError);
});

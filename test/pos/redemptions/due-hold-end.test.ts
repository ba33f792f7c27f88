import pino from 'pino';
import type { LoyaltyClient } from '../../../src/upstream';
import { dueHoldGivenUpAt, endDueHold } from '../../../src/pos/redemptions/hold-outcome';
import { bodies } from '../../upstream/fixtures';
import { json, makeClient, useTestUpstream } from '../../upstream/test-upstream';
import { aHold, memoryHarness, redisHarness, T0, type StoreHarness } from './harness';

/*
 * A due hold nobody claimed whose record does not show it ended (used, a
 * state this BFF does not know, or no answer) is asked about at each look,
 * not for ever: past its end by another hold period it is recorded expired
 * with a warning naming what the record said, and never released upstream.
 * The loyalty client talks HTTP to a scripted upstream; the stores are real
 * (read at T0 below: a read past a hold's end ends it).
 */
const upstream = useTestUpstream();

describe.each([
  ['memory', memoryHarness],
  ['redis', redisHarness],
])('a due hold its record never shows ended (%s)', (_name, harness) => {
  let h: StoreHarness;
  let client: LoyaltyClient;
  let now: number;
  let warnings: Record<string, unknown>[];
  const deps = () => {
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line) as Record<string, unknown>) });
    return { loyalty: client, clock: () => now, logger, redemptions: h.store };
  };
  const hold = aHold({ createdAt: T0, expiresAt: T0 + 600_000 });

  beforeEach(async () => {
    h = await harness();
    client = makeClient(upstream, { retries: 0 }).client;
    warnings = [];
    await h.store.create(hold);
  });
  afterEach(async () => {
    await client.close();
    await h.cleanup();
  });

  it('gives up past its end by another hold period', () => {
    expect(dueHoldGivenUpAt(hold)).toBe(T0 + 1_200_000);
  });

  it.each([
    ['used', json(200, { ...bodies.holdLookup, state: 'Used' }), 'used'],
    ['in a state this BFF does not know', json(200, { ...bodies.holdLookup, state: 'Frozen' }), 'unknown'],
  ])('%s: left held until then, then recorded expired with a warning, never released', async (_case, answer, named) => {
    now = dueHoldGivenUpAt(hold) - 1;
    upstream.script(answer);
    expect(await endDueHold(deps(), hold)).toBe('unchanged');
    expect((await h.store.get(hold.id, T0))?.state).toBe('held');

    now += 1;
    upstream.script(answer);
    await endDueHold(deps(), hold);
    expect((await h.store.get(hold.id, T0))?.state).toBe('expired');
    expect(upstream.seen.map((s) => s.method)).toEqual(['GET', 'GET']);
    expect(warnings).toEqual([expect.objectContaining({ redemptionId: hold.id, upstreamState: expect.stringContaining(named) })]);
  });

  it('unanswered: tried again later until then, then recorded expired with a warning', async () => {
    now = dueHoldGivenUpAt(hold) - 1;
    await expect(endDueHold(deps(), hold)).rejects.toThrow();
    expect((await h.store.get(hold.id, T0))?.state).toBe('held');
    now += 1;
    await endDueHold(deps(), hold);
    expect((await h.store.get(hold.id, T0))?.state).toBe('expired');
    expect(upstream.seen.map((s) => s.method)).toEqual(['GET', 'GET']);
    expect(warnings).toEqual([expect.objectContaining({ redemptionId: hold.id, upstreamState: expect.stringContaining('no answer') })]);
  });
  it('still active upstream, but claimed by a payment meanwhile (another host): left to the payment, never released', async () => {
    now = (hold.expiresAt as number) - 1;
    upstream.script(json(200, { ...bodies.holdLookup, state: 'Active' }));
    // The payment's claim lands between the sweeper's look and its end (its host's clock behind this one's).
    const looked = client.holdLookup.bind(client);
    client.holdLookup = async (...args: Parameters<LoyaltyClient['holdLookup']>) => {
      const answer = await looked(...args);
      expect((await h.store.apply(hold.id, T0, 'pay', { args: { paymentId: 'P-other-host' } })).ok).toBe(true);
      return answer;
    };
    expect(await endDueHold(deps(), hold)).toBe('unchanged');
    expect((await h.store.get(hold.id, T0))?.state).toBe('paying');
    expect(upstream.seen.map((s) => s.method)).toEqual(['GET']);
  });

  it('still active upstream and nobody claimed it: recorded expired, then released', async () => {
    now = (hold.expiresAt as number) - 1;
    upstream.script(json(200, { ...bodies.holdLookup, state: 'Active' }), json(200, { success: true, message: 'released' }));
    expect(await endDueHold(deps(), hold)).toBe('expired');
    expect((await h.store.get(hold.id, T0))?.state).toBe('expired');
    expect(upstream.seen.map((s) => s.method)).toEqual(['GET', 'DELETE']);
  });
});

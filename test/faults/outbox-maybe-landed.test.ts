import { SALE_OPERATION, Stack, startStack } from '../support/e2e';
import { activity, eventually, faultsApplied, paymentsOf, pending, setFaults } from '../pos/outbox/stack-helpers';

/**
 * Only what certainly never left is sent again. The sandbox applies the write
 * and answers after the BFF has given up (a rule with `after`): events, which
 * carry no id the loyalty service could refuse a copy by, are answered
 * `event_maybe_recorded` and never queued; a queued event whose delivery times
 * out is a dead letter that cannot be retried; a payment, whose id the service
 * refuses twice, is queued and delivered once.
 */
const TIMEOUT_MS = 1500;
const LATE_MS = 4000;

describe('a write that may have landed is never sent again blind', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'redis',
      account: { eventRewards: { place_order: 10 } },
      env: {
        LOYALTY_TIMEOUT_MS: String(TIMEOUT_MS),
        LOYALTY_RETRIES: '0',
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_BASE_MS: '50',
        OUTBOX_BACKOFF_MAX_MS: '200',
        BREAKER_FAILURE_THRESHOLD: '10000',
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await setFaults(s, []);
  });

  const eventsSent = (customerId: string) =>
    s.sentUpstream().filter((x) => x.path.endsWith('/integrations/events') && (x.body as { customerId?: string }).customerId === customerId).length;
  const points = async (customerId: string) => (await s.balance(customerId)).availablePointsBalance;

  it('events answered after the BFF gave up: recorded once (10 points, not 20), the till told not to send them again, the day flags them', async () => {
    await s.seed('ml-ana', 0);
    const from = new Date(Date.now() - 60_000).toISOString();
    await setFaults(s, [{ operation: 'events', after: true, latencyMs: LATE_MS }]);

    const key = 'ml-ana-events-1';
    const first = await s
      .pos('cashier')
      .post('/events', { customerId: 'ml-ana', events: { place_order: {} } })
      .set('Idempotency-Key', key)
      .expect(503);
    expect(first.body.code).toBe('event_maybe_recorded');
    // Final: no Retry-After, so the till's client does not send it again by itself.
    expect(first.headers['retry-after']).toBeUndefined();
    expect(first.body.queued).toBeUndefined();
    // The sandbox applied it, late.
    await eventually('the late event to be recorded', async () => (await points('ml-ana')) === 10, 20_000);

    // The same request again replays the answer; nothing is sent.
    const again = await s
      .pos('cashier')
      .post('/events', { customerId: 'ml-ana', events: { place_order: {} } })
      .set('Idempotency-Key', key)
      .expect(503);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.code).toBe('event_maybe_recorded');
    expect(await pending(s)).toBe(0);
    expect((await s.bff.deps.outbox.counts()).dead).toBe(0);
    expect(eventsSent('ml-ana')).toBe(1);
    expect(await faultsApplied(s)).toEqual([1]);
    expect(await points('ml-ana')).toBe(10);
    expect((await activity(s, 'ml-ana')).filter((a) => a.type === 'place_order')).toHaveLength(1);

    // The day's reconciliation lists them as an outcome not known.
    const to = new Date(Date.now() + 60_000).toISOString();
    const report = (await s.pos('manager').get(`/reconciliation?from=${from}&to=${to}`).expect(200)).body;
    const row = report.rows.find((r: { kind: string; note: string }) => r.kind === 'events' && r.note.includes('place_order'));
    expect(row).toMatchObject({ flags: ['unknown_open'] });
  });

  it('a queued event whose delivery times out is a dead letter, not sent again, and cannot be retried', async () => {
    await s.seed('ml-bob', 0);
    const from = new Date(Date.now() - 60_000).toISOString();
    // A 429 certainly applied nothing: the events are queued.
    await setFaults(s, [{ operation: 'events', status: 429 }]);
    const queued = await s
      .pos('cashier')
      .post('/events', { customerId: 'ml-bob', events: { place_order: {} } })
      .expect(202);
    expect(queued.body).toMatchObject({ queued: true, kind: 'events', reason: 'upstream_busy' });
    expect(await points('ml-bob')).toBe(0);

    // Now the service records them and answers too late.
    await setFaults(s, [{ operation: 'events', after: true, latencyMs: LATE_MS }]);
    const outboxId = queued.body.outboxId as string;
    const entry = await eventually(
      'the entry to be dead',
      async () => {
        const e = (await s.pos('manager').get(`/outbox/${outboxId}`).expect(200)).body;
        return e.state === 'dead' && e;
      },
      20_000,
    );
    expect(entry.lastError.code).toBe('event_maybe_recorded');
    await eventually('the late event to be recorded', async () => (await points('ml-bob')) === 10, 20_000);
    // One send reached the service (the late one); the 429s before it applied nothing.
    expect(await faultsApplied(s)).toEqual([1]);
    const sends = eventsSent('ml-bob');

    const retry = await s.pos('manager').post(`/outbox/dead/${outboxId}/retry`).expect(409);
    expect(retry.body.code).toBe('dead_letter_maybe_recorded');
    expect(await pending(s)).toBe(0);
    expect(eventsSent('ml-bob')).toBe(sends);
    expect((await activity(s, 'ml-bob')).filter((a) => a.type === 'place_order')).toHaveLength(1);
    expect(await points('ml-bob')).toBe(10);
    // The day's reconciliation flags it, naming why.
    const to = new Date(Date.now() + 60_000).toISOString();
    const report = (await s.pos('manager').get(`/reconciliation?from=${from}&to=${to}`).expect(200)).body;
    const row = report.rows.find((r: { kind: string; note: string }) => r.kind === 'events' && r.note.includes(outboxId));
    expect(row.flags).toContain('dead_letter');
    expect(row.note).toContain('event_maybe_recorded');
    // Only discarded.
    expect((await s.pos('manager').post(`/outbox/dead/${outboxId}/discard`).expect(200)).body.state).toBe('discarded');
  });

  it('a payment answered after the BFF gave up is queued and delivered once, settled from the record', async () => {
    await s.seed('ml-cy', 0);
    await setFaults(s, [{ operation: SALE_OPERATION, after: true, latencyMs: LATE_MS, times: 1 }]);
    const sale = await s.pos('cashier').post('/payments', { customerId: 'ml-cy', paymentId: 'ml-sale-1', totalPaid: 40 }).expect(202);
    expect(sale.body).toMatchObject({ queued: true, kind: 'payment', reason: 'upstream_timeout' });

    const outboxId = sale.body.outboxId as string;
    const entry = await eventually(
      'the payment to be delivered',
      async () => {
        const e = (await s.pos('cashier').get(`/outbox/${outboxId}`).expect(200)).body;
        return e.state === 'delivered' && e;
      },
      20_000,
    );
    // The copy was refused as a duplicate, and the record showed this very sale.
    expect(entry.result).toEqual({ alreadyRecorded: true });
    expect(await paymentsOf(s, 'ml-cy')).toEqual(['ml-sale-1']);
    expect(await points('ml-cy')).toBe(40);
  });

  it('a queued payment whose delivery times out is retried under its id and recorded once', async () => {
    await s.seed('ml-dee', 0);
    await setFaults(s, [{ operation: SALE_OPERATION, status: 429 }]);
    const sale = await s.pos('cashier').post('/payments', { customerId: 'ml-dee', paymentId: 'ml-sale-2', totalPaid: 25 }).expect(202);
    expect(sale.body.reason).toBe('upstream_busy');
    await setFaults(s, [{ operation: SALE_OPERATION, after: true, latencyMs: LATE_MS, times: 1 }]);

    const outboxId = sale.body.outboxId as string;
    const entry = await eventually(
      'the payment to be delivered',
      async () => {
        const e = (await s.pos('cashier').get(`/outbox/${outboxId}`).expect(200)).body;
        return e.state === 'delivered' && e;
      },
      20_000,
    );
    // The timed-out attempt landed; the retry under the same id was refused as its duplicate and settled from the record.
    expect(await faultsApplied(s)).toEqual([1]);
    expect(entry.result).toEqual({ alreadyRecorded: true });
    expect(await paymentsOf(s, 'ml-dee')).toEqual(['ml-sale-2']);
    expect(await points('ml-dee')).toBe(25);
  });
});

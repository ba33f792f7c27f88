import { startStack, Stack } from '../support/e2e';
import { activity, eventually, pending, setFaults } from '../pos/outbox/stack-helpers';

/**
 * Writes the upstream refuses once it is back (here: a refund of a sale it
 * does not know, queued during an outage) end as dead letters. Managers of
 * the store list them and retry (after fixing the cause) or discard them;
 * cashiers and other stores cannot.
 */
describe.each(['redis', 'memory'] as const)('outbox dead letters (%s store)', (store) => {
  let s: Stack;
  beforeAll(async () => {
    // Returns at any branch: a refund of a sale no store rang up is then sent, for the upstream to refuse (else sale_owner_unknown at the till).
    s = await startStack({
      store,
      env: { RETURNS_AT_ANY_BRANCH: 'true', LOYALTY_RETRIES: '0', OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_BACKOFF_BASE_MS: '50', OUTBOX_BACKOFF_MAX_MS: '200' },
    });
    await s.seed('dl-ana', 0);
  });
  afterAll(async () => {
    await s?.close();
  });

  const queuedRefund = async (refundId: string, paymentId: string) => {
    await setFaults(s, [{ operation: 'refund', status: 503 }]);
    const res = await s.pos('manager').post('/refunds', { customerId: 'dl-ana', refundId, paymentId, amount: 10 }).expect(202);
    expect(res.body).toMatchObject({ queued: true, state: 'queued', kind: 'refund', refundId, paymentId, customerId: 'dl-ana' });
    // behind_queued when this customer's previous write is still in the outbox.
    expect(['upstream_unavailable', 'behind_queued']).toContain(res.body.reason);
    await setFaults(s, []);
    return res.body.outboxId as string;
  };
  const stateOf = async (id: string) => (await s.pos('cashier').get(`/outbox/${id}`).expect(200)).body;

  it("a refused entry becomes a dead letter; the store's manager lists it and retries it once the sale exists", async () => {
    const id = await queuedRefund('dl-ref-1', 'dl-sale-1');
    const dead = await eventually('the dead letter', async () => ((await stateOf(id)).state === 'dead' ? stateOf(id) : false));
    expect(dead).toMatchObject({
      outboxId: id,
      kind: 'refund',
      state: 'dead',
      reason: 'upstream_unavailable',
      lastError: { code: 'original_transaction_not_found', status: 404 },
      subject: { customerId: 'dl-ana', refundId: 'dl-ref-1', paymentId: 'dl-sale-1', amount: 10 },
    });
    expect(dead.deadAt).toEqual(expect.any(String));
    // One send refused (404), maybe after one that met the outage (503) before the fault was lifted.
    expect([1, 2]).toContain(dead.attempts);
    expect(await pending(s)).toBe(0);

    const list = await s.pos('manager').get('/outbox/dead').expect(200);
    expect(list.body.deadLetters.map((d: { outboxId: string }) => d.outboxId)).toEqual([id]);
    // Not for cashiers; another store sees none and cannot touch it.
    expect((await s.pos('cashier').get('/outbox/dead').expect(403)).body.code).toBe('role_not_allowed');
    await s.pos('cashier').post(`/outbox/dead/${id}/retry`).expect(403);
    await s.pos('cashier').post(`/outbox/dead/${id}/discard`).expect(403);
    await s.pos('cashier').delete(`/outbox/dead/${id}`).expect(403);
    expect((await s.pos('otherManager').get('/outbox/dead').expect(200)).body.deadLetters).toEqual([]);
    expect((await s.pos('otherManager').post(`/outbox/dead/${id}/retry`).expect(404)).body.code).toBe('outbox_entry_not_found');
    await s.pos('otherCashier').get(`/outbox/${id}`).expect(404);

    // The cause fixed (the sale is recorded now), the manager retries: delivered, the points come back.
    await s.pos('cashier').post('/payments', { customerId: 'dl-ana', paymentId: 'dl-sale-1', totalPaid: 40 }).expect(201);
    expect((await s.balance('dl-ana')).availablePointsBalance).toBe(40);
    const retried = await s.pos('manager').post(`/outbox/dead/${id}/retry`).expect(200);
    expect(retried.body).toMatchObject({ outboxId: id, state: 'queued', attempts: 0 });
    const done = await eventually('the retried refund', async () => ((await stateOf(id)).state === 'delivered' ? stateOf(id) : false));
    expect(done.result).toMatchObject({ amountRefunded: 10, pointsReversed: 10 });
    expect((await s.balance('dl-ana')).availablePointsBalance).toBe(30);
    expect((await s.pos('manager').get('/outbox/dead').expect(200)).body.deadLetters).toEqual([]);
    // A dead letter is retried once: the second retry finds none.
    await s.pos('manager').post(`/outbox/dead/${id}/retry`).expect(404);
  });

  it('a manager discards a dead letter (POST .../discard or DELETE); it is never sent again', async () => {
    const ids = [await queuedRefund('dl-ref-2', 'dl-no-sale-2'), await queuedRefund('dl-ref-3', 'dl-no-sale-3')];
    await eventually('two dead letters', async () => (await s.pos('manager').get('/outbox/dead').expect(200)).body.deadLetters.length === 2);
    const listed = (await s.pos('manager').get('/outbox/dead?limit=1').expect(200)).body.deadLetters;
    expect(listed.map((d: { outboxId: string }) => d.outboxId)).toEqual([ids[1]]);

    expect((await s.pos('manager').post(`/outbox/dead/${ids[0]}/discard`).expect(200)).body).toMatchObject({ outboxId: ids[0], state: 'discarded' });
    expect((await s.pos('manager').delete(`/outbox/dead/${ids[1]}`).expect(200)).body).toMatchObject({ outboxId: ids[1], state: 'discarded' });
    expect((await s.pos('manager').get('/outbox/dead').expect(200)).body.deadLetters).toEqual([]);
    await s.pos('manager').post(`/outbox/dead/${ids[0]}/retry`).expect(404);
    expect((await stateOf(ids[0])).state).toBe('discarded');
    // The refunds reached the sandbox once each (refused), never again.
    expect((await activity(s, 'dl-ana')).filter((a) => a.type === 'Refund Processed')).toHaveLength(1);
  });

  it('bad ids and queries are a clear 400', async () => {
    expect((await s.pos('cashier').get('/outbox/nope').expect(400)).body.code).toBe('validation_failed');
    expect((await s.pos('manager').post('/outbox/dead/obx_x/retry').expect(400)).body.errors[0].path).toBe('id');
    expect((await s.pos('manager').get('/outbox/dead?limit=0').expect(400)).body.errors[0].path).toBe('limit');
    expect((await s.pos('manager').get('/outbox/dead?what=1').expect(400)).body.code).toBe('validation_failed');
    await s.pos('cashier').get('/outbox/obx_doesnotexist1').expect(404);
  });
});

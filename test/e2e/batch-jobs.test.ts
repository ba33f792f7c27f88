import { startStack, Stack } from '../support/e2e';
import { waitFor } from './helpers';

/**
 * Batch upload jobs belong to the store that uploaded them: another store's
 * terminals read them as unknown (404, like redemptions), whatever the job id.
 * Failures reach the till in our own words. Real Redis, real HTTP, two stores.
 */

let s: Stack;
beforeAll(async () => {
  s = await startStack({ store: 'redis' });
});
afterAll(() => s.close());

const orderDate = '2026-01-15T18:00:00.000Z';

it('shows a job to its own store only; another store gets 404 as for a job that does not exist', async () => {
  await s.seed('bj-alice', 0);
  const up = await s
    .pos('cashier')
    .post('/orders/batch', {
      orders: [
        { customerId: 'bj-alice', orderId: 'bj-1', orderDate, totalPaid: 30 },
        { customerId: 'bj-alice', orderId: 'bj-1', orderDate, totalPaid: 30 },
      ],
    })
    .expect(202);
  const { jobId } = up.body;

  let mine: Record<string, any> = {};
  await waitFor('the job to complete', async () => {
    mine = (await s.pos('manager').get(`/orders/batch/${jobId}`).expect(200)).body;
    return mine.status === 'completed';
  });
  expect(mine).toMatchObject({
    jobId,
    total: 2,
    failed: 1,
    failures: [{ orderId: 'bj-1', customerId: 'bj-alice', reason: 'already recorded (duplicate order id)' }],
  });

  const otherStore = await s.pos('otherCashier').get(`/orders/batch/${jobId}`).expect(404);
  const never = await s.pos('otherCashier').get('/orders/batch/987654').expect(404);
  expect(otherStore.body.code).toBe('batch_job_not_found');
  expect(never.body.code).toBe(otherStore.body.code);
  expect(otherStore.body.detail).toBe(`Batch job ${jobId} was not found`);
  expect(JSON.stringify(otherStore.body)).not.toContain('bj-alice');
  await s.pos('otherManager').get(`/orders/batch/${jobId}`).expect(404);

  // Store B's own job is B's, and not A's.
  const theirs = (
    await s
      .pos('otherCashier')
      .post('/orders/batch', { orders: [{ customerId: 'bj-alice', orderId: 'bj-2', orderDate, totalPaid: 5 }] })
      .expect(202)
  ).body;
  await s.pos('otherCashier').get(`/orders/batch/${theirs.jobId}`).expect(200);
  await s.pos('cashier').get(`/orders/batch/${theirs.jobId}`).expect(404);
});

it("never passes the upstream's own failure text to a till", async () => {
  await s.seed('bj-bob', 0);
  const up = (
    await s
      .pos('cashier')
      .post('/orders/batch', {
        orders: [
          { customerId: 'bj-bob', orderId: 'bj-3', orderDate, totalPaid: 10 },
          { customerId: 'bj-bob', orderId: 'bj-3', orderDate, totalPaid: 10 },
        ],
      })
      .expect(202)
  ).body;
  let status: Record<string, any> = {};
  await waitFor('the job to complete', async () => {
    status = (await s.pos('cashier').get(`/orders/batch/${up.jobId}`).expect(200)).body;
    return status.status === 'completed';
  });
  // What the sandbox itself says about the failed item, read straight from it.
  const raw = (
    await s.sandboxAdmin
      .get(`/api/v4.0/integrations/batches/${up.jobId}/status`)
      .set({ apikey: 'e2e_api_key', secretkey: 'e2e_secret_key_do_not_leak_7f3a' })
      .expect(200)
  ).body;
  const upstreamTexts: string[] = [];
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'message' && typeof x === 'string') upstreamTexts.push(x);
        else collect(x);
      }
  };
  collect(raw);
  expect(upstreamTexts.length).toBeGreaterThan(0);
  for (const text of upstreamTexts) expect(JSON.stringify(status)).not.toContain(text);
  expect(status.failures).toEqual([{ orderId: 'bj-3', customerId: 'bj-bob', reason: 'already recorded (duplicate order id)' }]);
});

import { FUZZ_SEED, fuzzRoute, runsFor } from './support/fuzz';
import { sandboxFuzz, SandboxFuzz } from './support/sandbox-fuzz';

/**
 * Every sandbox route (the v4.0 API and the /_sandbox admin API), attacked
 * like the BFF's: answers are 4xx in the v4.0 error shape {code,type,message,
 * requestId} or allowed successes. On a failure fast-check prints the seed and
 * path; rerun with FUZZ_SEED=<seed>, or FUZZ_SCALE=10 for a longer run.
 */
const RUNS_PER_ROUTE = runsFor(150);

let f: SandboxFuzz;
beforeAll(async () => {
  f = await sandboxFuzz();
});
afterAll(async () => {
  console.log(
    `Sandbox fuzz: ${f?.tally.cases} cases over ${f?.routes.length} routes, seed ${FUZZ_SEED ?? 'random'}\n${JSON.stringify(f?.tally.statuses, null, 1)}`,
  );
  await f?.close();
});

const NAMES = [
  'POST /transactions/hold',
  'GET /transactions/hold/:holdReferenceId',
  'DELETE /transactions/hold/:holdReferenceId',
  'POST /transactions/otp',
  'POST /transactions/redeem',
  'POST /payments',
  'POST /transactions/refund',
  'POST /customers',
  'GET /customers/:customerId/balance',
  'GET /customers/:customerId/hash',
  'GET /customers/:customerId/coupons',
  'GET /customers/:customerId/tier-progress',
  'DELETE /customers/:customerId',
  'POST /customers/:customerId/delete',
  'POST /coupons/validate',
  'POST /coupons/:code/validate',
  'POST /coupons/burn',
  'DELETE /coupons/:lockReference',
  'GET /configurations/redemption',
  'POST /events',
  'POST /batch/orders',
  'POST /orders',
  'POST /orders/reward-preview',
  'GET /orders/:orderId/transactions',
  'GET /transactions',
  'GET /batches/:batchId/status',
  'POST /_sandbox/customers',
  'POST /_sandbox/customers/bulk',
  'GET /_sandbox/customers/:customerId/activity',
  'DELETE /_sandbox/transactions/:transactionId',
  'GET /_sandbox/otp/:customerId',
  'GET /_sandbox/accounts/:apikey',
  'PUT /_sandbox/accounts/:apikey',
  'GET /_sandbox/faults',
  'PUT /_sandbox/faults',
  'DELETE /_sandbox/faults',
  'GET /_sandbox/clock',
  'POST /_sandbox/clock/advance',
  'GET /_sandbox/health',
  // Last: a successful reset wipes what the routes above were given.
  'POST /_sandbox/reset',
];

/**
 * Served but not fuzzed: the document takes no keys, parameters or body
 * (it is the same text for every request), so there is no rule to attack.
 */
const NOT_FUZZED = ['GET /openapi.json'];

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

describe('fuzzing every sandbox route', () => {
  it.each(NAMES)(
    '%s: only v4.0 error answers or allowed successes',
    async (name) => {
      const route = f.routes.find((r) => r.name === name);
      expect(route).toBeDefined();
      const before = f.tally.cases;
      await fuzzRoute(f.target, route!, RUNS_PER_ROUTE, f.tally, FUZZ_SEED);
      expect(f.tally.cases - before).toBe(RUNS_PER_ROUTE);
    },
    Math.max(120_000, RUNS_PER_ROUTE * 100),
  );

  it('has a fuzz route for every route the sandbox serves (its /openapi.json), and NAMES runs each', async () => {
    const res = await f.target.client.send({ method: 'GET', path: '/openapi.json' });
    expect(res.status).toBe(200);
    const doc = res.json as { paths: Record<string, Record<string, unknown>> };
    // The document writes path parameters as {name}, Express (and the fuzz table) as :name.
    const served = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.has(key))
        .map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    expect(served).toEqual(expect.arrayContaining(NOT_FUZZED));
    const fuzzed = f.routes.map((r) => `${r.method} ${r.path}`);
    expect(fuzzed.sort()).toEqual(served.filter((route) => !NOT_FUZZED.includes(route)).sort());
    expect(f.routes.map((r) => r.name).sort()).toEqual([...NAMES].sort());
  });
});
